"""Reading what people bring: a mem0 export, our own export, a timestamped transcript (a pasted
saved-memories list: `pasted`; a dry run's bounded read: `preview`).

Each parser turns its input into `ImportItem`s (statements ready for `memory_add`, with the date
they held from) or, for a transcript, into clean messages that the extractor reads later. Input
that cannot be read raises `ImportInputError` (a 400): nothing of it is written. What is kept for
later (a job's payload) is redacted here, so no secret waits in the database; a line that held
one is still refused by the pipeline, with the kinds found recorded in `secret_kinds`.

Checking for secrets is most of the cost of reading (a model scores each statement), so a parser
checks the statements (or messages) `check` names by their position in what it returns, all by
default: a large import is read once unchecked during the request, to refuse bad input at once,
and then checked by its job a window at a time (`intake`). An unchecked statement is never kept.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_noop

from config.tuning import tuned
from memory_core import judgement
from memory_core.choices import ImportFormat, MemoryType, SourceKind
from memory_core.errors import MemoryServiceError, Wording
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
BULLET = re.compile(
    r"^\s*(?:[-*+\u2022\u00b7\u2023\u25e6\u25aa\u25cf\u25cb\u2013\u2014]\s*(?:\[[ xX]\]\s*)?"
    r"|\(?[0-9\uff10-\uff19]{1,4}[.)\u3001\uff0e:\uff09]\s*|\([0-9]{1,4}\)\s*)"
)
# An optional date first: "2024-05-01: ...", "[2024-05-01] ...", "2024/05/01 - ...".
DATED = re.compile(r"^\[?(\d{4}[-/]\d{1,2}[-/]\d{1,2})\]?\s*[:\-\u2013\u2014]?\s+")
_ROLES = {"human": "user", "user": "user", "assistant": "assistant", "ai": "assistant", "system": "system"}


# Whether the statement (or message) at this 0-based position is checked for secrets as it is read.
Check = Callable[[int], bool]


def every(position: int) -> bool:
    return True


def unchecked(position: int) -> bool:
    return False


class ImportInputError(MemoryServiceError):
    """The file or text cannot be imported as it is; nothing of it was written. Its message is a
    `Wording` (English for the API, said in the page's language on /me/import/)."""

    code = "invalid_import"


def refused(template: str, **values: Any) -> Wording:
    """A parser's message: `template` is marked with gettext_noop where it is written."""
    return Wording(template, values)


# Where in the input a message points: a statement or message by its 1-based position, or one of
# its fields (named as the JSON names it).
def memory_at(position: int, name: str = "") -> Wording:
    if name:
        return refused(gettext_noop("Memory %(n)s: %(field)s"), n=position, field=name)
    return refused(gettext_noop("Memory %(n)s"), n=position)


def message_at(position: int, name: str = "") -> Wording:
    if name:
        return refused(gettext_noop("Message %(n)s: %(field)s"), n=position, field=name)
    return refused(gettext_noop("Message %(n)s"), n=position)


def line_at(position: int) -> Wording:
    return refused(gettext_noop("Line %(n)s"), n=position)


NOT_AN_OBJECT = gettext_noop("%(where)s is not an object.")
NO_CONTENT = gettext_noop("%(where)s has no `content` text.")


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


# An import is one person's memories or a conversation's transcript: a few thousand statements, a
# few megabytes at most (a larger file or paste is refused, nothing written).
IMPORT_MAX_ITEMS = 5000
IMPORT_MAX_BYTES = 2 * 1024 * 1024


def max_items() -> int:
    return int(tuned("IMPORT_MAX_ITEMS", IMPORT_MAX_ITEMS))


def max_bytes() -> int:
    return int(tuned("IMPORT_MAX_BYTES", IMPORT_MAX_BYTES))


def check_format(value: Any) -> str:
    if value not in ImportFormat.values:
        raise ImportInputError(
            refused(
                gettext_noop("Unknown import format %(value)s: use one of %(formats)s."),
                value=repr(value),
                formats=", ".join(ImportFormat.values),
            ),
            field_errors={"format": [f"Choose among {', '.join(ImportFormat.values)}."]},
        )
    return str(value)


def check_size(data: Any) -> None:
    """Refuse input larger than IMPORT_MAX_BYTES (measured as JSON text for parsed values)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    size = len(text.encode("utf-8", errors="replace"))
    if size > max_bytes():
        raise ImportInputError(
            refused(
                gettext_noop(
                    "The import is too large: %(size)s bytes, at most %(max)s. Split it into smaller files."
                ),
                size=size,
                max=max_bytes(),
            ),
            field_errors={"data": ["Too large."]},
        )


_TOO_MANY = {
    "memories": gettext_noop(
        "Too many memories in one import: %(count)s, at most %(max)s. Split it into smaller files."
    ),
    "messages": gettext_noop(
        "Too many messages in one import: %(count)s, at most %(max)s. Split it into smaller files."
    ),
    "lines": gettext_noop(
        "Too many lines in one import: %(count)s, at most %(max)s. Split it into smaller files."
    ),
}


def check_count(count: int, what: str) -> None:
    """`what`: memories, messages or lines."""
    if count > max_items():
        raise ImportInputError(refused(_TOO_MANY[what], count=count, max=max_items()))


def read_json(data: Any) -> Any:
    if not isinstance(data, str):
        return data
    try:
        return json.loads(data)
    except json.JSONDecodeError as exc:
        raise ImportInputError(
            refused(
                gettext_noop("The file is not valid JSON (line %(line)s, column %(column)s: %(why)s)."),
                line=exc.lineno,
                column=exc.colno,
                why=exc.msg,
            ),
            field_errors={"data": ["Not valid JSON."]},
        ) from None
    except RecursionError:
        raise ImportInputError(refused(gettext_noop("The file is nested too deeply to be read."))) from None


def read_when(value: Any, where: Wording) -> datetime | None:
    """An aware date-time from ISO text (a date alone is midnight); never later than now."""
    if value in (None, ""):
        return None
    parsed = parse_when(value) if isinstance(value, str) else None
    if parsed is None:
        raise ImportInputError(
            refused(
                gettext_noop("%(where)s: %(value)s is not an ISO date or date-time."),
                where=where,
                value=repr(value),
            )
        )
    return min(parsed, timezone.now())


def digest(*parts: str) -> str:
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


def redacted_statement(text: str, checked: bool = True) -> tuple[str, list[str]]:
    """The statement as it may be kept (redacted), and the kinds of secret it held; as it is when
    not `checked` (a large import's statement outside the window its job reads)."""
    if not checked:
        return text, []
    scan = judgement.secrets(text)
    return (scan.redacted, list(scan.kinds)) if scan.found else (text, [])


def scrubbed(value: Any, checked: bool = True) -> Any:
    return _scrubbed(value) if checked else value


# --- mem0 ----------------------------------------------------------------------------------------


def mem0_rows(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for name in ("results", "memories", "data"):
            if isinstance(value.get(name), list):
                return list(value[name])
        if "memory" in value:
            return [value]
    raise ImportInputError(
        refused(
            gettext_noop(
                "Not a mem0 export: expected a list of memories, or an object with a `results` (get_all) or "
                "`memories` list, each memory with a `memory` text."
            )
        )
    )


def _mem0_category(categories: list[str]) -> str:
    for name in categories:
        if name in CATEGORIES:
            return name
        if name in MEM0_CATEGORIES:
            return MEM0_CATEGORIES[name]
    return "general"


def _mem0_start(row: dict[str, Any], position: int) -> datetime | None:
    """When a mem0 memory began to hold: its `timestamp` (mem0's platform: an add's `timestamp`,
    Unix seconds or ISO), else its `created_at`."""
    stamp = row.get("timestamp")
    where = memory_at(position)
    if isinstance(stamp, bool):
        raise ImportInputError(
            refused(
                gettext_noop("%(where)s: timestamp %(value)s is not a date."), where=where, value=repr(stamp)
            )
        )
    if isinstance(stamp, int | float):
        try:
            return min(datetime.fromtimestamp(stamp, tz=UTC), timezone.now())
        except (OverflowError, OSError, ValueError):
            raise ImportInputError(
                refused(
                    gettext_noop("%(where)s: timestamp %(value)s is out of range."),
                    where=where,
                    value=repr(stamp),
                )
            ) from None
    return read_when(stamp, memory_at(position, "timestamp")) or read_when(
        row.get("created_at"), memory_at(position, "created_at")
    )


def parse_mem0(data: Any, check: Check = every) -> list[ImportItem]:
    value = read_json(data)
    if isinstance(value, dict) and value.get("format") == EXPORT_FORMAT:
        return parse_export(value, check)
    rows = mem0_rows(value)
    check_count(len(rows), "memories")
    items = []
    for position, row in enumerate(rows, start=1):
        where = memory_at(position)
        if not isinstance(row, dict):
            raise ImportInputError(refused(NOT_AN_OBJECT, where=where))
        text = row.get("memory", row.get("text", row.get("content")))
        if not isinstance(text, str) or not strip_nul(text).strip():
            raise ImportInputError(refused(gettext_noop("%(where)s has no `memory` text."), where=where))
        categories = row.get("categories") or []
        if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
            raise ImportInputError(
                refused(gettext_noop("%(where)s: `categories` must be a list of names."), where=where)
            )
        extra = row.get("metadata") or {}
        if not isinstance(extra, dict):
            raise ImportInputError(
                refused(gettext_noop("%(where)s: `metadata` must be an object."), where=where)
            )
        created = _mem0_start(row, position)
        updated = read_when(row.get("updated_at"), memory_at(position, "updated_at"))
        checked = check(position - 1)
        content, kinds = redacted_statement(strip_nul(text).strip(), checked)
        mem0_id = str(row.get("id") or "")[:MESSAGE_ID_MAX_CHARS] or digest(content)
        metadata: dict[str, Any] = {"imported_from": "mem0", "mem0_id": mem0_id}
        if categories:
            metadata["categories"] = categories
        if updated is not None:
            metadata["mem0_updated_at"] = updated.isoformat()
        if extra:
            metadata["mem0_metadata"] = scrubbed(extra, checked)
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


def _export_row(row: Any, position: int, checked: bool) -> ImportItem | None:
    """One exported memory as it was: statement, kind, slot, window, status, the version it
    replaced; None for a rejected one (never a memory)."""
    where = memory_at(position)
    if not isinstance(row, dict):
        raise ImportInputError(refused(NOT_AN_OBJECT, where=where))
    text = row.get("content")
    if not isinstance(text, str) or not strip_nul(text).strip():
        raise ImportInputError(refused(NO_CONTENT, where=where))
    status = row.get("status", "active")
    if status == "rejected":
        return None
    if status not in RESTORED_STATUSES:
        raise ImportInputError(
            refused(gettext_noop("%(where)s: unknown status %(value)s."), where=where, value=repr(status))
        )
    kind = row.get("type", MemoryType.SEMANTIC)
    if kind not in MemoryType.values:
        raise ImportInputError(
            refused(gettext_noop("%(where)s: unknown type %(value)s."), where=where, value=repr(kind))
        )
    start, end = (
        read_when(row.get("valid_from"), memory_at(position, "valid_from")),
        read_when(row.get("valid_to"), memory_at(position, "valid_to")),
    )
    if start is not None and end is not None and end < start:
        raise ImportInputError(
            refused(gettext_noop("%(where)s: valid_to is before valid_from."), where=where)
        )
    content, kinds = redacted_statement(strip_nul(text).strip(), checked)
    export_id = str(row.get("id") or "")[:MESSAGE_ID_MAX_CHARS] or digest(content)
    extra = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
    numbers = {name: row.get(name) for name in ("importance", "confidence")}
    if any(
        not isinstance(v, int | float) or isinstance(v, bool) or not 0 <= v <= 1
        for v in numbers.values()
        if v is not None
    ):
        raise ImportInputError(
            refused(
                gettext_noop("%(where)s: importance and confidence are numbers from 0 to 1."), where=where
            )
        )
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
            **scrubbed(extra, checked),
            **_export_origin(row, checked),
            "imported_from": "memory-export",
            "export_id": export_id,
        },
        secret_kinds=kinds,
    )


_ORIGIN = ("source_kind", "source_conversation", "source_message_ids", "extractor_model")


def _export_origin(row: dict[str, Any], checked: bool) -> dict[str, Any]:
    """Where an exported statement came from and when it was learned, kept in the new entry's
    metadata (its own provenance is the import); excerpts stay behind (they may quote secrets)."""
    found = row.get("provenance")
    provenance: dict[str, Any] = found if isinstance(found, dict) else {}
    source = {name: provenance[name] for name in _ORIGIN if provenance.get(name)}
    origin: dict[str, Any] = {"source": scrubbed(source, checked)} if source else {}
    if isinstance(row.get("recorded_at"), str):
        origin["recorded_at"] = row["recorded_at"][:40]
    return origin


def parse_export(value: dict[str, Any], check: Check = every) -> list[ImportItem]:
    """Our own export (`memory_core.export`), in the order it lists memories (when each was
    learned), so that a version comes after the one it replaced."""
    rows = value.get("memories")
    if not isinstance(rows, list):
        raise ImportInputError(refused(gettext_noop("Not a memory export: expected a `memories` list.")))
    check_count(len(rows), "memories")
    items: list[ImportItem] = []
    for position, row in enumerate(rows, start=1):
        if item := _export_row(row, position, check(len(items))):
            items.append(item)
    return items


# --- a transcript --------------------------------------------------------------------------------


def transcript_source(messages: list[dict[str, Any]]) -> str:
    """The conversation reference of an imported transcript: the same transcript, the same source."""
    return "import:" + digest(json.dumps([[m["id"], m["role"], m["content"]] for m in messages]))


def parse_transcript(data: Any, check: Check = every) -> list[dict[str, Any]]:
    """Clean messages `{"id", "role", "content" (redacted), "created_at"}` in order."""
    value = read_json(data)
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if not isinstance(value, list) or not value:
        raise ImportInputError(
            refused(
                gettext_noop(
                    "Not a transcript: expected a non-empty JSON list of messages with `role`, `content` "
                    "and `created_at`."
                )
            )
        )
    check_count(len(value), "messages")
    messages: list[dict[str, str]] = []
    for position, message in enumerate(value, start=1):
        where = message_at(position)
        if not isinstance(message, dict):
            raise ImportInputError(refused(NOT_AN_OBJECT, where=where))
        role = _ROLES.get(str(message.get("role") or message.get("sender") or "").strip().lower())
        content = message.get("content", message.get("text"))
        if role is None:
            raise ImportInputError(
                refused(gettext_noop("%(where)s: `role` must be user or assistant."), where=where)
            )
        if not isinstance(content, str):
            raise ImportInputError(refused(NO_CONTENT, where=where))
        when = read_when(message.get("created_at"), message_at(position, "created_at"))
        message_id = str(message.get("id") or position)[:MESSAGE_ID_MAX_CHARS]
        messages.append(
            {
                "id": message_id,
                "role": role,
                # The extractor needs no secret, and a job's payload must not keep one.
                "content": redacted_statement(strip_nul(content), check(position - 1))[0],
                "created_at": when.isoformat() if when else "",
            }
        )
    if len({m["id"] for m in messages}) < len(messages):  # ids must name one message each
        for position, m in enumerate(messages, start=1):
            m["id"] = str(position)
    if not any(m["role"] == "user" and m["content"].strip() for m in messages):
        raise ImportInputError(
            refused(gettext_noop("Nothing to import: the transcript has no message from the user."))
        )
    return messages
