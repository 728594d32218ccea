"""Reading what people bring: a mem0 export, a pasted saved-memories list, a timestamped transcript.

Each parser turns its input into `ImportItem`s (statements ready for `memory_add`, with the date
they held from) or, for a transcript, into clean messages that the extractor reads later. Input
that cannot be read raises `ImportInputError` (a 400): nothing of it is written. What is kept for
later (a job's payload) is redacted here, so no secret waits in the database; a line that held
one is still refused by the pipeline, with the kinds found recorded in `secret_kinds`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from memory_core import judgement
from memory_core.choices import ImportFormat, MemoryType, SourceKind
from memory_core.errors import MemoryServiceError
from memory_core.extraction.schema import CATEGORIES, MESSAGE_ID_MAX_CHARS, parse_when
from memory_core.validation import strip_nul

# Evidence of imported statements names its origin: re-importing the same file is recognised
# ("already recorded from this source") instead of counted again.
MEM0_SOURCE = "import:mem0"
TEXT_SOURCE = "import:text"
# Our own export (`memory_core.export`, "memory-export-v1") brought back: the source message id
# of each imported statement is its id in the export, so a later version finds the one it replaced.
EXPORT_SOURCE = "import:memory-export"
EXPORT_FORMAT = "memory-export-v1"
# Statuses an exported statement comes back with, set after the pipeline wrote it (`restore`);
# a rejected one was never a memory, and one waiting for review waits again by the pipeline's rule.
RESTORED_STATUSES = frozenset({"active", "superseded", "archived", "expired", "hidden", "pending_review"})

# mem0's default categories, in ours; the originals stay in the metadata.
MEM0_CATEGORIES = {
    "personal_details": "profile",
    "professional_details": "profile",
    "family": "relationship",
    "user_preferences": "preference",
    "preferences": "preference",
    "food": "preference",
    "milestones": "event",
}

# Bullets ("- ", "* ", "• ", markdown task boxes) and numbering ("1. ", "2) ", "(3) ", and the
# Chinese "4、" or full-width forms) before a line.
_BULLET = re.compile(
    r"^\s*(?:[-*+\u2022\u00b7\u2023\u25e6\u25aa\u25cf\u25cb\u2013\u2014]\s*(?:\[[ xX]\]\s*)?"
    r"|\(?[0-9\uff10-\uff19]{1,4}[.)\u3001\uff0e:\uff09]\s*|\([0-9]{1,4}\)\s*)"
)
# An optional date first: "2024-05-01: ...", "[2024-05-01] ...", "2024/05/01 - ...".
_DATED = re.compile(r"^\[?(\d{4}[-/]\d{1,2}[-/]\d{1,2})\]?\s*[:\-\u2013\u2014]?\s+")
_ROLES = {"human": "user", "user": "user", "assistant": "assistant", "ai": "assistant", "system": "system"}


class ImportInputError(MemoryServiceError):
    """The file or text cannot be imported as it is; nothing of it was written."""

    code = "invalid_import"


@dataclass(frozen=True)
class ImportItem:
    """One statement on its way into `memory_add` (JSON-serialisable for a job's payload)."""

    line: int  # 1-based position in what the user brought (a transcript: the candidate's order)
    content: str
    conversation: str
    message_ids: list[str]
    source_kind: str = SourceKind.API_IMPORT
    type: str = MemoryType.SEMANTIC
    category: str = "general"
    key: str = ""
    importance: float = 0.5
    confidence: float = 1.0
    pinned: bool = False
    is_inference: bool = False
    valid_from: str | None = None  # ISO
    said_at: str | None = None  # ISO: when the user said it (transcripts)
    excerpt: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    extractor_model: str = ""
    extractor_prompt_version: str = ""
    secret_kinds: list[str] = field(default_factory=list)
    # Our own export only: the window's end, the status to restore, the version it replaced.
    valid_to: str | None = None  # ISO
    status: str = ""
    supersedes: str = ""  # that version's id in the export

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ImportItem:
        return cls(**data)


def max_items() -> int:
    return int(getattr(settings, "IMPORT_MAX_ITEMS", 5000))


def max_bytes() -> int:
    return int(getattr(settings, "IMPORT_MAX_BYTES", 2 * 1024 * 1024))


def check_format(value: Any) -> str:
    if value not in ImportFormat.values:
        raise ImportInputError(
            f"Unknown import format {value!r}: use one of {', '.join(ImportFormat.values)}.",
            field_errors={"format": [f"Choose among {', '.join(ImportFormat.values)}."]},
        )
    return str(value)


def check_size(data: Any) -> None:
    """Refuse input larger than IMPORT_MAX_BYTES (measured as JSON text for parsed values)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    size = len(text.encode("utf-8", errors="replace"))
    if size > max_bytes():
        raise ImportInputError(
            f"The import is too large: {size} bytes, at most {max_bytes()}. Split it into smaller files.",
            field_errors={"data": ["Too large."]},
        )


def _check_count(count: int, what: str) -> None:
    if count > max_items():
        raise ImportInputError(
            f"Too many {what} in one import: {count}, at most {max_items()}. Split it into smaller files."
        )


def _json(data: Any) -> Any:
    if not isinstance(data, str):
        return data
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise ImportInputError(
            f"The file is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}).",
            field_errors={"data": ["Not valid JSON."]},
        ) from None
    except RecursionError:
        raise ImportInputError("The file is nested too deeply to be read.") from None


def _when(value: Any, where: str) -> datetime | None:
    """An aware date-time from ISO text (a date alone is midnight); never later than now."""
    if value in (None, ""):
        return None
    parsed = parse_when(value) if isinstance(value, str) else None
    if parsed is None:
        raise ImportInputError(f"{where}: {value!r} is not an ISO date or date-time.")
    return min(parsed, timezone.now())


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def _scrubbed(value: Any) -> Any:
    """Metadata with every secret redacted (a job's payload must not keep one)."""
    if isinstance(value, str):
        return judgement.secrets(value).redacted
    if isinstance(value, dict):
        return {str(k): _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrubbed(v) for v in value]
    return value


def _statement(text: str) -> tuple[str, list[str]]:
    """The statement as it may be kept (redacted), and the kinds of secret it held."""
    scan = judgement.secrets(text)
    return (scan.redacted, list(scan.kinds)) if scan.found else (text, [])


# --- mem0 ----------------------------------------------------------------------------------------


def _mem0_rows(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for name in ("results", "memories", "data"):
            if isinstance(value.get(name), list):
                return list(value[name])
        if "memory" in value:
            return [value]
    raise ImportInputError(
        "Not a mem0 export: expected a list of memories, or an object with a `results` (get_all) or "
        "`memories` list, each memory with a `memory` text."
    )


def _mem0_category(categories: list[str]) -> str:
    for name in categories:
        if name in CATEGORIES:
            return name
        if name in MEM0_CATEGORIES:
            return MEM0_CATEGORIES[name]
    return "general"


def _mem0_start(row: dict[str, Any], where: str) -> datetime | None:
    """When a mem0 memory began to hold: its `timestamp` (mem0's platform: an add's `timestamp`,
    Unix seconds or ISO), else its `created_at`."""
    stamp = row.get("timestamp")
    if isinstance(stamp, bool):
        raise ImportInputError(f"{where}: timestamp {stamp!r} is not a date.")
    if isinstance(stamp, int | float):
        try:
            return min(datetime.fromtimestamp(stamp, tz=UTC), timezone.now())
        except (OverflowError, OSError, ValueError):
            raise ImportInputError(f"{where}: timestamp {stamp!r} is out of range.") from None
    return _when(stamp, f"{where}: timestamp") or _when(row.get("created_at"), f"{where}: created_at")


def parse_mem0(data: Any) -> list[ImportItem]:
    value = _json(data)
    if isinstance(value, dict) and value.get("format") == EXPORT_FORMAT:
        return parse_export(value)
    rows = _mem0_rows(value)
    _check_count(len(rows), "memories")
    items = []
    for position, row in enumerate(rows, start=1):
        where = f"Memory {position}"
        if not isinstance(row, dict):
            raise ImportInputError(f"{where} is not an object.")
        text = row.get("memory", row.get("text", row.get("content")))
        if not isinstance(text, str) or not strip_nul(text).strip():
            raise ImportInputError(f"{where} has no `memory` text.")
        categories = row.get("categories") or []
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            raise ImportInputError(f"{where}: `categories` must be a list of names.")
        extra = row.get("metadata") or {}
        if not isinstance(extra, dict):
            raise ImportInputError(f"{where}: `metadata` must be an object.")
        created = _mem0_start(row, where)
        updated = _when(row.get("updated_at"), f"{where}: updated_at")
        content, kinds = _statement(strip_nul(text).strip())
        mem0_id = str(row.get("id") or "")[:MESSAGE_ID_MAX_CHARS] or _digest(content)
        metadata: dict[str, Any] = {"imported_from": "mem0", "mem0_id": mem0_id}
        if categories:
            metadata["categories"] = categories
        if updated is not None:
            metadata["mem0_updated_at"] = updated.isoformat()
        if extra:
            metadata["mem0_metadata"] = _scrubbed(extra)
        items.append(
            ImportItem(
                line=position,
                content=content,
                conversation=MEM0_SOURCE,
                message_ids=[mem0_id],
                category=_mem0_category(categories),
                valid_from=created.isoformat() if created else None,
                metadata=metadata,
                secret_kinds=kinds,
            )
        )
    return items


# --- our own export ------------------------------------------------------------------------------


def _export_row(row: Any, position: int) -> ImportItem | None:
    """One exported memory as it was: statement, kind, slot, window, status, the version it
    replaced; None for a rejected one (never a memory)."""
    where = f"Memory {position}"
    if not isinstance(row, dict):
        raise ImportInputError(f"{where} is not an object.")
    text = row.get("content")
    if not isinstance(text, str) or not strip_nul(text).strip():
        raise ImportInputError(f"{where} has no `content` text.")
    status = row.get("status", "active")
    if status == "rejected":
        return None
    if status not in RESTORED_STATUSES:
        raise ImportInputError(f"{where}: unknown status {status!r}.")
    kind = row.get("type", MemoryType.SEMANTIC)
    if kind not in MemoryType.values:
        raise ImportInputError(f"{where}: unknown type {kind!r}.")
    start, end = (
        _when(row.get("valid_from"), f"{where}: valid_from"),
        _when(row.get("valid_to"), f"{where}: valid_to"),
    )
    if start is not None and end is not None and end < start:
        raise ImportInputError(f"{where}: valid_to is before valid_from.")
    content, kinds = _statement(strip_nul(text).strip())
    export_id = str(row.get("id") or "")[:MESSAGE_ID_MAX_CHARS] or _digest(content)
    extra = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
    numbers = {name: row.get(name) for name in ("importance", "confidence")}
    if any(
        not isinstance(v, int | float) or isinstance(v, bool) or not 0 <= v <= 1
        for v in numbers.values()
        if v is not None
    ):
        raise ImportInputError(f"{where}: importance and confidence are numbers from 0 to 1.")
    return ImportItem(
        line=position,
        content=content,
        conversation=EXPORT_SOURCE,
        message_ids=[export_id],
        type=kind,
        category=str(row.get("category") or "general")[:40],
        key=str(row.get("key") or "")[:200],
        importance=float(numbers["importance"] if numbers["importance"] is not None else 0.5),
        confidence=float(numbers["confidence"] if numbers["confidence"] is not None else 1.0),
        pinned=row.get("pinned") is True,
        is_inference=row.get("is_inference") is True,
        valid_from=start.isoformat() if start else None,
        valid_to=end.isoformat() if end else None,
        status=status,
        supersedes=str(row.get("supersedes") or "")[:MESSAGE_ID_MAX_CHARS],
        metadata={
            **_scrubbed(extra),
            **_export_origin(row),
            "imported_from": "memory-export",
            "export_id": export_id,
        },
        secret_kinds=kinds,
    )


_ORIGIN = ("source_kind", "source_conversation", "source_message_ids", "extractor_model")


def _export_origin(row: dict[str, Any]) -> dict[str, Any]:
    """Where an exported statement came from and when it was learned, kept in the new entry's
    metadata (its own provenance is the import); excerpts stay behind (they may quote secrets)."""
    found = row.get("provenance")
    provenance: dict[str, Any] = found if isinstance(found, dict) else {}
    source = {name: provenance[name] for name in _ORIGIN if provenance.get(name)}
    origin: dict[str, Any] = {"source": _scrubbed(source)} if source else {}
    if isinstance(row.get("recorded_at"), str):
        origin["recorded_at"] = row["recorded_at"][:40]
    return origin


def parse_export(value: dict[str, Any]) -> list[ImportItem]:
    """Our own export (`memory_core.export`), in the order it lists memories (when each was
    learned), so that a version comes after the one it replaced."""
    rows = value.get("memories")
    if not isinstance(rows, list):
        raise ImportInputError("Not a memory export: expected a `memories` list.")
    _check_count(len(rows), "memories")
    items = [item for position, row in enumerate(rows, start=1) if (item := _export_row(row, position))]
    return items


# --- a saved-memories list -----------------------------------------------------------------------


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
    return short and bullets_after >= 2 and not _BULLET.match(raw)


def text_skips(lines: list[str]) -> dict[int, str]:
    """The lines (0-based) of a pasted list that are not memories, with the reason: titles above
    the list, closing lines below it, separators anywhere. Position decides as much as wording: a
    closing line comes after the last bulleted line (in a list without bullets: among its last
    two lines), an introduction before the first; a bulleted line is chatter only if it is a
    separator or a title. Blank lines are not listed."""
    # A bullet with nothing after it ("-", "*", "•") is an empty line; a lone dash ("—") separates.
    filled = [n for n, line in enumerate(lines) if line.strip() and line.strip() not in _EMPTY_BULLETS]
    bulleted = [n for n in filled if _BULLET.match(lines[n]) and _BULLET.sub("", lines[n], count=1).strip()]
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
        elif _BULLET.match(raw):
            continue
        elif number >= tail_from and _chatter(text):
            skips[number] = "closing line"
        elif first_bullet is not None and number < first_bullet and _chatter(text):
            skips[number] = "title"
    return skips


def _skipped(lines: list[str], skips: dict[int, str]) -> list[SkippedLine]:
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
    if not isinstance(data, str):
        raise ImportInputError("A saved-memories list is text: one memory a line.")
    lines = strip_nul(data).splitlines()
    skips = text_skips(lines)
    items = _text_items(lines, skips)
    if not items:
        left_out = "no line of it is a memory (only titles, closing lines or separators)"
        raise ImportInputError(
            f"Nothing to import: {left_out if skips else 'the text is empty'}. Paste one memory a line.",
            field_errors={"data": ["No memory." if skips else "Empty."]},
        )
    _check_count(len(items), "lines")
    return items, _skipped(lines, skips)


def parse_text(data: Any) -> list[ImportItem]:
    """One statement a line; bullets, numbering and blank lines are tolerated; a leading date
    (`2024-05-01: …`) is when the statement held from; titles, closing lines and separators
    (`text_skips`) are left out."""
    return read_text(data)[0]


def _text_items(lines: list[str], skips: dict[int, str]) -> list[ImportItem]:
    items: list[ImportItem] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines):
        if number in skips:
            continue
        line = _BULLET.sub("", raw, count=1).strip()
        when = None
        dated = _DATED.match(line)
        if dated:
            when = _when(dated.group(1).replace("/", "-"), f"Line {len(items) + 1}")
            line = line[dated.end() :].strip()
        line = line.strip("*_ ").strip()  # markdown emphasis around a whole line
        if not line:
            continue
        content, kinds = _statement(line)
        # The same line twice in one list merges; the same list pasted again is recognised.
        occurrence = seen[line] = seen.get(line, 0) + 1
        items.append(
            ImportItem(
                line=len(items) + 1,
                content=content,
                conversation=TEXT_SOURCE,
                message_ids=[f"{_digest(line)}.{occurrence}"],
                valid_from=when.isoformat() if when else None,
                metadata={"imported_from": "saved_memories"},
                secret_kinds=kinds,
            )
        )
    return items


# --- a transcript --------------------------------------------------------------------------------


def transcript_source(messages: list[dict[str, Any]]) -> str:
    """The conversation reference of an imported transcript: the same transcript, the same source."""
    return "import:" + _digest(json.dumps([[m["id"], m["role"], m["content"]] for m in messages]))


def parse_transcript(data: Any) -> list[dict[str, Any]]:
    """Clean messages `{"id", "role", "content" (redacted), "created_at"}` in order."""
    value = _json(data)
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if not isinstance(value, list) or not value:
        raise ImportInputError(
            "Not a transcript: expected a non-empty JSON list of messages with `role`, `content` "
            "and `created_at`."
        )
    _check_count(len(value), "messages")
    messages: list[dict[str, str]] = []
    for position, message in enumerate(value, start=1):
        where = f"Message {position}"
        if not isinstance(message, dict):
            raise ImportInputError(f"{where} is not an object.")
        role = _ROLES.get(str(message.get("role") or message.get("sender") or "").strip().lower())
        content = message.get("content", message.get("text"))
        if role is None:
            raise ImportInputError(f"{where}: `role` must be user or assistant.")
        if not isinstance(content, str):
            raise ImportInputError(f"{where} has no `content` text.")
        when = _when(message.get("created_at"), f"{where}: created_at")
        message_id = str(message.get("id") or position)[:MESSAGE_ID_MAX_CHARS]
        messages.append(
            {
                "id": message_id,
                "role": role,
                # The extractor needs no secret, and a job's payload must not keep one.
                "content": judgement.secrets(strip_nul(content)).redacted,
                "created_at": when.isoformat() if when else "",
            }
        )
    if len({m["id"] for m in messages}) < len(messages):  # ids must name one message each
        for position, m in enumerate(messages, start=1):
            m["id"] = str(position)
    if not any(m["role"] == "user" and m["content"].strip() for m in messages):
        raise ImportInputError("Nothing to import: the transcript has no message from the user.")
    return messages


# --- a bounded read, for a dry run -----------------------------------------------------------------


def read_prefix(
    format: str, data: Any, limit: int
) -> tuple[list[ImportItem], list[dict[str, Any]], int, list[SkippedLine]]:
    """(statements, transcript messages, how many the whole input holds, lines of a pasted list
    left out) of the input's first `limit` statements (or messages). A dry run answers at once, so
    it reads no further: the secret scan of every line of a large paste alone would not."""
    if format == ImportFormat.TRANSCRIPT:
        value = _json(data)
        if isinstance(value, dict) and isinstance(value.get("messages"), list):
            value = value["messages"]
        total = len(value) if isinstance(value, list) else 0
        _check_count(total, "messages")
        return [], parse_transcript(value[:limit] if isinstance(value, list) else value), total, []
    if format == ImportFormat.MEM0:
        value = _json(data)
        if isinstance(value, dict) and "format" in value:  # a self-describing file: read it whole
            items = parse_mem0(value)
            return items[:limit], [], len(items), []
        rows = _mem0_rows(value)
        _check_count(len(rows), "memories")
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
        if n not in skips and _BULLET.sub("", line, count=1).strip("*_ ").strip()
    ]
    _check_count(len(filled), "lines")
    cut = filled[min(len(filled), limit) - 1] + 1 if filled else 0
    items = _text_items(lines[:cut], skips)[:limit]
    if not items:
        read_text(data)  # refused there, with its message
    # Shown: what was left out of the part read, and below the list (its closing lines).
    shown = {n: why for n, why in skips.items() if n < cut or not filled or n > filled[-1]}
    return items, [], len(filled), _skipped(lines, shown)
