"""A function-level import is a cost or a circle hidden from the module's header: each one left in
the application packages says why it is there, with a `# lazy: <reason>` comment on its line or on
the comment lines just above its block (a heavy library, a registry not ready yet, a circle)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("memory_core", "chat", "privacy", "api", "config")


def _function_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [sub for sub in ast.walk(node) if isinstance(sub, ast.Import | ast.ImportFrom)]
    return sorted(set(found), key=lambda node: node.lineno)


def _has_reason(lines: list[str], node: ast.Import | ast.ImportFrom) -> bool:
    """`# lazy:` on the import's own lines, or above it across the imports and comments of its block."""
    if any("# lazy:" in line for line in lines[node.lineno - 1 : node.end_lineno]):
        return True
    index = node.lineno - 2
    while index >= 0:
        line = lines[index].strip()
        if not line.startswith(("#", "import ", "from ")):
            return False
        if "# lazy:" in line:
            return True
        index -= 1
    return False


def _unexplained(source: str) -> list[int]:
    lines = source.splitlines()
    return [node.lineno for node in _function_imports(ast.parse(source)) if not _has_reason(lines, node)]


def test_every_function_level_import_says_why_it_is_lazy():
    unexplained = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.parts
        for line in _unexplained(path.read_text(encoding="utf-8"))
    ]
    assert unexplained == [], "move these imports to the module's header, or say `# lazy: <why>`"


def test_it_tells_an_explained_import_from_one_without_a_reason():
    source = """
def heavy():
    # lazy: seconds of start-up, for one command
    import torch
    from transformers import AutoModel

    return torch, AutoModel


def cheap():
    from django.db.models import Count  # lazy: a circle with the models

    return Count


def forgotten():
    value = 1
    import json

    return json.dumps(value)
"""
    assert _unexplained(source) == [18]
