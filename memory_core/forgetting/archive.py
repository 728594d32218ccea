"""The user's side of forgetting: what the job archived (why, when), restoring it, and what recent passes did.

Archived entries are never recalled but stay visible and restorable ("forgotten", not erased).
Restoring counts as the user confirming the entry: its clock starts again, and the job never
archives it on its own again (the user said it matters; they can still hide or erase it).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.db.models.functions import TruncHour

from memory_core.actors import Actor, person
from memory_core.errors import Conflict, PermissionDenied
from memory_core.locks import lock_namespace
from memory_core.models import ActorKind, EventAction, MemoryEntry, MemoryEvent, MemoryStatus, Namespace
from memory_core.selectors import memory_access
from memory_core.services import event_record


@transaction.atomic
def memory_restore(*, actor: Actor, memory_id: Any) -> MemoryEntry:
    """Bring an archived entry back into use (idempotent for an active one); NotFound for others'."""
    entry = memory_access(actor=actor, memory_id=memory_id)
    owner = person(actor)
    if owner is None or entry.namespace.owner_id != owner.pk:
        raise PermissionDenied("Shared procedures are read-only; an operator maintains them.")
    # The namespace first, then the row: the order `memory_add` and the forgetting passes lock in.
    lock_namespace(entry.namespace_id)
    entry = MemoryEntry.objects.select_related("namespace").select_for_update(of=("self",)).get(pk=entry.pk)
    if entry.status == MemoryStatus.ACTIVE:
        return entry
    if entry.status != MemoryStatus.ARCHIVED:
        raise Conflict(f"Only archived memories can be restored (this one is {entry.get_status_display()}).")
    entry.status = MemoryStatus.ACTIVE
    entry.expired_at = None
    entry.save(update_fields=["status", "expired_at", "updated_at"])
    event_record(
        entry=entry,
        action=EventAction.RESTORED,
        actor_kind=ActorKind.USER,
        actor=actor,
        reason="The user restored it from the archive.",
        data={"status": MemoryStatus.ACTIVE, "from": MemoryStatus.ARCHIVED},
    )
    return entry


def archived_entries(*, actor: Actor) -> QuerySet[MemoryEntry]:
    """The actor's archived entries, newest first, each with `archived_reason` (why the job did it)."""
    why = MemoryEvent.objects.filter(entry_id=OuterRef("pk"), action=EventAction.ARCHIVED).order_by(
        "-created_at"
    )
    return (
        MemoryEntry.objects.filter(
            namespace__in=Namespace.objects.owned_by(actor), status=MemoryStatus.ARCHIVED
        )
        .annotate(archived_reason=Subquery(why.values("reason")[:1]))
        .defer("embedding", "search_vector")
        .order_by("-expired_at", "-pk")
    )


@dataclass
class ForgettingRun:
    """What the scheduled passes did to the actor's memories within one hour (the schedule's period)."""

    hour: datetime
    counts: Counter[str] = field(default_factory=Counter)  # "archived (capacity)", "expired", "merged"

    @property
    def summary(self) -> str:
        return ", ".join(f"{label} {count}" for label, count in sorted(self.counts.items()))


def _label(action: str, data: dict[str, Any]) -> str:
    rule = data.get("rule")
    if action == EventAction.ARCHIVED and rule:
        return f"archived ({rule})"
    if action == EventAction.SUPERSEDED and data.get("pass") == "consolidate":
        return "merged"
    return str(action)


def forgetting_runs(*, actor: Actor, limit: int = 5) -> list[ForgettingRun]:
    """The last `limit` hours in which the forgetting job changed something of the actor's, newest first."""
    events = (
        MemoryEvent.objects.filter(
            namespace__in=Namespace.objects.owned_by(actor),
            actor_kind=ActorKind.JOB,
            action__in=[EventAction.ARCHIVED, EventAction.EXPIRED, EventAction.SUPERSEDED],
        )
        .annotate(hour=TruncHour("created_at"))
        .order_by("-created_at")
        .values_list("hour", "action", "data")[:5000]
    )
    runs: dict[datetime, ForgettingRun] = {}
    for hour, action, data in events:
        if hour not in runs:
            if len(runs) >= limit:
                break
            runs[hour] = ForgettingRun(hour=hour)
        runs[hour].counts[_label(action, data or {})] += 1
    return list(runs.values())
