"""Every variable the settings read is listed in `.env.example` and explained in
docs/configuration.md: a setting added without its documentation fails here."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READERS = {"env_str", "env_bool", "env_int", "env_float", "env_list", "env_choice"}


def _variables_read() -> set[str]:
    """Names passed to the typed env helpers anywhere in the project's own packages."""
    names: set[str] = set()
    for package in ("config", "memory_core", "chat", "privacy", "api"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in READERS
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    names.add(str(node.args[0].value))
    return names


def _example_variables() -> set[str]:
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    return {line.split("=", 1)[0].strip() for line in lines if "=" in line and not line.startswith("#")}


def test_it_finds_the_variables_the_settings_read():
    assert {"DEBUG", "SECRET_KEY", "DATABASE_URL", "OPENAI_API_KEY"} <= _variables_read()


def test_it_lists_every_variable_in_the_env_example():
    assert sorted(_variables_read() - _example_variables()) == []


def test_it_explains_every_variable_in_the_configuration_docs():
    docs = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert sorted(name for name in _variables_read() if f"`{name}`" not in docs) == []
