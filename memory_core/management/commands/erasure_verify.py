"""`manage.py erasure_verify TEXT`: where does TEXT still live? Every column of every table, the
planner statistics, django-q's queue, and the server's files (table files, WAL, server log).

Exit status 1 when it is found anywhere, so a script can check an erasure. The same scan the
erasure tests use (`memory_core.scan`).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory_core.scan import erasure_scan


class Command(BaseCommand):
    help = "Report every place in the database and its files where TEXT is found (exit 1 if found)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("text", help="The text to look for (any case), e.g. a word of an erased memory.")
        parser.add_argument(
            "--no-files", action="store_true", help="Skip the server's files (table files, WAL, log)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        text: str = options["text"]
        if not text.strip():
            raise CommandError("Give a non-empty text to look for.")
        report = erasure_scan(text, files=not options["no_files"])
        if options["no_files"]:
            self.stdout.write("Server files: not scanned (--no-files).")
        elif not report.data_directory:
            self.stdout.write("Server files: not reachable from here (an external server); not scanned.")
        else:
            self.stdout.write(f"Server files scanned under {report.data_directory}.")
        for line in report.lines():
            self.stdout.write(f"  found in {line}")
        if report.found:
            self.stdout.write(self.style.ERROR(f"Found in {len(report.lines())} place(s)."))
            raise SystemExit(1)
        self.stdout.write(self.style.SUCCESS("Not found anywhere."))
