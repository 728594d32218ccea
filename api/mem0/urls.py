"""mem0-compatible routes at the site root: point `MemoryClient(host=...)` at this server's origin."""

from django.urls import path

from api.mem0 import apis as m
from api.mem0 import more_apis as more

urlpatterns = [
    path("v1/ping/", m.PingApi.as_view(), name="mem0-ping"),
    path("v3/memories/add/", m.AddApi.as_view(), name="mem0-add"),
    path("v3/memories/search/", m.SearchApi.as_view(), name="mem0-search"),
    path("v3/memories/", m.ListApi.as_view(), name="mem0-list"),
    path("v1/memories/", m.DeleteAllApi.as_view(), name="mem0-delete-all"),
    path("v1/memories/<str:memory_id>/", m.MemoryApi.as_view(), name="mem0-memory"),
    path("v1/memories/<str:memory_id>/history/", m.HistoryApi.as_view(), name="mem0-history"),
    path("v1/event/<str:event_id>/", m.EventApi.as_view(), name="mem0-event"),
    path("v1/entities/", m.EntitiesApi.as_view(), name="mem0-entities"),
    path("v2/entities/<str:entity_type>/<str:name>/", m.EntityApi.as_view(), name="mem0-entity"),
    path("v1/batch/", more.BatchApi.as_view(), name="mem0-batch"),
    path("v1/exports/", more.ExportCreateApi.as_view(), name="mem0-export-create"),
    path("v1/exports/get/", more.ExportGetApi.as_view(), name="mem0-export-get"),
    path("v1/feedback/", more.FeedbackApi.as_view(), name="mem0-feedback"),
    path(
        "api/v1/orgs/organizations/<str:org_id>/projects/<str:project_id>/",
        more.ProjectApi.as_view(),
        name="mem0-project",
    ),
    # What mem0 offers and this system does not: a 501 naming the feature, not a bare 404.
    path("api/v1/orgs/<path:rest>", more.OrgsApi.as_view(), name="mem0-orgs"),
    path("v1/summary/", more.SummaryApi.as_view(), name="mem0-summary"),
    path("v2/entities/<str:entity_type>/<str:name>/profile/", more.ProfileApi.as_view(), name="mem0-profile"),
    path("v2/profiles/<path:rest>", more.ProfileJobsApi.as_view(), name="mem0-profile-jobs"),
]
