"""Standing preferences about how to answer (length, format, language, tone): they apply to every
turn, whatever the message is about, so they go into the system prompt within their own small
budget instead of competing in recall (a question about trains never "matches" "short answers").

Which preferences are about answering is decided when they are written
(`memory_core.answer_style`, the `MemoryEntry.answer_style` column).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory_core.answer_style import PREFERENCE_CATEGORY, STYLE_PATTERN
from memory_core.models import MemoryEntry, MemoryStatus, Namespace
from memory_core.recall.prompt import estimate_tokens

STYLE_TOKENS = 120  # the budget of the style block, apart from recall's
STYLE_MAX = 8

__all__ = ["PREFERENCE_CATEGORY", "STYLE_MAX", "STYLE_PATTERN", "STYLE_TOKENS", "current_style", "style_at"]


def _candidates(user: Any) -> Any:
    own = Namespace.objects.owned_by(user).values("id")
    entries = MemoryEntry.objects.filter(namespace_id__in=own, answer_style=True)
    return entries.defer("embedding", "search_vector")


def current_style(user: Any) -> Any:
    """The user's current answer-style preferences, newest first (sliced by the callers)."""
    return _candidates(user).current().filter(status=MemoryStatus.ACTIVE).order_by("-recorded_at")


def style_preferences(*, user: Any, loaded: list[MemoryEntry] | None = None) -> list[MemoryEntry]:
    """The user's current answer-style preferences that fit `STYLE_TOKENS`, newest first.
    `loaded`: the first `STYLE_MAX` of `current_style`, when the caller read them already."""
    picked, used = [], 0
    for entry in loaded if loaded is not None else current_style(user)[:STYLE_MAX]:
        cost = estimate_tokens(entry.content)
        if used + cost > STYLE_TOKENS:
            continue
        picked.append(entry)
        used += cost
    return picked


def style_block(entries: list[MemoryEntry]) -> str:
    if not entries:
        return ""
    lines = "\n".join(f"- {' '.join(entry.content.split())}" for entry in entries)
    return (
        "How this user likes answers (their standing preferences; follow them unless this "
        f"message asks otherwise):\n{lines}"
    )


def style_at(*, user: Any, moments: list[datetime]) -> dict[datetime, list[MemoryEntry]]:
    """For each moment (a reply's time), the style preferences the system held then and that are
    still shown (not erased, hidden or rejected): what the reply was written with. One query."""
    if not moments:
        return {}
    shown = [MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.EXPIRED, MemoryStatus.ARCHIVED]
    entries = list(_candidates(user).filter(status__in=shown).order_by("-recorded_at")[:50])
    found = {}
    for moment in moments:
        held = [
            e for e in entries if e.recorded_at <= moment and (e.expired_at is None or e.expired_at > moment)
        ]
        found[moment] = held[:STYLE_MAX]
    return found
