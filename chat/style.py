"""Standing preferences about how to answer (length, format, language, tone): they apply to every
turn, whatever the message is about, so they go into the system prompt within their own small
budget instead of competing in recall (a question about trains never "matches" "short answers").

A preference is about answering when it names what it shapes: answers, replies, explanations,
format (lists, tables, markdown, emoji), language or tone. The same words in Chinese count.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memory_core.models import MemoryEntry, MemoryStatus, Namespace
from memory_core.recall import estimate_tokens

STYLE_TOKENS = 120  # the budget of the style block, apart from recall's
STYLE_MAX = 8
PREFERENCE_CATEGORY = "preference"
# PostgreSQL regular expression (case-insensitive match, `~*`): word starts in English, any
# position in Chinese.
STYLE_PATTERN = (
    r"\m(answer|repl(y|ies)|respon(se|d)|explanation|explain|summar|bullet|list|table|markdown|"
    r"format|emoji|tone|formal|casual|polite|language|in (english|chinese|french|german|spanish|"
    r"portuguese|japanese|korean|italian|dutch))"
    r"|回答|回复|答复|简短|简洁|详细|语气|格式|中文|英文|列表|表格"
)


def _candidates(user: Any) -> Any:
    own = Namespace.objects.owned_by(user).values("id")
    return MemoryEntry.objects.filter(
        namespace_id__in=own, category=PREFERENCE_CATEGORY, content__iregex=STYLE_PATTERN
    ).defer("embedding", "search_vector")


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
