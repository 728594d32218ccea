"""The expiry passes: closed validity windows, explicit deadlines, and the per-type TTL.

- `expire_ended_windows`: the validity window closed (`valid_to <= now`) → expired.
- `expire_ttl`: the explicit deadline passed (`expires_at <= now`: a date someone set, honoured by
  the calendar and even for pinned entries), or the type's TTL (`MEMORY_TTL_DAYS`) ran out on the
  user's clock: that many active days (`forgetting.clock`) since the later of `valid_from` and
  `recorded_at` (an event learned late is still kept a full TTL). A user away for months finds
  their recent events still there. Pinned entries (safety facts) never expire by the type TTL.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.db.models.expressions import RawSQL
from django.db.models.functions import Greatest

from memory_core.forgetting import config
from memory_core.forgetting.clock import active_days_since_sql, clock_refresh, entry_column, today
from memory_core.forgetting.report import EXPIRE_ENDED_WINDOWS, EXPIRE_TTL, PassReport
from memory_core.forgetting.status import active, status_pass
from memory_core.models import EventAction, MemoryEntry, MemoryStatus


def expire_ended_windows(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Active entries whose validity window has closed (`valid_to <= now`) become expired."""
    now = config.instant(now)

    def explain(entry: MemoryEntry) -> tuple[str, float | None, dict[str, Any]]:
        assert entry.valid_to is not None
        return (
            f"validity window ended {entry.valid_to.isoformat()}",
            None,
            {"valid_to": entry.valid_to.isoformat()},
        )

    return status_pass(
        name=EXPIRE_ENDED_WINDOWS,
        candidates=active().filter(valid_to__lte=now),
        order_by=("valid_to", "pk"),
        new_status=MemoryStatus.EXPIRED,
        action=EventAction.EXPIRED,
        explain=explain,
        now=now,
        dry_run=dry_run,
        max_changes=max_changes,
        exclude_ids=exclude_ids,
    )


def _ttl_age_sql(now: datetime) -> RawSQL:
    start = f"greatest({entry_column('valid_from')}, {entry_column('recorded_at')})"
    return RawSQL(active_days_since_sql(start), (today(now),))  # noqa: S611


def expire_ttl(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Active entries past their `expires_at`, or past their type's TTL in active days (never pinned)."""
    now = config.instant(now)
    clock_refresh()
    ttls = {type_: days for type_, days in config.ttl_days().items() if days is not None}
    due = Q(expires_at__lte=now)
    for type_, days in ttls.items():
        due |= Q(type=type_, pinned=False, ttl_age__gte=float(days))
    candidates = (
        active()
        .annotate(ttl_start=Greatest("valid_from", "recorded_at"), ttl_age=_ttl_age_sql(now))
        .filter(due)
    )

    def explain(entry: MemoryEntry) -> tuple[str, float | None, dict[str, Any]]:
        if entry.expires_at is not None and entry.expires_at <= now:
            return (
                f"expiry date {entry.expires_at.isoformat()} passed",
                None,
                {"rule": "expires_at", "expires_at": entry.expires_at.isoformat()},
            )
        days = ttls[entry.type]
        start = entry.ttl_start  # type: ignore[attr-defined]
        age = entry.ttl_age  # type: ignore[attr-defined]
        return (
            f"{entry.type} entries are kept {days:g} days of use; this one since {start.isoformat()}, "
            f"{age} active days ago",
            None,
            {"rule": "ttl", "ttl_days": days},
        )

    return status_pass(
        name=EXPIRE_TTL,
        candidates=candidates,
        order_by=("ttl_start", "pk"),
        new_status=MemoryStatus.EXPIRED,
        action=EventAction.EXPIRED,
        explain=explain,
        now=now,
        dry_run=dry_run,
        max_changes=max_changes,
        exclude_ids=exclude_ids,
    )
