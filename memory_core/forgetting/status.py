"""Moving entries to another status in capped, locked batches: what the expiry and decay passes share."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from memory_core.forgetting.config import cap as _cap
from memory_core.forgetting.report import Change, PassReport
from memory_core.locks import lock_namespaces
from memory_core.models import ActorKind, MemoryEntry, MemoryStatus
from memory_core.services import event_record

BATCH_SIZE = 100

Explain = Callable[[MemoryEntry], tuple[str, float | None, dict[str, Any]]]


def active() -> QuerySet[MemoryEntry]:
    # Deliberately across all namespaces: a maintenance job, not a user's read.
    return MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)


def status_pass(
    *,
    name: str,
    candidates: QuerySet[MemoryEntry],
    order_by: tuple[str, ...],
    new_status: str,
    action: str,
    explain: Explain,
    now: datetime,
    dry_run: bool,
    max_changes: int | None,
    exclude_ids: Collection[uuid.UUID],
) -> PassReport:
    """Move the first `max_changes` candidates (in `order_by` order) to `new_status`.

    `candidates` must select active entries only; `explain` gives each one's reason, score and
    extra history data.
    """
    cap = _cap(max_changes)
    report = PassReport(name=name, action=action, now=now, dry_run=dry_run, max_changes=cap)
    if exclude_ids:
        candidates = candidates.exclude(pk__in=list(exclude_ids))
    # The embedding is not needed here; 384 floats a row add up over a batch.
    ordered = candidates.defer("embedding").order_by(*order_by)

    if dry_run:
        for entry in ordered[:cap]:
            reason, score, data = explain(entry)
            report.changes.append(Change(entry.pk, action, reason, score, rule=data.get("rule")))
        return report

    skipped: set[uuid.UUID] = set()
    while report.count < cap:
        size = min(BATCH_SIZE, cap - report.count)
        with transaction.atomic():
            page = ordered.exclude(pk__in=list(skipped)) if skipped else ordered
            # Rows someone is editing right now are skipped, not waited for; the next run gets them.
            batch = list(page.select_for_update(skip_locked=True, of=("self",))[:size])
            if not batch:
                break
            writable = lock_namespaces({entry.namespace_id for entry in batch})
            skipped.update(entry.pk for entry in batch if entry.namespace_id not in writable)
            changing = [entry for entry in batch if entry.namespace_id in writable]
            MemoryEntry.objects.filter(pk__in=[e.pk for e in changing], status=MemoryStatus.ACTIVE).update(
                status=new_status, expired_at=now, updated_at=timezone.now()
            )
            for entry in changing:
                reason, score, data = explain(entry)
                entry.status = new_status
                event_record(
                    entry=entry,
                    action=action,
                    actor_kind=ActorKind.JOB,
                    reason=reason,
                    data={"status": new_status, "pass": name, **data},
                )
                report.changes.append(Change(entry.pk, action, reason, score, rule=data.get("rule")))
        if len(batch) < size:
            break
    return report
