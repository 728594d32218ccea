"""The recalled memories as prompt text: one line each, filled greedily into a token budget, framed."""

from __future__ import annotations

import math

from django.utils import timezone

from memory_core.llm import MEMORIES_END, MEMORIES_START
from memory_core.models import MemoryType, SourceKind
from memory_core.recall.types import Candidate, RecalledMemory

INTRODUCTION = (
    "Background knowledge about the user, remembered from earlier conversations. "
    "It may be outdated or incomplete."
)
INSTRUCTION = (
    "Live data from tools or the current conversation takes precedence over these memories: "
    "when they conflict, rely on the live data and say that your memory differs."
)

_TYPE_LABELS: dict[str, str] = {
    MemoryType.SEMANTIC: "fact",
    MemoryType.EPISODIC: "event",
    MemoryType.PROCEDURAL: "procedure",
}
_SOURCE_LABELS: dict[str, str] = {
    SourceKind.USER_EXPLICIT: "told by user",
    SourceKind.USER_CORRECTION: "corrected by user",
    SourceKind.EXTRACTED: "learned from conversation",
    SourceKind.OPERATOR: "operator",
    SourceKind.API_IMPORT: "imported",
}


def estimate_tokens(text: str) -> int:
    """About four characters per token for English, plus one for the line break."""
    return math.ceil(len(text) / 4) + 1


def single_line(text: str) -> str:
    """Content as one line: no memory can add lines (or close the block) in the prompt."""
    flat = " ".join(text.split())
    return flat.replace(MEMORIES_START, "(memories)").replace(MEMORIES_END, "(/memories)")


def memory_line(entry: Candidate) -> str:
    kind = _TYPE_LABELS.get(entry.type, entry.type)
    source = _SOURCE_LABELS.get(entry.source_kind, entry.source_kind)
    if entry.source_kind == SourceKind.EXTRACTED and entry.is_inference:
        source = "inferred from conversation"
    dated = timezone.localtime(entry.valid_from).date().isoformat()
    return f"- [{kind}, dated {dated}, source: {source}] {single_line(entry.content)}"


def render_prompt_block(lines: list[str]) -> str:
    """The text injected into the system prompt; empty when there is nothing to recall."""
    if not lines:
        return ""
    return "\n".join([INTRODUCTION, MEMORIES_START, *lines, MEMORIES_END, INSTRUCTION])


# No memory line is shorter than this (the label and date alone take more), so a budget with
# less left than this is full.
_MIN_LINE_TOKENS = estimate_tokens("- [fact, dated 2000-01-01, source: operator] x")


def fill_scored(
    scored: list[tuple[Candidate, float, dict[str, float]]], *, budget_tokens: int, limit: int
) -> list[tuple[Candidate, float, dict[str, float], str]]:
    """`fill_budget` over scored candidates, in their order: the recalled ones with their prompt
    lines, a line built only for a candidate the budget reaches. The framing text around the lines
    (about 75 tokens) is not counted against the budget."""
    chosen: list[tuple[Candidate, float, dict[str, float], str]] = []
    used = 0
    for candidate, score, components in scored:
        if len(chosen) >= limit or budget_tokens - used < _MIN_LINE_TOKENS:
            break
        line = memory_line(candidate)
        tokens = estimate_tokens(line)
        if used + tokens <= budget_tokens:
            chosen.append((candidate, score, components, line))
            used += tokens
    return chosen


def fill_budget(ranked: list[RecalledMemory], *, budget_tokens: int, limit: int) -> list[RecalledMemory]:
    """Greedy, in order: a line that does not fit is skipped and shorter later ones may still fit."""
    items: list[RecalledMemory] = []
    used = 0
    for item in ranked:
        if len(items) >= limit:
            break
        if used + item.tokens <= budget_tokens:
            items.append(item)
            used += item.tokens
    return items
