"""What recall's steps hand each other: the query's signals, candidate rows, recalled items, the result."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_core import lexical
from memory_core.models import MemoryEntry
from memory_core.recall.signals import TimeRange


@dataclass(frozen=True)
class QuerySignals:
    """What the query asks about besides its words (see `memory_core.recall.signals`)."""

    period: TimeRange | None = None
    names: tuple[str, ...] = ()
    weights: lexical.TermWeights = lexical.NO_TERMS
    # Memory id → score of the entities the query mentions and their neighbours (`entities.recall`).
    graph: dict[uuid.UUID, float] = field(default_factory=dict)


# What ranking reads of a candidate, by the model's attribute names (see `Candidate`); the
# candidates statement selects them in this order.
RANKED_COLUMNS = (
    "id",
    "content",
    "type",
    "source_kind",
    "is_inference",
    "valid_from",
    "recorded_at",
    "last_accessed_at",
    "importance",
    "confidence",
    "pinned",
    "namespace_id",
    "said_as_turn",
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_micros(value: int | None) -> datetime | None:
    """A timestamp read as whole microseconds since the epoch (`candidates.time_column`)."""
    return None if value is None else _EPOCH + timedelta(microseconds=value)


class Candidate:
    """One candidate row, ranked without building a model instance: the columns the ranking, the
    prompt line and the recall log read (named as on `MemoryEntry`), its scores and the sources
    that found it. Only the entries recall returns are read whole (`candidates.load_entries`):
    most candidates are dropped, and their other columns (the conversation turn, metadata,
    provenance) were most of the statement's bytes."""

    __slots__ = (*RANKED_COLUMNS, "pk", "distance", "context_distance", "bm25", "sources")

    id: uuid.UUID
    pk: uuid.UUID
    content: str
    type: str
    source_kind: str
    is_inference: bool
    valid_from: datetime
    recorded_at: datetime
    last_accessed_at: datetime | None
    importance: float
    confidence: float
    pinned: bool
    namespace_id: int
    said_as_turn: bool
    distance: float | None
    context_distance: float | None
    bm25: float | None
    sources: set[str]

    def __init__(self, row: tuple[Any, ...]) -> None:
        # In `RANKED_COLUMNS` order (a hundred candidates per recall: no loop over the names).
        (
            sources, self.distance, self.context_distance, self.bm25,
            self.id, self.content, self.type, self.source_kind, self.is_inference,
            valid_from, recorded_at, last_accessed_at,
            self.importance, self.confidence, self.pinned, self.namespace_id, self.said_as_turn,
        ) = row  # fmt: skip
        self.sources = set(sources)
        self.valid_from = _EPOCH + timedelta(microseconds=valid_from)
        self.recorded_at = _EPOCH + timedelta(microseconds=recorded_at)
        self.last_accessed_at = from_micros(last_accessed_at)
        self.pk = self.id


@dataclass(frozen=True)
class RecalledMemory:
    entry: MemoryEntry
    score: float
    # The unweighted 0..1 components of the score (`scoring.components`).
    breakdown: dict[str, float]
    # Why it is here: "pinned", "always" (profile / safety), "vector", "keyword", "neighbour" (said
    # next to one of the best hits), …
    reasons: tuple[str, ...]
    line: str
    tokens: int


@dataclass
class RecallResult:
    # The memories that answer the query, best first, at most `limit` (and within the caller's
    # budget, when one was given).
    items: list[RecalledMemory]
    prompt_block: str
    # Rows seen per source, distinct candidates, and those relevant enough to rank.
    scanned: dict[str, int]
    turn_ref: str = ""
    # Estimated tokens of the memory lines (the framing text comes on top).
    tokens: int = 0
    # The always-recall entries (pinned first, then safety and profile) not among `items`:
    # delivered apart, in the prompt block before the items, never taking a ranked slot.
    always: list[RecalledMemory] = field(default_factory=list)
    # Ranked items within `limit` that the caller's budget left out.
    trimmed: int = 0
