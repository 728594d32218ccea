"""All passes in order at one instant: what the `memory-forgetting` schedule and `manage.py forget` run."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime

from memory_core.forgetting import config
from memory_core.forgetting.consolidation import consolidate
from memory_core.forgetting.decay import decay
from memory_core.forgetting.expiry import expire_ended_windows, expire_ttl
from memory_core.forgetting.report import PassReport

PASSES: tuple[Callable[..., PassReport], ...] = (expire_ended_windows, expire_ttl, decay, consolidate)


def forget_all(
    now: datetime | None = None, *, dry_run: bool = False, max_changes: int | None = None
) -> list[PassReport]:
    """Run the four passes in order at one instant; `max_changes` caps each pass separately.

    A dry run tells each pass which entries the earlier ones would already have taken, so it
    reports what a real run would do.
    """
    now = config.instant(now)
    reports: list[PassReport] = []
    taken: set[uuid.UUID] = set()
    for run in PASSES:
        report = run(now, dry_run=dry_run, max_changes=max_changes, exclude_ids=taken if dry_run else ())
        taken.update(change.entry_id for change in report.changes)
        reports.append(report)
    return reports
