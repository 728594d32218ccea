"""A private name (a leading underscore) stays inside its package: no module imports
`from memory_core.X import _name` from another package. import-linter cannot see names, so the
suite reads every import with `ast`. The floors they would have reached into (the reading floor's
word lists, dates, normalisers and slot keys) export public names instead."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("memory_core", "chat", "privacy", "api", "config")


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _home(module: str) -> str:
    """The package a module belongs to: `memory_core.extraction.rules.facts` ->
    `memory_core.extraction`; a top-level module belongs to its root (`memory_core.pipeline` ->
    `memory_core`), so the engine's top-level modules may share private helpers."""
    parts = module.split(".")
    if len(parts) > 1 and (ROOT / parts[0] / parts[1]).is_dir():
        return ".".join(parts[:2])
    return parts[0]


def _private_imports() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            importer = _module(path)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                    continue
                if node.module.split(".")[0] not in PACKAGES or _home(node.module) == _home(importer):
                    continue
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.module}.{alias.name}")
    return found


def test_no_module_imports_another_packages_private_names():
    assert _private_imports() == []


def test_packages_are_told_apart():
    assert _home("memory_core.extraction.rules.facts") == "memory_core.extraction"
    assert _home("memory_core.reading.words") == "memory_core.reading"
    assert _home("memory_core.pipeline") == _home("memory_core.lifecycle") == "memory_core"
    assert _home("memory_core.entities.rules") != _home("memory_core.reading.words")
