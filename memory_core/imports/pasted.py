"""A pasted saved-memories list (ChatGPT's or Claude's memory page, a note): one statement a line,
with the titles, closing lines and separators around it recognised and shown as left out."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from django.utils.translation import gettext_noop

from memory_core import judgement
from memory_core.imports.parsers import (
    BULLET,
    DATED,
    TEXT_SOURCE,
    Check,
    ImportInputError,
    ImportItem,
    check_count,
    digest,
    every,
    line_at,
    read_when,
    redacted_statement,
    refused,
)
from memory_core.validation import strip_nul

# What an assistant's memory page or reply puts above the list, in the languages we read.
_LIST_TITLES = frozenset(
    {"saved memories", "memory", "memories", "manage memories", "memory updated", "your memories",
     "已保存的记忆", "保存的记忆", "记忆", "管理记忆", "已儲存的記憶", "記憶", "管理記憶"}
)  # fmt: skip
_MARKDOWN_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_TITLE_WORDS = 6


# A line of rule characters only ("---", "***", "—", "===", "· · ·"): it separates, it states nothing.
_SEPARATOR = re.compile(
    r"^[\s\-\u2010-\u2015\u2212_=*~#.\u00b7\u2022\u2026\u2500-\u257f\uff0d\uff3f\uff1d]+$"
)
# What an assistant says to the person *about its memory* around the list, in English and Chinese
# (simplified and traditional). A line is chatter only when it mentions memory (`_MEMORY`) and
# either speaks to the person — a question or an offer (`_OFFER`) — or speaks of the list itself
# (`_ABOUT_LIST`). "I have a poor memory for names." does neither, and stays a memory.
_MEMORY = re.compile(
    r"\b(?:memor(?:y|ies|i[sz]e)|remember(?:ed)?|forget|saved?|stored?|update|delete|remove|edit|"
    r"change|correct)\b|记|記|忘|保存|儲存|存储|存儲|删除|刪除|修改|更新|更正",
    re.IGNORECASE,
)
_OFFER = re.compile(
    r"\b(?:let me know|tell me|feel free|just ask|ask me|anything else|is there anything|"
    r"(?:would|do|did) you (?:like|want|need)|you(?:'d| would) like|if you(?:'d| would)? "
    r"(?:like|want|need|wish)|want me to|shall i|i can (?:also )?(?:update|"
    r"remove|forget|delete|change|edit|add))\b"
    r"|告诉我|告訴我|跟我说|跟我說|随时|隨時|如果(?:你|您)|如需|如果需要|需要我|要我|还有(?:什么|其他|别的)|"
    r"還有(?:什麼|其他|別的)|(?:你|您)(?:想|希望|需要)",
    re.IGNORECASE,
)
_ABOUT_LIST = re.compile(
    r"^(?:these|those|here|above|below|this|that)(?:'s| is| are| were)\b|^that'?s (?:all|everything)\b"
    r"|\bi(?:'ve| have)? (?:saved|stored|remembered|noted|kept)\b|\bwhat i (?:remember|know|have saved)\b"
    r"|^(?:以上|以下|这些|這些|上面|下面|上述)|我(?:记住|記住|保存|儲存|记得|記得|存储|存儲)(?:了)?的",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"[?\uff1f]\s*$|[吗嗎呢][\u3002.!\uff01]?\s*$")
_SECOND_PERSON = re.compile(r"\byou(?:r|rs|'d|'re|'ll)?\b|你|您", re.IGNORECASE)
_EMPTY_BULLETS = frozenset("-*+\u2022\u00b7\u2023\u25e6\u25aa\u25cf\u25cb")
_SKIPPED_CHARS = 200  # a skipped line is shown, cut to this length


@dataclass(frozen=True)
class SkippedLine:
    """A pasted line that is not a memory: its line number in the text, the line (redacted, cut),
    and why it was left out: "title", "closing line" or "separator"."""

    line: int
    text: str
    reason: str

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _bare(raw: str) -> str:
    return raw.strip().strip("*_ ").strip()


def _chatter(text: str) -> bool:
    """Whether a line is the assistant speaking about its memory (see `_MEMORY`)."""
    if not _MEMORY.search(text):
        return False
    if _OFFER.search(text) or _ABOUT_LIST.search(text):
        return True
    return bool(_QUESTION.search(text) and _SECOND_PERSON.search(text))


def _heading(raw: str, number: int, first: int | None, bullets_after: int) -> bool:
    """Whether a pasted line introduces the list rather than states a memory: it ends with a colon
    ("Here is what I remember about you:", full-width too), it is a markdown heading or a known
    title ("Saved memories"), or it is a short unbulleted first line above a bulleted list."""
    text = _bare(raw)
    if text.endswith((":", "\uff1a")) or _MARKDOWN_HEADING.match(raw):
        return True
    if text.casefold().rstrip(".") in _LIST_TITLES:
        return True
    if number != first:
        return False  # only a first line is a title
    short = len(text.split()) <= _TITLE_WORDS and len(text) <= 40 and not text.endswith((".", "\u3002"))
    return short and bullets_after >= 2 and not BULLET.match(raw)


def text_skips(lines: list[str]) -> dict[int, str]:
    """The lines (0-based) of a pasted list that are not memories, with the reason: titles above
    the list, closing lines below it, separators anywhere. Position decides as much as wording: a
    closing line comes after the last bulleted line (in a list without bullets: among its last
    two lines), an introduction before the first; a bulleted line is chatter only if it is a
    separator or a title. Blank lines are not listed."""
    # A bullet with nothing after it ("-", "*", "•") is an empty line; a lone dash ("—") separates.
    filled = [n for n, line in enumerate(lines) if line.strip() and line.strip() not in _EMPTY_BULLETS]
    bulleted = [n for n in filled if BULLET.match(lines[n]) and BULLET.sub("", lines[n], count=1).strip()]
    first = filled[0] if filled else None
    first_bullet = bulleted[0] if bulleted else None
    if bulleted:
        tail_from = bulleted[-1] + 1
    else:  # no bullets: only the last two lines may close it, and never the only line
        tail_from = filled[-2] if len(filled) > 2 else filled[-1] if len(filled) == 2 else len(lines)
    skips: dict[int, str] = {}
    for number in filled:
        raw = lines[number]
        text = _bare(raw)
        if _SEPARATOR.match(raw) or not text:
            skips[number] = "separator"
        elif _heading(
            raw, number, first, len(bulleted) - (first_bullet is not None and first_bullet <= number)
        ):
            skips[number] = "title"
        elif BULLET.match(raw):
            continue
        elif number >= tail_from and _chatter(text):
            skips[number] = "closing line"
        elif first_bullet is not None and number < first_bullet and _chatter(text):
            skips[number] = "title"
    return skips


def skipped_lines(lines: list[str], skips: dict[int, str]) -> list[SkippedLine]:
    return [
        SkippedLine(
            line=number + 1,
            text=judgement.secrets(_bare(lines[number]) or lines[number].strip()).redacted[:_SKIPPED_CHARS],
            reason=reason,
        )
        for number, reason in sorted(skips.items())
    ]


def read_text(data: Any) -> tuple[list[ImportItem], list[SkippedLine]]:
    """A pasted list's statements, and the lines left out of it (with the reason)."""
    lines, skips, items = _read(data, every)
    return items, skipped_lines(lines, skips)


def parse_text(data: Any, check: Check = every) -> list[ImportItem]:
    """One statement a line; bullets, numbering and blank lines are tolerated; a leading date
    (`2024-05-01: …`) is when the statement held from; titles, closing lines and separators
    (`text_skips`) are left out."""
    return _read(data, check)[2]


def _read(data: Any, check: Check) -> tuple[list[str], dict[int, str], list[ImportItem]]:
    if not isinstance(data, str):
        raise ImportInputError(refused(gettext_noop("A saved-memories list is text: one memory a line.")))
    lines = strip_nul(data).splitlines()
    skips = text_skips(lines)
    items = text_items(lines, skips, check)
    if not items:
        nothing = (
            gettext_noop(
                "Nothing to import: no line of it is a memory (only titles, closing lines or separators). "
                "Paste one memory a line."
            )
            if skips
            else gettext_noop("Nothing to import: the text is empty. Paste one memory a line.")
        )
        raise ImportInputError(refused(nothing), field_errors={"data": ["No memory." if skips else "Empty."]})
    check_count(len(items), "lines")
    return lines, skips, items


def text_items(lines: list[str], skips: dict[int, str], check: Check = every) -> list[ImportItem]:
    items: list[ImportItem] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines):
        if number in skips:
            continue
        line = BULLET.sub("", raw, count=1).strip()
        when = None
        dated = DATED.match(line)
        if dated:
            when = read_when(dated.group(1).replace("/", "-"), line_at(len(items) + 1))
            line = line[dated.end() :].strip()
        line = line.strip("*_ ").strip()  # markdown emphasis around a whole line
        if not line:
            continue
        content, kinds = redacted_statement(line, check(len(items)))
        # The same line twice in one list merges; the same list pasted again is recognised.
        occurrence = seen[line] = seen.get(line, 0) + 1
        items.append(
            ImportItem(
                line=len(items) + 1,
                content=content,
                conversation=TEXT_SOURCE,
                message_ids=[f"{digest(line)}.{occurrence}"],
                valid_from=when.isoformat() if when else None,
                metadata={"imported_from": "saved_memories"},
                secret_kinds=kinds,
            )
        )
    return items
