"""Routes of `/api/v1/` (included by config/api_urls.py)."""

from django.urls import path

from api.v1 import (
    conversations,
    entities,
    erasures,
    extractions,
    imports,
    memories,
    moderation,
    recall,
    tokens,
    webhooks,
)

urlpatterns = [
    path("memories/", memories.MemoriesApi.as_view(), name="api-memories"),
    path("memories/search/", memories.MemorySearchApi.as_view(), name="api-memories-search"),
    path("memories/erase-all/", erasures.EraseAllApi.as_view(), name="api-memories-erase-all"),
    path("memories/export/", memories.ExportApi.as_view(), name="api-memories-export"),
    path("memories/<str:memory_id>/", memories.MemoryApi.as_view(), name="api-memory"),
    path("memories/<str:memory_id>/history/", memories.MemoryHistoryApi.as_view(), name="api-memory-history"),
    path("memories/<str:memory_id>/restore/", memories.MemoryRestoreApi.as_view(), name="api-memory-restore"),
    path(
        "memories/<str:memory_id>/always-recall/",
        memories.MemoryAlwaysRecallApi.as_view(),
        name="api-memory-always-recall",
    ),
    path("erasures/", erasures.ErasuresApi.as_view(), name="api-erasures"),
    path("entities/", entities.EntitiesApi.as_view(), name="api-entities"),
    path("entities/search/", entities.EntitySearchApi.as_view(), name="api-entities-search"),
    path("entities/<str:entity_id>/", entities.EntityApi.as_view(), name="api-entity"),
    path("entities/<str:entity_id>/merge/", entities.EntityMergeApi.as_view(), name="api-entity-merge"),
    path("entities/<str:entity_id>/split/", entities.EntitySplitApi.as_view(), name="api-entity-split"),
    path(
        "entities/<str:entity_id>/observations/",
        entities.EntityObservationsApi.as_view(),
        name="api-entity-observations",
    ),
    path("graph/", entities.GraphApi.as_view(), name="api-graph"),
    path("graph/clear/", entities.GraphClearApi.as_view(), name="api-graph-clear"),
    path("relations/", entities.RelationsApi.as_view(), name="api-relations"),
    path("relations/<str:relation_id>/", entities.RelationApi.as_view(), name="api-relation"),
    path("recall/", recall.RecallApi.as_view(), name="api-recall"),
    path("conversations/", conversations.ConversationsApi.as_view(), name="api-conversations"),
    path(
        "conversations/<str:conversation_id>/",
        conversations.ConversationApi.as_view(),
        name="api-conversation",
    ),
    path(
        "conversations/<str:conversation_id>/messages/",
        conversations.ConversationMessagesApi.as_view(),
        name="api-conversation-messages",
    ),
    path(
        "conversations/<str:conversation_id>/close/",
        conversations.ConversationCloseApi.as_view(),
        name="api-conversation-close",
    ),
    path("extractions/", extractions.ExtractionsApi.as_view(), name="api-extractions"),
    path("extractions/<str:job_id>/", extractions.ExtractionApi.as_view(), name="api-extraction"),
    path(
        "extractions/<str:job_id>/retry/",
        extractions.ExtractionRetryApi.as_view(),
        name="api-extraction-retry",
    ),
    path("imports/", imports.ImportsApi.as_view(), name="api-imports"),
    path("imports/<str:import_id>/", imports.ImportApi.as_view(), name="api-import"),
    path("imports/<str:import_id>/retry/", imports.ImportRetryApi.as_view(), name="api-import-retry"),
    path("moderation/procedures/", moderation.PendingProceduresApi.as_view(), name="api-moderation-pending"),
    path(
        "moderation/procedures/<str:memory_id>/approve/",
        moderation.ApproveApi.as_view(),
        name="api-moderation-approve",
    ),
    path(
        "moderation/procedures/<str:memory_id>/reject/",
        moderation.RejectApi.as_view(),
        name="api-moderation-reject",
    ),
    path("tokens/", tokens.TokensApi.as_view(), name="api-tokens"),
    path("tokens/<str:token_id>/", tokens.TokenApi.as_view(), name="api-token"),
    path("webhooks/", webhooks.WebhooksApi.as_view(), name="api-webhooks"),
    path("webhooks/<str:webhook_id>/", webhooks.WebhookApi.as_view(), name="api-webhook"),
    path(
        "webhooks/<str:webhook_id>/rotate-secret/",
        webhooks.WebhookRotateSecretApi.as_view(),
        name="api-webhook-rotate-secret",
    ),
    path("webhooks/<str:webhook_id>/ping/", webhooks.WebhookPingApi.as_view(), name="api-webhook-ping"),
    path(
        "webhooks/<str:webhook_id>/deliveries/",
        webhooks.WebhookDeliveriesApi.as_view(),
        name="api-webhook-deliveries",
    ),
    path(
        "webhooks/<str:webhook_id>/deliveries/<str:delivery_id>/replay/",
        webhooks.WebhookReplayApi.as_view(),
        name="api-webhook-replay",
    ),
]
