"""`manage.py embedding_export [--force]`: write the local model's ONNX file (run by scripts/bootstrap).

Offline: exported from the packaged weights, and checked against torch before it is kept.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from memory_core.onnx_embedding import check, export, onnx_path


class Command(BaseCommand):
    help = "Export the local embedding model to ONNX (EMBEDDING_ONNX_DIR), checked against torch."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="export again even if the file exists")
        parser.add_argument("--check", action="store_true", help="compare the existing file with torch")

    def handle(self, *args: Any, **options: Any) -> None:
        path = onnx_path()
        if path.exists() and not options["force"]:
            if options["check"]:
                cosine = check(path)
                self.stdout.write(f"{path} is up to date (lowest cosine to torch {cosine:.6f}).")
            else:
                self.stdout.write(f"{path} exists (--check compares it with torch, --force exports again).")
            return
        export(path)
        self.stdout.write(f"Wrote {path}.")
