"""Reads of memories. Every function starts from the isolation methods of the querysets."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from pgvector.django import CosineDistance

from memory_core.errors import NotFound
from memory_core.models import MemoryEntry, MemoryEvent, Namespace


def _parse_uuid(value: Any) -> uuid.UUID | None:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def memory_access(*, actor: Any, memory_id: Any) -> MemoryEntry:
    """The entry with this id if `actor` may see it; NotFound alike for missing and forbidden."""
    pk = _parse_uuid(memory_id)
    entry = (
        MemoryEntry.objects.visible_to(actor).select_related("namespace").filter(pk=pk).first()
        if pk is not None
        else None
    )
    if entry is None:
        raise NotFound("Memory not found.")
    return entry


def namespace_access(*, actor: Any, path: str) -> Namespace:
    """A namespace the actor owns, by path; NotFound alike for missing and someone else's."""
    namespace = Namespace.objects.owned_by(actor).filter(path=path).first()
    if namespace is None:
        raise NotFound("Namespace not found.")
    return namespace


def memory_list(
    *,
    actor: Any,
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


def memory_history(*, actor: Any, memory_id: Any) -> QuerySet[MemoryEvent]:
    entry = memory_access(actor=actor, memory_id=memory_id)
    return MemoryEvent.objects.visible_to(actor).filter(entry_ref=entry.pk).order_by("created_at", "id")


def memory_nearest(
    *, actor: Any, embedding: list[float], limit: int = 10, at: datetime | None = None
) -> list[tuple[MemoryEntry, float]]:
    """The entries visible to `actor` nearest to `embedding` by cosine distance (exact scan)."""
    qs = (
        MemoryEntry.objects.visible_to(actor)
        .current(at=at)
        .exclude(embedding__isnull=True)
        .annotate(distance=CosineDistance("embedding", embedding))
        .order_by("distance")[:limit]
    )
    return [(entry, float(entry.distance)) for entry in qs]
