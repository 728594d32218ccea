"""`manage.py embedding_export [--force] [--check]`: write the local model's ONNX file (run by
scripts/bootstrap).

Offline and deterministic: exported from the packaged weights, checked against torch before it is
kept, its SHA-256 kept beside it. A file that is missing or fails its checksum is exported again.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory_core.onnx_embedding import check, export, onnx_path, problem


class Command(BaseCommand):
    help = "Export the local embedding model to ONNX (EMBEDDING_ONNX_DIR), checked against torch."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="export again even if the file is sound")
        parser.add_argument("--check", action="store_true", help="also compare the file with torch")

    def handle(self, *args: Any, **options: Any) -> None:
        path = onnx_path()
        reason = None if options["force"] else problem(path)
        if options["force"] or reason is not None:
            if reason is not None:
                self.stdout.write(f"{path} {reason}; exporting it from the packaged weights.")
            export(path)
            self.stdout.write(f"Wrote {path}.")
        else:
            self.stdout.write(f"{path} matches its checksum (--force exports again).")
        if options["check"]:
            self.stdout.write(f"Lowest cosine to torch: {check(path):.6f}.")
