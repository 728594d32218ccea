"""Routes of `/api/v1/` (included by config/api_urls.py)."""

from django.urls import path

from api import apis

urlpatterns = [
    path("memories/", apis.MemoriesApi.as_view(), name="api-memories"),
    path("memories/search/", apis.MemorySearchApi.as_view(), name="api-memories-search"),
    path("memories/erase-all/", apis.EraseAllApi.as_view(), name="api-memories-erase-all"),
    path("memories/export/", apis.ExportApi.as_view(), name="api-memories-export"),
    path("memories/<str:memory_id>/", apis.MemoryApi.as_view(), name="api-memory"),
    path("memories/<str:memory_id>/history/", apis.MemoryHistoryApi.as_view(), name="api-memory-history"),
    path("erasures/", apis.ErasuresApi.as_view(), name="api-erasures"),
    path("recall/", apis.RecallApi.as_view(), name="api-recall"),
    path("conversations/", apis.ConversationsApi.as_view(), name="api-conversations"),
    path("conversations/<str:conversation_id>/", apis.ConversationApi.as_view(), name="api-conversation"),
    path(
        "conversations/<str:conversation_id>/messages/",
        apis.ConversationMessagesApi.as_view(),
        name="api-conversation-messages",
    ),
    path(
        "conversations/<str:conversation_id>/close/",
        apis.ConversationCloseApi.as_view(),
        name="api-conversation-close",
    ),
    path("extractions/", apis.ExtractionsApi.as_view(), name="api-extractions"),
    path("extractions/<str:job_id>/", apis.ExtractionApi.as_view(), name="api-extraction"),
    path("moderation/procedures/", apis.PendingProceduresApi.as_view(), name="api-moderation-pending"),
    path(
        "moderation/procedures/<str:memory_id>/approve/",
        apis.ApproveApi.as_view(),
        name="api-moderation-approve",
    ),
    path(
        "moderation/procedures/<str:memory_id>/reject/",
        apis.RejectApi.as_view(),
        name="api-moderation-reject",
    ),
]
