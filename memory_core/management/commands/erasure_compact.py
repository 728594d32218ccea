"""`manage.py erasure_compact`: run the erasure disk pass now (see `memory_core.compaction`).

Without options, the pass the debounced job runs (small tables rewritten, big ones vacuumed);
with `--rewrite`, the nightly one (every table rewritten). Prints what it did, never any content.
For big databases run `--rewrite` from cron in a quiet hour: it has no task timeout.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory_core.compaction import compaction_run


class Command(BaseCommand):
    help = "Vacuum and rewrite the tables so that erased rows leave no bytes in the database files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--rewrite", action="store_true", help="Rewrite every table whatever its size (the nightly pass)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        report = compaction_run(rewrite_all=options["rewrite"])
        self.stdout.write(
            f"Rewritten: {len(report.rewritten)} table(s); vacuumed only: {len(report.vacuumed)}."
        )
        if report.vacuumed:
            self.stdout.write(f"  vacuumed only (bigger than the limit): {', '.join(report.vacuumed)}")
        for table, why in report.skipped.items():
            self.stdout.write(self.style.WARNING(f"  skipped {table}: {why}"))
        if report.statistics_cleared:
            self.stdout.write(f"Statistics cleared (empty tables): {', '.join(report.statistics_cleared)}")
        for note in report.notes:
            self.stdout.write(self.style.WARNING(note))
        self.stdout.write(f"WAL {'retired (switch + checkpoint)' if report.wal_retired else 'not retired'}.")
        summary = (
            f"Receipts: {report.receipts_vacuumed} vacuumed, {report.receipts_rewritten} rewritten "
            f"({report.seconds:.1f} s)."
        )
        self.stdout.write(self.style.SUCCESS(summary) if report.complete else summary)
