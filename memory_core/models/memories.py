"""The memories: namespaces (and their grants), memory entries with the search statistics their
triggers keep, their evidence and their history. Invariants are check constraints."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import ExpressionWrapper, F, Q
from django.db.models.functions import Coalesce, Length
from django.db.models.lookups import LessThanOrEqual
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from pgvector.django import HnswIndex

from memory_core.answer_style import PREFERENCE_CATEGORY, STYLE_PATTERN
from memory_core.choices import (
    ALWAYS_RECALL_CATEGORIES,
    ActorKind,
    EventAction,
    MemoryStatus,
    MemoryType,
    NamespaceKind,
    SourceKind,
)
from memory_core.language import search_copies
from memory_core.querysets import MemoryEntryQuerySet, MemoryEventQuerySet, NamespaceQuerySet
from memory_core.vector_storage import MEMORY_VECTOR_OPCLASS, HalfVectorField

EMBEDDING_DIMENSIONS = 384
CONTENT_MAX_CHARS = 2000
# Full-text configuration used both by the generated column and by queries against it, over the
# segmented text of `memory_core.language` (Chinese words pass the English stemmer unchanged).
SEARCH_CONFIG = "english"
# The columns whose words full-text search reads through a segmented copy (`MemoryEntry.index_text`):
# the statement, its context, and the key (a Chinese statement's topic words, `memory_core.topics`).
INDEXED_TEXT = ("content", "search_context", "key")
SEARCH_COPIES = ("search_text", "search_context_text")


def choices_check(field: str, choices: type[models.TextChoices], name: str) -> models.CheckConstraint:
    """The check constraint that `field` holds one of `choices`' values."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": choices.values}), name=name)


class Namespace(models.Model):
    """An isolation unit such as `user/alice`, `org/acme` or `agent/support`."""

    Kind = NamespaceKind
    path = models.CharField(verbose_name=_("path"), max_length=200, unique=True)
    kind = models.CharField(verbose_name=_("kind"), max_length=10, choices=NamespaceKind.choices)
    # The person whose memories these are (user namespaces only).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="memory_namespaces",
    )
    memory_paused = models.BooleanField(verbose_name=_("memory paused"), default=False)
    # "Do not mine before": set by erase-all, so messages said before it are never learned again.
    mine_after = models.DateTimeField(verbose_name=_("learn only after"), null=True, blank=True)
    # Active entries above which the forgetting job archives the least valuable ones (null: the
    # FORGET_CAPACITY setting). See memory_core.forgetting.
    memory_capacity = models.PositiveIntegerField(verbose_name=_("memory capacity"), null=True, blank=True)
    # Changes whenever the namespace's entities, relations, mentions or relation support do
    # (database triggers, migration 0022): recall keeps each graph in memory under this version
    # (`memory_core.entities.graph_cache`), so a changed graph is never read from the cache.
    graph_version = models.BigIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    objects = NamespaceQuerySet.as_manager()

    class Meta:
        verbose_name = _("namespace")
        verbose_name_plural = _("namespaces")
        constraints = [
            choices_check("kind", NamespaceKind, "namespace_kind_valid"),
            models.CheckConstraint(
                condition=Q(path__regex=r"^(user|org|agent)/[A-Za-z0-9_.@+-]{1,150}$"),
                name="namespace_path_format",
            ),
            models.CheckConstraint(
                condition=Q(kind="user", owner__isnull=False) | ~Q(kind="user"),
                name="namespace_user_has_owner",
            ),
        ]

    def __str__(self) -> str:
        return self.path


class NamespaceGrant(models.Model):
    """Lets a user's assistant read the approved procedural memories of an org or agent namespace."""

    namespace = models.ForeignKey(
        Namespace, verbose_name=_("namespace"), on_delete=models.CASCADE, related_name="grants"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="namespace_grants",
    )
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("namespace grant")
        verbose_name_plural = _("namespace grants")
        constraints = [models.UniqueConstraint(fields=["namespace", "user"], name="namespace_grant_unique")]

    def __str__(self) -> str:
        return f"{self.user} → {self.namespace}"


class MemoryEntry(models.Model):
    """One self-contained statement the assistant may recall."""

    id = models.UUIDField(verbose_name=_("ID"), primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey(
        Namespace, verbose_name=_("namespace"), on_delete=models.CASCADE, related_name="entries"
    )
    type = models.CharField(verbose_name=_("type"), max_length=12, choices=MemoryType.choices)
    category = models.CharField(verbose_name=_("category"), max_length=40, default="general")
    # A stable slot ("home_city", "diet.allergy") used to find the entry an update replaces.
    key = models.CharField(verbose_name=_("key"), max_length=120, blank=True, default="")
    content = models.TextField(verbose_name=_("content"))

    # Provenance. Conversation and message ids are opaque references (chat or API callers).
    source_kind = models.CharField(verbose_name=_("source"), max_length=20, choices=SourceKind.choices)
    source_conversation = models.CharField(
        verbose_name=_("source conversation"), max_length=64, blank=True, default=""
    )
    source_message_ids = ArrayField(
        models.CharField(max_length=64), verbose_name=_("source messages"), default=list, blank=True
    )
    extractor_model = models.CharField(
        verbose_name=_("extraction model"), max_length=100, blank=True, default=""
    )
    extractor_prompt_version = models.CharField(
        verbose_name=_("extraction prompt version"), max_length=40, blank=True, default=""
    )
    is_inference = models.BooleanField(
        verbose_name=_("inferred"), default=False, help_text=_("Inferred by a model, not stated by the user.")
    )

    confidence = models.FloatField(verbose_name=_("confidence"), default=1.0)
    importance = models.FloatField(verbose_name=_("importance"), default=0.5)
    pinned = models.BooleanField(
        verbose_name=_("pinned"),
        default=False,
        help_text=_("Always recalled (safety facts such as allergies)."),
    )
    evidence_count = models.PositiveIntegerField(verbose_name=_("evidence count"), default=1)

    status = models.CharField(
        verbose_name=_("status"), max_length=16, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE
    )
    valid_from = models.DateTimeField(verbose_name=_("valid from"), default=timezone.now)
    valid_to = models.DateTimeField(verbose_name=_("valid until"), null=True, blank=True)
    recorded_at = models.DateTimeField(
        verbose_name=_("recorded at"), default=timezone.now, help_text=_("When the system learned it.")
    )
    # False: told undated, of someone else, with no word of a change: it may have held long before
    # `valid_from` (when it was recorded), so a question about an earlier instant may see it.
    start_known = models.BooleanField(
        verbose_name=_("start known"),
        default=True,
        db_default=True,
        help_text=_("False when the statement held from an unknown start, before it was recorded."),
    )
    expired_at = models.DateTimeField(
        verbose_name=_("expired at"),
        null=True,
        blank=True,
        help_text=_("When the system stopped holding it."),
    )
    expires_at = models.DateTimeField(
        verbose_name=_("expires at"), null=True, blank=True, help_text=_("Time-to-live deadline.")
    )
    approved_at = models.DateTimeField(verbose_name=_("approved at"), null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("approved by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    access_count = models.PositiveIntegerField(verbose_name=_("times recalled"), default=0)
    last_accessed_at = models.DateTimeField(verbose_name=_("last recalled at"), null=True, blank=True)

    supersedes = models.ForeignKey(
        "self",
        verbose_name=_("supersedes"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="superseded_versions",
    )
    superseded_by = models.ForeignKey(
        "self",
        verbose_name=_("superseded by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="replaced_versions",
    )

    embedding = HalfVectorField(
        verbose_name=_("embedding"), dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True
    )
    embedding_model = models.CharField(
        verbose_name=_("embedding model"), max_length=100, blank=True, default=""
    )
    # What a statement from a conversation turn answers (the preceding turn): searched, never
    # shown. Content like the statement: redacted on the way in, erased with the entry.
    search_context = models.TextField(verbose_name=_("search context"), blank=True, default="")
    # The embedding of the context followed by the statement (same model as `embedding`).
    context_embedding = HalfVectorField(
        verbose_name=_("context embedding"), dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True
    )
    # `CONTEXT_VECTOR = "deferred"`: `context_embedding` holds the pooled stand-in until the job
    # (`memory_core.context_vectors`) stores the context document's own embedding.
    context_pending = models.BooleanField(
        verbose_name=_("context vector pending"), default=False, db_default=False
    )
    # Added by a client as a turn of a conversation it stores one turn per call (mem0's add with
    # `infer: false`): the next such turn is read with it (`pipeline.with_previous_turns`).
    said_as_turn = models.BooleanField(verbose_name=_("said as a turn"), default=False, db_default=False)
    # The statement and context as the full-text index reads them: Chinese segmented into words
    # (`memory_core.language.search_text`) with the key's topic words for Chinese, NULL when that is
    # the text itself. Filled on every save and bulk write (`index_text`, `MemoryEntryQuerySet`).
    search_text = models.TextField(null=True, blank=True, editable=False)  # noqa: DJ001 - NULL: as written
    search_context_text = models.TextField(null=True, blank=True, editable=False)  # noqa: DJ001
    # The statement's words weigh A, the context's D (see `memory_core.lexical`). Statistics
    # for keyword ranking (`SearchTerm`, `SearchStats`) follow this column through triggers.
    search_vector = models.GeneratedField(
        expression=SearchVector(Coalesce("search_text", "content"), "key", config=SEARCH_CONFIG, weight="A")
        + SearchVector(Coalesce("search_context_text", "search_context"), config=SEARCH_CONFIG, weight="D"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    metadata = models.JSONField(verbose_name=_("metadata"), default=dict, blank=True)
    # An answer-style preference (`memory_core.answer_style`), decided by PostgreSQL on every write.
    answer_style = models.GeneratedField(
        expression=ExpressionWrapper(
            Q(category=PREFERENCE_CATEGORY, content__iregex=STYLE_PATTERN), output_field=models.BooleanField()
        ),
        output_field=models.BooleanField(),
        db_persist=True,
    )

    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(verbose_name=_("updated at"), auto_now=True)

    objects = MemoryEntryQuerySet.as_manager()

    class Meta:
        verbose_name = _("memory entry")
        verbose_name_plural = _("memory entries")
        permissions = [("moderate_memories", "Can approve, edit and reject procedural memories")]
        indexes = [
            # Covers the /me/ totals (one grouped count, an index-only scan) and status filters.
            models.Index(
                fields=["namespace", "status", "type", "category"], name="memory_ns_status_type_cat"
            ),
            # The /me/ list, newest first: read in index order, no sort of every row.
            models.Index(fields=["namespace", "recorded_at", "id"], name="memory_ns_recorded"),
            models.Index(fields=["namespace", "key"], name="memory_ns_key"),
            # A turn's style preferences, newest first (`chat.style.current_style`).
            models.Index(
                fields=["namespace", "-recorded_at"],
                condition=Q(answer_style=True),
                name="memory_answer_style",
            ),
            HnswIndex(
                name="memory_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=[MEMORY_VECTOR_OPCLASS],
            ),
            HnswIndex(
                name="memory_context_embedding_hnsw",
                fields=["context_embedding"],
                m=16,
                ef_construction=64,
                opclasses=[MEMORY_VECTOR_OPCLASS],
            ),
            GinIndex(fields=["search_vector"], name="memory_search_gin"),
            # The entries waiting for their context document's embedding, oldest first (the job's
            # read); empty once the job has caught up, so it costs the writes next to nothing.
            models.Index(
                fields=["recorded_at", "id"],
                condition=Q(context_pending=True),
                name="memory_context_pending",
            ),
            # Always-recall entries (pinned safety facts, profile) are fetched on every recall.
            models.Index(
                fields=["namespace"],
                condition=Q(pinned=True) | Q(category__in=list(ALWAYS_RECALL_CATEGORIES)),
                name="memory_ns_always_recall",
            ),
        ]
        constraints = [
            choices_check("type", MemoryType, "memory_type_valid"),
            choices_check("status", MemoryStatus, "memory_status_valid"),
            choices_check("source_kind", SourceKind, "memory_source_kind_valid"),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_from__lte=F("valid_to")),
                name="memory_valid_window_ordered",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="memory_confidence_0_1"
            ),
            models.CheckConstraint(
                condition=Q(importance__gte=0, importance__lte=1), name="memory_importance_0_1"
            ),
            models.CheckConstraint(condition=~Q(content__regex=r"^\s*$"), name="memory_content_not_blank"),
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("content"), CONTENT_MAX_CHARS),
                name="memory_content_max_length",
            ),
            # A procedure reaches an assistant only after an operator approved it.
            models.CheckConstraint(
                condition=~Q(type="procedural", status="active") | Q(approved_at__isnull=False),
                name="memory_active_procedure_approved",
            ),
            models.CheckConstraint(
                condition=Q(embedding__isnull=True) | ~Q(embedding_model=""),
                name="memory_embedding_has_model",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.namespace.path}: {self.content[:60]}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        fields = kwargs.get("update_fields")
        copies = self.index_text(INDEXED_TEXT if fields is None else fields)
        if fields is not None and copies:
            kwargs["update_fields"] = {*fields, *copies}
        super().save(*args, **kwargs)

    def prepare_insert(self) -> None:
        """What `save` does before a new row is written (`memory_core.inserts`): the index copies."""
        self.index_text()

    @property
    def correctable(self) -> bool:
        return self.status in MemoryStatus.correctable()

    @property
    def always_recalled(self) -> bool:
        """Recalled with every answer while in use: pinned, or a safety or profile fact."""
        return self.pinned or self.category in ALWAYS_RECALL_CATEGORIES

    def index_text(self, fields: Iterable[str] = INDEXED_TEXT) -> list[str]:
        """Fill the copies the search index reads (`memory_core.language.search_copies`) when
        `fields` change one of their sources (statement, context, key); return the copies' names."""
        if not set(fields) & set(INDEXED_TEXT):
            return []
        self.search_text, self.search_context_text = search_copies(
            self.content, self.search_context, self.key
        )
        return list(SEARCH_COPIES)


class SearchTerm(models.Model):
    """How many entries of a namespace hold a term (a lexeme of `search_vector`): the document
    frequency behind keyword ranking. Kept by database triggers on `MemoryEntry` in the writing
    transaction, so every write path (bulk imports, corrections, erasure) keeps it exact; a term
    no entry holds any more is deleted with its last entry."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    term = models.TextField()
    entries = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["namespace", "term"], name="search_term_unique")]
        # Whether any namespace still holds a term (`TermVector`'s trigger asks on every delete).
        indexes = [models.Index(fields=["term"], name="search_term_term")]

    def __str__(self) -> str:
        return f"{self.term} ({self.entries})"


class SearchStats(models.Model):
    """A namespace's number of entries and their total length in lexemes (for BM25's average)."""

    namespace = models.OneToOneField(Namespace, on_delete=models.CASCADE, primary_key=True, related_name="+")
    entries = models.PositiveIntegerField(default=0)
    total_length = models.BigIntegerField(default=0)

    class Meta:
        verbose_name_plural = "search stats"

    def __str__(self) -> str:
        return f"{self.entries} entries"


class TermVector(models.Model):
    """The embedding of a term (a lexeme of `search_vector`) that some namespace's entries hold:
    recall adds the scope's terms nearest to the query's to its keyword search
    (`memory_core.term_vectors`). A function of the term and the model, so kept once for every
    namespace; a job embeds the terms that have none, and a trigger on `SearchTerm` deletes the
    row with the term's last holder, so nothing of an erased entry's words stays here either."""

    term = models.TextField(primary_key=True)
    embedding = HalfVectorField(dimensions=EMBEDDING_DIMENSIONS)
    embedding_model = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.term


class RelatedTerm(models.Model):
    """Two terms whose vectors are at least `term_vectors.PAIR_FLOOR` alike, both ways, computed by
    the job when either gets its vector: recall reads a query term's pairs instead of comparing it
    with the scope's whole vocabulary. Deleted with either term's vector (the same trigger)."""

    term = models.TextField()
    related = models.TextField()
    similarity = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["term", "related"], name="related_term_unique")]
        indexes = [models.Index(fields=["related"], name="related_term_related")]

    def __str__(self) -> str:
        return f"{self.term} ~ {self.related}"


class MemoryEvidence(models.Model):
    """One observation supporting an entry; merges add evidence instead of a second copy."""

    entry = models.ForeignKey(
        MemoryEntry, verbose_name=_("entry"), on_delete=models.CASCADE, related_name="evidence"
    )
    source_kind = models.CharField(verbose_name=_("source"), max_length=20, choices=SourceKind.choices)
    source_conversation = models.CharField(
        verbose_name=_("source conversation"), max_length=64, blank=True, default=""
    )
    source_message_ids = ArrayField(
        models.CharField(max_length=64), verbose_name=_("source messages"), default=list, blank=True
    )
    excerpt = models.TextField(verbose_name=_("excerpt"), blank=True, default="")
    confidence = models.FloatField(verbose_name=_("confidence"), default=1.0)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("memory evidence")
        verbose_name_plural = _("memory evidence")
        constraints = [
            choices_check("source_kind", SourceKind, "evidence_source_kind_valid"),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="evidence_confidence_0_1"
            ),
        ]

    def __str__(self) -> str:
        return f"evidence for {self.entry_id}"


class MemoryEvent(models.Model):
    """History of an entry. After erasure only a content-free tombstone (no `data`) remains."""

    namespace = models.ForeignKey(
        Namespace, verbose_name=_("namespace"), on_delete=models.CASCADE, related_name="events"
    )
    entry = models.ForeignKey(
        MemoryEntry,
        verbose_name=_("entry"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="events",
    )
    entry_ref = models.UUIDField(
        verbose_name=_("entry ID"), db_index=True, help_text=_("The entry's id, kept after erasure.")
    )
    action = models.CharField(verbose_name=_("action"), max_length=16, choices=EventAction.choices)
    actor_kind = models.CharField(verbose_name=_("actor kind"), max_length=12, choices=ActorKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("actor"), null=True, blank=True, on_delete=models.SET_NULL
    )
    reason = models.TextField(verbose_name=_("reason"), blank=True, default="")
    # Snapshot of what changed (content, status …); emptied on erasure.
    data = models.JSONField(verbose_name=_("data"), default=dict, blank=True)
    created_at = models.DateTimeField(verbose_name=_("created at"), default=timezone.now, db_index=True)

    objects = MemoryEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("memory event")
        verbose_name_plural = _("memory events")
        ordering = ["-created_at", "-id"]
        constraints = [
            choices_check("action", EventAction, "event_action_valid"),
            choices_check("actor_kind", ActorKind, "event_actor_kind_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.entry_ref} by {self.actor_kind}"
