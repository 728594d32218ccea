"""`manage.py forget`: run the forgetting passes now (expire, archive, merge), or preview them.

The same passes the `memory-forgetting` schedule runs. `--dry-run --now 2030-01-01` shows what
would be forgotten by then without changing anything.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from memory_core.entities import graph_cache
from memory_core.forgetting import forget_all
from memory_core.recall import log as recall_log

_TITLES = {
    "expire_ended_windows": "Closed validity windows",
    "expire_ttl": "Time to live",
    "decay": "Decay",
    "consolidate": "Consolidation",
}
_INFINITIVE = {"expired": "expire", "archived": "archive", "merged": "merge"}


def _positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _instant(value: str) -> datetime:
    moment = parse_datetime(value)
    if moment is None:
        day = parse_date(value)
        if day is None:
            raise argparse.ArgumentTypeError("expected an ISO date or date-time, e.g. 2030-01-31T12:00Z")
        moment = datetime(day.year, day.month, day.day, tzinfo=timezone.get_current_timezone())
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


class Command(BaseCommand):
    help = "Expire, archive and merge memories as the scheduled forgetting job does (or preview it)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="Show what would change; change nothing.")
        parser.add_argument(
            "--max-changes",
            type=_positive_int,
            default=None,
            help="Changes per pass at most (default: FORGET_MAX_CHANGES_PER_PASS).",
        )
        parser.add_argument(
            "--now",
            type=_instant,
            default=None,
            help="Run as if it were this ISO date-time (a future one only with --dry-run).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        dry_run: bool = options["dry_run"]
        now: datetime | None = options["now"]
        # Expiring for real as of a future date would forget things that still hold today.
        if now is not None and now > timezone.now() and not dry_run:
            raise CommandError("--now in the future is only allowed with --dry-run.")
        now = now or timezone.now()

        if dry_run:
            self.stdout.write(f"Dry run as of {now.isoformat()}: nothing is changed.")
        reports = forget_all(now, dry_run=dry_run, max_changes=options["max_changes"])

        for report in reports:
            verb = f"would {_INFINITIVE[report.action]}" if dry_run else report.action
            line = f"{_TITLES[report.name]}: {verb} {_entries(report.count)}"
            if report.capped:
                line += f" (the cap of {report.max_changes}; run again for more)"
            self.stdout.write(line + (":" if report.changes else "."))
            for change in report.changes:
                self.stdout.write(f"  {change.entry_id}  {change.reason}")

        total = sum(report.count for report in reports)
        counts = ", ".join(f"{report.action} ({report.name}) {report.count}" for report in reports)
        summary = f"{'Would change' if dry_run else 'Changed'} {_entries(total)}: {counts}."
        self.stdout.write(summary if dry_run else self.style.SUCCESS(summary))
        if not dry_run:
            pruned = recall_log.prune(now)
            days = recall_log.retention_days()
            self.stdout.write(f"Recall log: {pruned} rows older than {days} days deleted.")
            changes = graph_cache.prune_changes(now)
            self.stdout.write(f"Graph changes: {changes} rows older than a day deleted.")
