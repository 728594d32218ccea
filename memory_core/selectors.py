"""Reads of memories. Every function starts from the isolation methods of the querysets."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, F, Q, QuerySet
from pgvector.django import CosineDistance

from memory_core.actors import Actor
from memory_core.errors import NotFound
from memory_core.models import (
    ErasureReceipt,
    ExtractionJob,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    Namespace,
    RecallLog,
)


def parse_uuid(value: Any) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def memory_access(*, actor: Actor, memory_id: Any) -> MemoryEntry:
    """The entry with this id if `actor` may see it; NotFound alike for missing and forbidden."""
    pk = parse_uuid(memory_id)
    entry = (
        MemoryEntry.objects.visible_to(actor).select_related("namespace").filter(pk=pk).first()
        if pk is not None
        else None
    )
    if entry is None:
        raise NotFound("Memory not found.")
    return entry


def memory_list(
    *,
    actor: Actor,
    types: list[str] | None = None,
    statuses: list[str] | None = None,
    category: str | None = None,
    at: datetime | None = None,
    current_only: bool = False,
) -> QuerySet[MemoryEntry]:
    qs = MemoryEntry.objects.visible_to(actor)
    if current_only or at is not None:
        qs = qs.current(at=at)
    if types:
        qs = qs.filter(type__in=types)
    if statuses:
        qs = qs.filter(status__in=statuses)
    if category:
        qs = qs.filter(category=category)
    return qs.select_related("namespace").order_by("-recorded_at", "-id")


def memory_history(*, actor: Actor, memory_id: Any) -> QuerySet[MemoryEvent]:
    entry = memory_access(actor=actor, memory_id=memory_id)
    return MemoryEvent.objects.visible_to(actor).filter(entry_ref=entry.pk).order_by("created_at", "id")


def memory_nearest(
    *, actor: Actor, embedding: list[float], limit: int = 10, at: datetime | None = None
) -> list[tuple[MemoryEntry, float]]:
    """The entries visible to `actor` nearest to `embedding` by cosine distance (exact scan).

    Ordered by `distance + 0`, which the HNSW index cannot serve: an index scan would take the
    index's nearest tuples first (dead ones and other people's included) and filter afterwards,
    so a small namespace could get fewer than `limit`, or none."""
    qs = (
        MemoryEntry.objects.visible_to(actor)
        .current(at=at)
        .exclude(embedding__isnull=True)
        .annotate(distance=CosineDistance("embedding", embedding))
        .order_by(F("distance") + 0)[:limit]
    )
    return [(entry, float(entry.distance)) for entry in qs]


def recalled_entries_for_turns(
    *, actor: Actor, turn_refs: list[str]
) -> dict[str, list[tuple[MemoryEntry, RecallLog]]]:
    """What each turn recalled, by turn reference, best rank first; only entries `actor` may see.

    A turn recalled twice (a retried reply) keeps only its latest recall: that is what the
    saved reply was written with. Erased entries are gone with their logs.
    """
    refs = [ref for ref in turn_refs if ref]
    if not refs:
        return {}
    logs = (
        RecallLog.objects.filter(turn_ref__in=refs, entry__in=MemoryEntry.objects.visible_to(actor))
        .select_related("entry")
        .defer("entry__embedding", "entry__search_vector")
        .order_by("turn_ref", "-created_at", "rank")
    )
    found: dict[str, list[tuple[MemoryEntry, RecallLog]]] = {}
    latest: dict[str, datetime] = {}
    for log in logs:
        # One recall writes all its rows with the same timestamp; older recalls come later here.
        if latest.setdefault(log.turn_ref, log.created_at) != log.created_at:
            continue
        found.setdefault(log.turn_ref, []).append((log.entry, log))
    return found


def extraction_jobs_for_conversation(*, actor: Actor, source_conversation: str) -> list[ExtractionJob]:
    """The extraction jobs of one conversation in `actor`'s own namespaces, oldest first."""
    return list(
        ExtractionJob.objects.filter(
            namespace__in=Namespace.objects.owned_by(actor), source_conversation=str(source_conversation)
        )
        .defer("messages")  # the transcript payload is not needed to report on a job
        .order_by("created_at", "id")
    )


def memory_entries_by_ids(*, actor: Actor, ids: list[Any]) -> dict[str, MemoryEntry]:
    """The entries among `ids` that `actor` may see, by id as a string, in the order of `ids` (an
    event lists a held rule before the condition it stored with it, as the job stored them; the
    database returns them in any order); unknown ids are left out."""
    pks = [pk for pk in (parse_uuid(value) for value in ids) if pk is not None]
    if not pks:
        return {}
    entries = MemoryEntry.objects.visible_to(actor).filter(pk__in=pks).defer("embedding", "search_vector")
    found = {entry.pk: entry for entry in entries}
    return {str(pk): found[pk] for pk in dict.fromkeys(pks) if pk in found}


def memory_versions(*, actor: Actor, memory_id: Any) -> list[MemoryEntry]:
    """The entry and every older version of it in its namespace: what it superseded (directly, or
    by a correction, a later-arriving update or a consolidation merge), transitively. Newer
    versions are not included: erasing "lived in Beijing" must not erase "lives in Shanghai"."""
    entry = memory_access(actor=actor, memory_id=memory_id)
    found: dict[uuid.UUID, MemoryEntry] = {entry.pk: entry}
    frontier = [entry]
    while frontier:
        older = (
            MemoryEntry.objects.filter(namespace_id=entry.namespace_id)
            .filter(
                Q(pk__in=[e.supersedes_id for e in frontier if e.supersedes_id])
                | Q(superseded_by_id__in=[e.pk for e in frontier])
            )
            .exclude(pk__in=list(found))
        )
        frontier = list(older)
        found.update((e.pk, e) for e in frontier)
    return list(found.values())


@dataclass(frozen=True)
class MemorySources:
    """Where the versions of an entry came from and where they were used (opaque references)."""

    conversations: frozenset[str]
    messages: frozenset[tuple[str, str]]  # (conversation, message id)
    turn_refs: frozenset[str]  # RecallLog.turn_ref, e.g. "chat:<message id>"


def memory_sources(*, actor: Actor, memory_id: Any) -> MemorySources:
    versions = memory_versions(actor=actor, memory_id=memory_id)
    ids = [e.pk for e in versions]
    rows = [(e.source_conversation, e.source_message_ids) for e in versions]
    evidence = MemoryEvidence.objects.filter(entry_id__in=ids)
    rows += list(evidence.values_list("source_conversation", "source_message_ids"))
    turn_refs = RecallLog.objects.filter(entry_id__in=ids).values_list("turn_ref", flat=True).distinct()
    return MemorySources(
        conversations=frozenset(c for c, _ in rows if c),
        messages=frozenset((c, m) for c, mids in rows if c for m in mids),
        turn_refs=frozenset(turn_refs),
    )


# --- Scoped by an explicit namespace list (callers that authorised the namespaces, e.g. a tenant) ---


def memory_access_in(*, namespace_ids: Any, memory_id: Any) -> MemoryEntry:
    """The entry with this id inside `namespace_ids` (ids or a values() subquery); NotFound alike
    for missing and outside."""
    pk = parse_uuid(memory_id)
    entry = (
        MemoryEntry.objects.in_namespaces(namespace_ids).select_related("namespace").filter(pk=pk).first()
        if pk is not None
        else None
    )
    if entry is None:
        raise NotFound("Memory not found.")
    return entry


def memory_counts(*, namespace_ids: Any, current_only: bool = True) -> dict[int, int]:
    """Number of entries per namespace (current ones by default), in one query."""
    qs = MemoryEntry.objects.in_namespaces(namespace_ids)
    if current_only:
        qs = qs.current()
    rows = qs.order_by().values_list("namespace_id").annotate(n=Count("id"))
    return dict(rows)


def recalled_entry_ids(*, actor: Actor, turn_ref: str) -> list[str]:
    """Ids of the entries recalled under `turn_ref` (a chat turn's `recall_ref`), in rank order."""
    if not turn_ref:
        return []
    own = Namespace.objects.owned_by(actor).values("id")
    rows = RecallLog.objects.filter(namespace_id__in=own, turn_ref=turn_ref).order_by("rank")
    return [str(entry_id) for entry_id in rows.values_list("entry_id", flat=True)]


def extraction_job_access(*, namespace_ids: Any, job_id: Any) -> ExtractionJob:
    """An extraction job of one of `namespace_ids`; NotFound alike for missing and outside."""
    try:
        pk = int(str(job_id))
    except ValueError:
        raise NotFound("Extraction job not found.") from None
    in_range = 0 < pk < 2**63  # a bigint column: larger ids cannot exist (and would not bind)
    job = ExtractionJob.objects.filter(namespace_id__in=namespace_ids, pk=pk).first() if in_range else None
    if job is None:
        raise NotFound("Extraction job not found.")
    return job


def erasure_receipts(*, actor: Actor) -> QuerySet[ErasureReceipt]:
    """The receipts of erasures of the actor's data, newest first (content-free)."""
    if actor is None or isinstance(actor, AnonymousUser):
        return ErasureReceipt.objects.none()
    return ErasureReceipt.objects.filter(subject=actor).select_related("requested_by")
