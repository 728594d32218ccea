"""Entity and relation rows. Every row has a non-null namespace (isolation as for memories);
what a relation or a mention rests on is a row per supporting memory entry, deleted with the
entry, so an erased memory takes its relations with it unless another memory supports them
(`memory_core.entities.erasure` prunes what is left unsupported)."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone
from pgvector.django import VectorField

from memory_core.entities.vocabulary import EntityKind, Predicate, RelationStatus

EMBEDDING_DIMENSIONS = 384  # as memory_core.models (not imported: that module imports this one)
NAME_MAX_CHARS = 200


def window_holds(
    valid_from: datetime, valid_to: datetime | None, at: datetime, *, start_known: bool = True
) -> bool:
    """Whether a relation's validity window holds at `at` (the rule `selectors.current_at` writes
    as a filter): from `valid_from` included (or from any time, when its start is not known) to
    `valid_to` excluded."""
    return (valid_from <= at or not start_known) and (valid_to is None or valid_to > at)


class Entity(models.Model):
    """A person, organisation, place, pet or product in one namespace. `aliases` are the
    lower-cased names and kinship words it was mentioned by (derived from its mentions, so an
    erased memory's words leave with it); `is_self` marks the namespace's own user."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("memory_core.Namespace", on_delete=models.CASCADE, related_name="entities")
    kind = models.CharField(max_length=14, choices=EntityKind.choices)
    name = models.CharField(max_length=NAME_MAX_CHARS)
    aliases = ArrayField(models.CharField(max_length=NAME_MAX_CHARS), default=list, blank=True)
    is_self = models.BooleanField(default=False)
    # False while it is known only by a kinship word ("my sister"): the first name given names it.
    named = models.BooleanField(default=True)
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "entities"
        indexes = [
            models.Index(fields=["namespace", "kind"], name="entity_ns_kind"),
            GinIndex(fields=["aliases"], name="entity_aliases_gin"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=EntityKind.values), name="entity_kind_valid"),
            models.CheckConstraint(condition=~Q(name__regex=r"^\s*$"), name="entity_name_not_blank"),
            models.UniqueConstraint(fields=["namespace"], condition=Q(is_self=True), name="entity_one_self"),
            models.CheckConstraint(
                condition=Q(embedding__isnull=True) | ~Q(embedding_model=""),
                name="entity_embedding_has_model",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class EntityMention(models.Model):
    """An entity named in a memory entry, by `surface` (the name or kinship word used)."""

    namespace = models.ForeignKey("memory_core.Namespace", on_delete=models.CASCADE, related_name="+")
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="mentions")
    entry = models.ForeignKey(
        "memory_core.MemoryEntry", on_delete=models.CASCADE, related_name="entity_mentions"
    )
    surface = models.CharField(max_length=NAME_MAX_CHARS)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["entity"], name="mention_entity"),
            models.Index(fields=["entry"], name="mention_entry"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["entity", "entry", "surface"], name="mention_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.surface} in {self.entry_id}"


class Relation(models.Model):
    """subject —predicate→ object (an entity) or value (text), valid over [valid_from, valid_to).

    A newer relation of a single-valued predicate closes the window of the current one and marks
    it superseded (`superseded_by`), as statements are superseded."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    namespace = models.ForeignKey("memory_core.Namespace", on_delete=models.CASCADE, related_name="relations")
    subject = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="relations_out")
    predicate = models.CharField(max_length=16, choices=Predicate.choices)
    # The words used ("sister", "husband", "姐姐", "works as"): free text beside the predicate.
    label = models.CharField(max_length=80, blank=True, default="")
    object = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.CASCADE, related_name="relations_in"
    )
    value = models.CharField(max_length=NAME_MAX_CHARS, blank=True, default="")
    status = models.CharField(max_length=12, choices=RelationStatus.choices, default=RelationStatus.ACTIVE)
    valid_from = models.DateTimeField(default=timezone.now)
    valid_to = models.DateTimeField(null=True, blank=True)
    # False: read from a statement whose start is not known (`MemoryEntry.start_known`) and
    # superseding nothing: it holds before `valid_from` too.
    start_known = models.BooleanField(default=True, db_default=True)
    recorded_at = models.DateTimeField(default=timezone.now)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replaced"
    )
    confidence = models.FloatField(default=1.0)
    extractor = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["namespace", "subject", "predicate"], name="relation_ns_subject_pred"),
            models.Index(fields=["object"], name="relation_object"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(predicate__in=Predicate.values), name="relation_predicate_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=RelationStatus.values), name="relation_status_valid"
            ),
            models.CheckConstraint(
                condition=(Q(object__isnull=False) & Q(value="")) | (Q(object__isnull=True) & ~Q(value="")),
                name="relation_object_xor_value",
            ),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True) | Q(valid_from__lte=F("valid_to")),
                name="relation_valid_window_ordered",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0, confidence__lte=1), name="relation_confidence_0_1"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.subject_id} {self.predicate} {self.object_id or self.value}"

    def holds_at(self, at: datetime) -> bool:
        return window_holds(self.valid_from, self.valid_to, at)


class RelationSupport(models.Model):
    """A memory entry a relation rests on, and the messages that entry came from."""

    namespace = models.ForeignKey("memory_core.Namespace", on_delete=models.CASCADE, related_name="+")
    relation = models.ForeignKey(Relation, on_delete=models.CASCADE, related_name="support")
    entry = models.ForeignKey(
        "memory_core.MemoryEntry", on_delete=models.CASCADE, related_name="relation_support"
    )
    source_conversation = models.CharField(max_length=64, blank=True, default="")
    source_message_ids = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["entry"], name="relation_support_entry")]
        constraints = [models.UniqueConstraint(fields=["relation", "entry"], name="relation_support_unique")]

    def __str__(self) -> str:
        return f"{self.relation_id} rests on {self.entry_id}"


class RelationEnding(models.Model):
    """A statement that ended a relation ("I divorced Marco"), and when it said it ended: the
    relation's `valid_to` is the earliest of its endings. Withdrawn with its statement (`entry`
    set to null when the statement is erased, corrected or its reading withdrawn), after which
    `entities.erasure.endings_withdrawn` recomputes the window or reopens the relation, so an
    erased ending tells nothing any more. Timestamps and ids only, no words."""

    namespace = models.ForeignKey("memory_core.Namespace", on_delete=models.CASCADE, related_name="+")
    relation = models.ForeignKey(Relation, on_delete=models.CASCADE, related_name="endings")
    entry = models.ForeignKey(
        "memory_core.MemoryEntry",
        null=True,
        on_delete=models.SET_NULL,
        related_name="relation_endings",
    )
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["entry"], name="relation_ending_entry")]
        constraints = [models.UniqueConstraint(fields=["relation", "entry"], name="relation_ending_unique")]

    def __str__(self) -> str:
        return f"{self.relation_id} ended by {self.entry_id} at {self.at}"


class GraphChange(models.Model):
    """A row of a namespace's graph (an entity, relation, mention or relation support) that a
    statement inserted, updated or deleted, at the `version` that statement gave the namespace.
    Written only by the database's triggers (migrations 0022 and 0034), so every path is caught;
    read by recall's copies of the graphs (`graph_cache`) to apply what changed since the version
    they hold instead of reading the whole graph again. Ids only, nothing a user said; deleted a
    day after (`graph_cache.prune_changes`), long after any copy that could need them is reloaded.
    No foreign key: a namespace being deleted still logs the deletion of its rows."""

    class Kind(models.IntegerChoices):
        ENTITY = 1
        RELATION = 2
        MENTION = 3
        SUPPORT = 4

    namespace_id = models.BigIntegerField()
    version = models.BigIntegerField()
    kind = models.SmallIntegerField(choices=Kind.choices)
    # The changed row's id: entities' and relations' are UUIDs, mentions' and supports' numbers.
    row_uuid = models.UUIDField(null=True)
    row_number = models.BigIntegerField(null=True)
    at = models.DateTimeField(db_default=Now())

    class Meta:
        indexes = [
            models.Index(fields=["namespace_id", "version"], name="graph_change_since"),
            models.Index(fields=["at"], name="graph_change_at"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.row_uuid or self.row_number} at {self.version}"
