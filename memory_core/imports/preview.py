"""A dry run's bounded read: the first statements (or messages) of an input, read no further,
so a preview of a large input answers at once."""

from __future__ import annotations

from typing import Any

from memory_core.choices import ImportFormat
from memory_core.imports.parsers import (
    BULLET,
    ImportItem,
    check_count,
    mem0_rows,
    parse_mem0,
    parse_transcript,
    read_json,
)
from memory_core.imports.pasted import (
    SkippedLine,
    parse_text,
    read_text,
    skipped_lines,
    text_items,
    text_skips,
)
from memory_core.validation import strip_nul


def read_prefix(
    format: str, data: Any, limit: int
) -> tuple[list[ImportItem], list[dict[str, Any]], int, list[SkippedLine]]:
    """(statements, transcript messages, how many the whole input holds, lines of a pasted list
    left out) of the input's first `limit` statements (or messages). A dry run answers at once, so
    it reads no further: the secret scan of every line of a large paste alone would not."""
    if format == ImportFormat.TRANSCRIPT:
        value = read_json(data)
        if isinstance(value, dict) and isinstance(value.get("messages"), list):
            value = value["messages"]
        total = len(value) if isinstance(value, list) else 0
        check_count(total, "messages")
        return [], parse_transcript(value[:limit] if isinstance(value, list) else value), total, []
    if format == ImportFormat.MEM0:
        value = read_json(data)
        if isinstance(value, dict) and "format" in value:  # a self-describing file: read it whole
            items = parse_mem0(value)
            return items[:limit], [], len(items), []
        rows = mem0_rows(value)
        check_count(len(rows), "memories")
        return parse_mem0(rows[:limit]), [], len(rows), []
    if not isinstance(data, str):
        return parse_text(data), [], 0, []  # refused there, with its message
    # Which lines are left out is decided on the whole text (a closing line is known by its
    # place), by patterns only; the statements are read (and scanned) up to the limit.
    lines = strip_nul(data).splitlines()
    skips = text_skips(lines)
    filled = [
        n
        for n, line in enumerate(lines)
        if n not in skips and BULLET.sub("", line, count=1).strip("*_ ").strip()
    ]
    check_count(len(filled), "lines")
    cut = filled[min(len(filled), limit) - 1] + 1 if filled else 0
    items = text_items(lines[:cut], skips)[:limit]
    if not items:
        read_text(data)  # refused there, with its message
    # Shown: what was left out of the part read, and below the list (its closing lines).
    shown = {n: why for n, why in skips.items() if n < cut or not filled or n > filled[-1]}
    return items, [], len(filled), skipped_lines(lines, shown)
