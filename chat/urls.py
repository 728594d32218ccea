"""URL routes of the chat app."""

from django.urls import path

from chat import views

app_name = "chat"

urlpatterns = [
    path("", views.home, name="home"),
    path("new/", views.conversation_new, name="new"),
    path("c/<uuid:conversation_id>/", views.conversation_detail, name="conversation"),
    path("c/<uuid:conversation_id>/send/", views.message_send, name="send"),
    path("c/<uuid:conversation_id>/end/", views.conversation_end, name="end"),
    path("c/<uuid:conversation_id>/rename/", views.conversation_rename_view, name="rename"),
    path("c/<uuid:conversation_id>/delete/", views.conversation_delete_view, name="delete"),
    path("c/<uuid:conversation_id>/notices/", views.conversation_notices_view, name="notices"),
    path("c/<uuid:conversation_id>/state/", views.conversation_state, name="state"),
    path("c/<uuid:conversation_id>/m/<int:message_id>/", views.message_turn, name="turn"),
    path("c/<uuid:conversation_id>/m/<int:message_id>/stream/", views.message_stream, name="stream"),
    path("c/<uuid:conversation_id>/m/<int:message_id>/retry/", views.message_retry_view, name="retry"),
    path(
        "c/<uuid:conversation_id>/m/<int:message_id>/undo/<uuid:memory_id>/",
        views.memory_undo,
        name="memory_undo",
    ),
]
