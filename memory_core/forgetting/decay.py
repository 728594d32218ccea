"""The archive pass ("decay"): what has faded on the user's clock, and what a full namespace can spare.

Retention of an entry (its value; `decay_score`, computed in SQL by `retention_sql`):

    age       = active days since last use (`forgetting.clock`)
    half_life = FORGET_DECAY_HALF_LIFE_DAYS * (1 + ln(1 + access_count)) * (1 + ln(evidence_count))
                * (0.5 + 0.5 * confidence)
    retention = (0.2 + 0.8 * importance) * 0.5 ** (age / half_life)

Importance sets the ceiling, use (recalls) and confirmations (evidence: said again, merged)
stretch the half-life, and only days the user was active count as time passing.

An active entry is archived when either
- its retention fell below FORGET_DECAY_THRESHOLD ("decayed"), or
- its namespace holds more active entries than its budget (`Namespace.memory_capacity`, else
  FORGET_CAPACITY; 0 = none) and it is among the lowest-retention entries that bring the count back
  to the budget ("capacity").
Never pinned, procedural or protected-category entries (FORGET_PROTECTED_CATEGORIES: safety,
profile/identity, relationship/family, preference), never one the user restored from the archive,
and never in a paused namespace. Protected entries still count towards the budget. One pass
archives at most FORGET_MAX_SHARE_PER_PASS of a namespace's active entries (at least one), so a
mistake costs a slice, never the whole memory, and shows in the activity log before the next pass.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL

from memory_core.forgetting import config
from memory_core.forgetting.clock import (
    active_days_since_sql,
    clock_refresh,
    entry_column,
    last_use_sql,
    today,
)
from memory_core.forgetting.report import DECAY, PassReport
from memory_core.forgetting.status import active, status_pass
from memory_core.models import EventAction, MemoryEntry, MemoryEvent, MemoryStatus, MemoryType, Namespace

# Share of retention that does not depend on importance: even an entry of importance 0 fades
# over time instead of being archived the moment it is written.
IMPORTANCE_FLOOR = 0.2
# 0.5 ** 1000 is about 1e-301; beyond that PostgreSQL's power() raises an underflow error.
MAX_HALF_LIVES = 1000.0

DECAYED = "decayed"
CAPACITY = "capacity"


def half_life_days(entry: MemoryEntry) -> float:
    """Use, confirmations and confidence stretch the half-life: a memory used often fades slowly."""
    return (
        config.half_life_base_days()
        * (1 + math.log1p(entry.access_count))
        * (1 + math.log(max(1, entry.evidence_count)))
        * (0.5 + 0.5 * entry.confidence)
    )


def age_sql(now: datetime) -> RawSQL:
    """Active days since the entry's last use, as SQL."""
    return RawSQL(active_days_since_sql(last_use_sql()), (today(now),))  # noqa: S611


def retention_sql(now: datetime) -> RawSQL:
    """`decay_score` as SQL, so the pass can filter and order by it in the database."""

    def col(name: str) -> str:
        return entry_column(name)

    half_life = (
        f"(%s * (1 + ln(1 + {col('access_count')})) * (1 + ln(greatest(1, {col('evidence_count')})))"
        f" * (0.5 + 0.5 * {col('confidence')}))"
    )
    age = active_days_since_sql(last_use_sql())
    weight = f"(%s + (1 - %s) * {col('importance')})"
    sql = f"{weight} * power(0.5, least(%s, {age}::double precision / {half_life}))"
    params = (IMPORTANCE_FLOOR, IMPORTANCE_FLOOR, MAX_HALF_LIVES, today(now), config.half_life_base_days())
    # Only the table's own quoted column names are interpolated; every value is a parameter.
    return RawSQL(sql, params)  # noqa: S611


def decay_score(entry: MemoryEntry, now: datetime | None = None) -> float:
    """The entry's retention in [0, 1] at `now`, read with the pass's own SQL (one definition)."""
    now = config.instant(now)
    value = (
        MemoryEntry.objects.filter(pk=entry.pk)
        .annotate(retention=retention_sql(now))
        .values_list("retention", flat=True)
        .first()
    )
    if value is None:
        raise MemoryEntry.DoesNotExist(f"No entry {entry.pk}.")
    return float(value)


def archivable() -> QuerySet[MemoryEntry]:
    """Active entries the job may archive at all (see the module docstring)."""
    restored_by_user = MemoryEvent.objects.filter(
        entry_id=OuterRef("pk"), action=EventAction.RESTORED, data__from=MemoryStatus.ARCHIVED
    )
    return (
        active()
        .filter(pinned=False, namespace__memory_paused=False)
        .exclude(type=MemoryType.PROCEDURAL)
        .exclude(category__in=config.protected_categories())
        .exclude(Exists(restored_by_user))
    )


def _budgets() -> dict[int, tuple[int, int]]:
    """Namespaces over their budget: id -> (active entries, budget)."""
    default = config.capacity_default()
    over_default = Q(memory_capacity__isnull=True, active_count__gt=default) if default else Q(pk__in=[])
    over_own = Q(memory_capacity__isnull=False, memory_capacity__gt=0) & Q(
        active_count__gt=F("memory_capacity")
    )
    rows = (
        Namespace.objects.filter(memory_paused=False)
        .annotate(active_count=Count("entries", filter=Q(entries__status=MemoryStatus.ACTIVE)))
        .filter(over_default | over_own)
        .values_list("pk", "active_count", "memory_capacity")
    )
    return {pk: (count, own if own else int(default or 0)) for pk, count, own in rows}


def plan_archive(
    *, now: datetime, threshold: float, exclude_ids: Collection[uuid.UUID] = ()
) -> dict[uuid.UUID, str]:
    """Which entries to archive, each with its rule (DECAYED or CAPACITY), within the share cap."""
    candidates = archivable().annotate(retention=retention_sql(now))
    if exclude_ids:
        candidates = candidates.exclude(pk__in=list(exclude_ids))
    budgets = _budgets()
    decayed_namespaces = set(
        candidates.filter(retention__lt=threshold).values_list("namespace_id", flat=True).distinct()
    )
    share = config.max_share_per_pass()
    counts = dict(
        Namespace.objects.filter(pk__in=decayed_namespaces - set(budgets))
        .annotate(active_count=Count("entries", filter=Q(entries__status=MemoryStatus.ACTIVE)))
        .values_list("pk", "active_count")
    )
    counts.update({pk: count for pk, (count, _) in budgets.items()})
    plan: dict[uuid.UUID, str] = {}
    for namespace_id in sorted(decayed_namespaces | set(budgets)):
        size = counts.get(namespace_id, 0)
        allowance = max(1, math.floor(share * size))
        excess = size - budgets[namespace_id][1] if namespace_id in budgets else 0
        weakest = candidates.filter(namespace_id=namespace_id).order_by("retention", "pk")[:allowance]
        for position, (pk, retention) in enumerate(weakest.values_list("pk", "retention")):
            if retention < threshold:
                plan[pk] = DECAYED
            elif position < excess:
                plan[pk] = CAPACITY
            else:
                break
    return plan


def decay(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Archive faded entries and, in namespaces over budget, the least valuable; weakest first."""
    now = config.instant(now)
    clock_refresh()
    threshold = config.decay_threshold()
    plan = plan_archive(now=now, threshold=threshold, exclude_ids=exclude_ids)
    budgets = _budgets() if CAPACITY in plan.values() else {}
    candidates = (
        archivable()
        .filter(pk__in=list(plan))
        .annotate(retention=retention_sql(now), active_days=age_sql(now))
    )

    def explain(entry: MemoryEntry) -> tuple[str, float | None, dict[str, Any]]:
        retention: float = entry.retention  # type: ignore[attr-defined]
        days: int = entry.active_days  # type: ignore[attr-defined]
        detail = (
            f"importance {entry.importance:.2f}, {days} active days since last use, "
            f"used {entry.access_count} times, {entry.evidence_count} mention(s), "
            f"half-life {half_life_days(entry):.0f} active days"
        )
        data: dict[str, Any] = {"retention": round(retention, 6), "active_days": days}
        if plan.get(entry.pk) == CAPACITY:
            count, budget = budgets.get(entry.namespace_id, (0, 0))
            reason = (
                f"lowest value while over capacity ({count} active entries, budget {budget}): "
                f"retention {retention:.3f} ({detail})"
            )
            return reason, retention, {**data, "rule": CAPACITY, "budget": budget}
        reason = f"retention {retention:.3f} < {threshold:g} ({detail})"
        return reason, retention, {**data, "rule": DECAYED, "threshold": threshold}

    return status_pass(
        name=DECAY,
        candidates=candidates,
        order_by=("retention", "pk"),
        new_status=MemoryStatus.ARCHIVED,
        action=EventAction.ARCHIVED,
        explain=explain,
        now=now,
        dry_run=dry_run,
        max_changes=max_changes,
        exclude_ids=exclude_ids,
    )
