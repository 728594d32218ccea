"""Comparable forms of statements. Pure functions over text."""

from __future__ import annotations

import re


def strip_nul(text: str) -> str:
    """Text without NUL characters, which PostgreSQL text columns reject."""
    return text.replace("\x00", "") if text else text


def normalise(text: str) -> str:
    """Comparable form of a statement: case, spacing and final punctuation do not matter."""
    return re.sub(r"\s+", " ", text).strip().rstrip(".!").casefold()


_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|neither|none|nobody|nothing|nowhere|cannot|without)\b|n['\u2019]t\b", re.I
)


def negated(text: str) -> bool:
    """Whether a statement carries a negation ("is not allergic"), which embeddings barely see."""
    return bool(_NEGATION.search(text))
