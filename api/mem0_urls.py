"""mem0-compatible routes at the site root: point `MemoryClient(host=...)` at this server's origin."""

from django.urls import path

from api import mem0_apis as m

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
]
