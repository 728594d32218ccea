"""URL routes of the privacy app, mounted at /me/."""

from django.urls import path

from privacy import imports, moderation_views, people, views

app_name = "privacy"

urlpatterns = [
    path("", views.index, name="index"),
    path("remember/", views.remember, name="remember"),
    path("bulk/", views.bulk, name="bulk"),
    path("bulk/undo-erase/", views.erasure_undo_view, name="bulk_undo_erase"),
    path("memories/<uuid:memory_id>/", views.memory_detail, name="memory"),
    path("memories/<uuid:memory_id>/row/", views.memory_row, name="row"),
    path("memories/<uuid:memory_id>/correct/", views.correct, name="correct"),
    path("memories/<uuid:memory_id>/hide/", views.hide, name="hide"),
    path("memories/<uuid:memory_id>/unhide/", views.unhide, name="unhide"),
    path("memories/<uuid:memory_id>/restore/", views.restore, name="restore"),
    path("memories/<uuid:memory_id>/always-recall/", views.always_recall, name="always_recall"),
    path("memories/<uuid:memory_id>/not-always-recall/", views.not_always_recall, name="not_always_recall"),
    path("memories/<uuid:memory_id>/erase/", views.erase, name="erase"),
    path("erase/", views.erase_all, name="erase_all"),
    path("export/", views.export, name="export"),
    path("pause/", views.pause, name="pause"),
    path("activity/", views.activity, name="activity"),
    path("import/", imports.import_page, name="import"),
    path("import/<uuid:import_id>/", imports.import_job, name="import_job"),
    path("import/<uuid:import_id>/retry/", imports.import_retry_view, name="import_retry"),
    path("people/", people.people, name="people"),
    path("people/<uuid:entity_id>/", people.person, name="person"),
    path("people/<uuid:entity_id>/correct/", people.person_correct, name="person_correct"),
    path("people/<uuid:entity_id>/merge/", people.person_merge, name="person_merge"),
    path("people/<uuid:entity_id>/split/", people.person_split, name="person_split"),
    path("people/<uuid:entity_id>/erase/", people.person_erase, name="person_erase"),
    path(
        "people/<uuid:entity_id>/relations/<uuid:relation_id>/correct/",
        people.relation_correct,
        name="relation_correct",
    ),
    path(
        "people/<uuid:entity_id>/relations/<uuid:relation_id>/end/", people.relation_end, name="relation_end"
    ),
    path(
        "people/<uuid:entity_id>/relations/<uuid:relation_id>/erase/",
        people.relation_erase,
        name="relation_erase",
    ),
    path("moderation/", moderation_views.moderation, name="moderation"),
    path("moderation/procedures/new/", moderation_views.procedure_create_view, name="procedure_create"),
    path(
        "moderation/procedures/<uuid:memory_id>/approve/",
        moderation_views.procedure_approve_view,
        name="procedure_approve",
    ),
    path(
        "moderation/procedures/<uuid:memory_id>/reject/",
        moderation_views.procedure_reject_view,
        name="procedure_reject",
    ),
    path("moderation/flags/<int:flag_id>/dismiss/", moderation_views.flag_dismiss_view, name="flag_dismiss"),
]
