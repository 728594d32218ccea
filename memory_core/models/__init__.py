"""The memory data model: namespaces, memory entries, their evidence and their history
(`memories`); the days in use, the recall log and flagged writes (`logs`); extraction and import
jobs (`jobs`); tombstones and erasure receipts (`erasure`).

Invariants live in the database (check constraints), so no code path can write a row that
breaks them. Rows are reached through the querysets in `memory_core.querysets`, which are the
one place that enforces namespace isolation. Django registers the app's models from this module,
so every model of the app is imported here; callers name a model, its constants and its choices
from it.
"""

from __future__ import annotations

from memory_core.choices import (
    ActorKind,
    ErasureScope,
    ErasureVia,
    EventAction,
    ExtractionStatus,
    FlagKind,
    ImportFormat,
    ImportStatus,
    MemoryStatus,
    MemoryType,
    NamespaceKind,
    SourceKind,
    TombstoneReason,
)

# The knowledge-graph rows (`entities.models`) and the webhook rows (`webhooks.models`) live in
# their packages; imported here so that Django registers them with this app.
from memory_core.entities.models import (
    Entity,
    EntityMention,
    GraphChange,
    Relation,
    RelationEnding,
    RelationSupport,
)
from memory_core.models.erasure import ErasureReceipt, Tombstone
from memory_core.models.jobs import ExtractionJob, ImportJob
from memory_core.models.logs import ActiveDay, FlaggedWrite, RecallLog
from memory_core.models.memories import (
    CONTENT_MAX_CHARS,
    EMBEDDING_DIMENSIONS,
    INDEXED_TEXT,
    SEARCH_CONFIG,
    SEARCH_COPIES,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    Namespace,
    NamespaceGrant,
    RelatedTerm,
    SearchStats,
    SearchTerm,
    TermVector,
)
from memory_core.webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent

__all__ = [
    "CONTENT_MAX_CHARS",
    "EMBEDDING_DIMENSIONS",
    "INDEXED_TEXT",
    "SEARCH_CONFIG",
    "SEARCH_COPIES",
    "ActiveDay",
    "ActorKind",
    "Entity",
    "EntityMention",
    "ErasureReceipt",
    "ErasureScope",
    "ErasureVia",
    "EventAction",
    "ExtractionJob",
    "ExtractionStatus",
    "FlagKind",
    "FlaggedWrite",
    "GraphChange",
    "ImportFormat",
    "ImportJob",
    "ImportStatus",
    "MemoryEntry",
    "MemoryEvent",
    "MemoryEvidence",
    "MemoryStatus",
    "MemoryType",
    "Namespace",
    "NamespaceGrant",
    "NamespaceKind",
    "RecallLog",
    "RelatedTerm",
    "Relation",
    "RelationEnding",
    "RelationSupport",
    "SearchStats",
    "SearchTerm",
    "SourceKind",
    "TermVector",
    "Tombstone",
    "TombstoneReason",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
]
