"""A person's names: the given name of a full name, as the resolver and `people_known` read it."""

from __future__ import annotations

import re

_CJK_NAME = re.compile(r"[\u4e00-\u9fff]+")


def given_name(alias: str) -> str | None:
    """A full name's given name ("tom hargreaves" → "tom"; "林建国" → "建国", a one-character
    surname), or None for other shapes."""
    if _CJK_NAME.fullmatch(alias):
        return alias[1:] if len(alias) == 3 else None
    words = alias.split()
    return words[0] if len(words) == 2 else None
