"""Recall: the memories worth putting in front of the model for one query, within a token budget.

Candidates come from three places, always inside the caller's scope (`visible_to(actor)` or an
explicit namespace list) and `current(at=…)`:

* vector: the `CANDIDATES_PER_SOURCE` nearest entries by cosine distance. A large scope is
  served by the HNSW index with pgvector 0.8's iterative scan (a namespace filter cannot starve
  the result), a small one by the namespace index and an exact sort; the planner picks, because
  the scope reaches it as a literal list of namespace ids (see `_scope`).
* keyword: PostgreSQL full text on `search_vector` ("english"). The query is parsed like the
  column (`plainto_tsquery`: "RF20260629001?" becomes 'rf20260629001'), its terms are OR-ed so
  one rare matching term suffices, and terms matching more than `KEYWORD_TERM_MAX_MATCHES`
  entries in scope are dropped as too common to discriminate (which also bounds the ranking
  work); ranked by `ts_rank_cd`.
* always-recall: pinned entries and the "profile" / "safety" categories, whatever the query.

Each candidate gets

    score = w_similarity * similarity      cosine similarity to the query, clamped to 0..1
          + w_keyword    * keyword         ts_rank_cd / the best ts_rank_cd among the candidates
          + w_recency    * recency         0.5 ** (age_days / half_life), age since last recall
                                           (or since it was recorded when never recalled)
          + w_importance * importance      the entry's 0..1 importance
          + w_confidence * confidence      the entry's 0..1 confidence

Tunables (Django settings, read on every call):

* `RECALL_WEIGHTS`: a dict with any of the keys of `DEFAULT_WEIGHTS`; missing keys keep their
  default. Similarity and keyword carry relevance; their 0.6 / 0.4 split sits in the middle of
  the plateau of a LoCoMo sweep (`python -m bench locomo --sweep`: 0.5-0.7 on similarity all
  give evidence recall@10 0.64-0.65, against 0.55 for BM25 and 0.46 for cosine alone).
  Recency, importance and confidence are tie-breakers worth 0.12 together, so a stale but
  relevant memory still beats a fresh irrelevant one.
* `RECALL_RECENCY_HALF_LIFE_DAYS`: default `DEFAULT_RECENCY_HALF_LIFE_DAYS`.

Candidates whose relevance is negligible (similarity below `MIN_SIMILARITY` and keyword below
`MIN_KEYWORD`) are dropped unless they are always-recall. The budget is filled greedily:
pinned, then the other always-recall entries, then the rest by score, each line costing about
`len(line) / 4` tokens; a line that does not fit is skipped, and the next, shorter ones may still.
The framing text around the lines (about 75 tokens) is not counted against the budget.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.db.models import F, Q, Value
from django.utils import timezone
from pgvector.django import CosineDistance

from memory_core.errors import MemoryServiceError
from memory_core.llm import MEMORIES_END, MEMORIES_START
from memory_core.models import (
    EMBEDDING_DIMENSIONS,
    SEARCH_CONFIG,
    MemoryEntry,
    MemoryType,
    Namespace,
    SourceKind,
)
from memory_core.querysets import MemoryEntryQuerySet

DEFAULT_WEIGHTS: dict[str, float] = {
    "similarity": 0.6,
    "keyword": 0.4,
    "recency": 0.05,
    "importance": 0.05,
    "confidence": 0.02,
}
DEFAULT_RECENCY_HALF_LIFE_DAYS = 30.0

ALWAYS_RECALL_CATEGORIES = ("profile", "safety")
# Rows taken from each of the vector and keyword searches before reranking.
CANDIDATES_PER_SOURCE = 50
# pgvector 0.8: keep walking the graph until enough rows pass the scope filter (relaxed order is
# fine because candidates are re-sorted here), with a candidate list larger than the default 40.
HNSW_EF_SEARCH = 100
# Below both of these a candidate is noise, not a weak match.
MIN_SIMILARITY = 0.2
MIN_KEYWORD = 0.05
# Query terms beyond this many are ignored; a term matching more entries than
# KEYWORD_TERM_MAX_MATCHES in scope is too common to be worth ranking (see `discriminating_terms`).
MAX_QUERY_TERMS = 16
KEYWORD_TERM_MAX_MATCHES = 1000
MAX_LIMIT = 200

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


@dataclass(frozen=True)
class RecalledMemory:
    entry: MemoryEntry
    score: float
    # The unweighted 0..1 components of the score (see the module docstring).
    breakdown: dict[str, float]
    # Why it is here: "pinned", "always" (profile / safety), "vector", "keyword".
    reasons: tuple[str, ...]
    line: str
    tokens: int


@dataclass
class RecallResult:
    items: list[RecalledMemory]
    prompt_block: str
    # Rows seen per source, distinct candidates, and those relevant enough to rank.
    scanned: dict[str, int]
    turn_ref: str = ""
    # Estimated tokens of the memory lines (the framing text comes on top).
    tokens: int = 0


# --- Pure helpers ----------------------------------------------------------------------------


def recall_weights() -> dict[str, float]:
    configured = getattr(settings, "RECALL_WEIGHTS", None) or {}
    unknown = set(configured) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise ImproperlyConfigured(
            f"RECALL_WEIGHTS has unknown keys {sorted(unknown)}; use {sorted(DEFAULT_WEIGHTS)}."
        )
    weights = {**DEFAULT_WEIGHTS, **{name: float(value) for name, value in configured.items()}}
    if any(value < 0 for value in weights.values()):
        raise ImproperlyConfigured("RECALL_WEIGHTS must not be negative.")
    return weights


def recency_half_life_days() -> float:
    value = float(getattr(settings, "RECALL_RECENCY_HALF_LIFE_DAYS", DEFAULT_RECENCY_HALF_LIFE_DAYS))
    if value <= 0:
        raise ImproperlyConfigured("RECALL_RECENCY_HALF_LIFE_DAYS must be positive.")
    return value


def recency_score(*, last_seen: datetime, now: datetime, half_life_days: float) -> float:
    """1.0 for just now, 0.5 after one half-life, and so on; never above 1 for future dates."""
    age_days = max(0.0, (now - last_seen).total_seconds() / 86400)
    return 0.5 ** (age_days / half_life_days)


def blend(components: dict[str, float], weights: dict[str, float]) -> float:
    return sum(weights[name] * components.get(name, 0.0) for name in weights)


def is_relevant(*, similarity: float, keyword: float) -> bool:
    return similarity >= MIN_SIMILARITY or keyword >= MIN_KEYWORD


def estimate_tokens(text: str) -> int:
    """About four characters per token for English, plus one for the line break."""
    return math.ceil(len(text) / 4) + 1


def single_line(text: str) -> str:
    """Content as one line: no memory can add lines (or close the block) in the prompt."""
    flat = " ".join(text.split())
    return flat.replace(MEMORIES_START, "(memories)").replace(MEMORIES_END, "(/memories)")


def memory_line(entry: MemoryEntry) -> str:
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


# --- Candidate searches ----------------------------------------------------------------------


class TsQuery(SearchQuery):
    """A query already in tsquery syntax (terms from `prepare_search`), passed on as it is."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text

    def as_sql(
        self,
        compiler: Any,
        connection: Any,
        function: str | None = None,
        template: str | None = None,
        arg_joiner: str | None = None,
        **extra_context: Any,
    ) -> Any:
        # A list, as Django's lookups concatenate parameter lists.
        return "%s::tsquery", [self.text]


def split_terms(tsquery_text: str) -> list[str]:
    """The terms of a `plainto_tsquery` result ("'refund' & 'rf20260629001'"), each a tsquery.

    plainto_tsquery parses and stems exactly as the generated column did ("RF20260629001?"
    becomes 'rf20260629001', stop words vanish) and joins terms with " & ", which cannot occur
    inside a quoted lexeme.
    """
    terms = [term for term in tsquery_text.split(" & ") if term.strip()]
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def any_term(terms: list[str]) -> TsQuery | None:
    """OR semantics: one matching term is enough (ranking prefers entries that match more)."""
    return TsQuery(" | ".join(terms)) if terms else None


def prepare_search(text: str) -> list[str]:
    """Turn on iterative HNSW scans for this transaction and parse `text` into query terms.

    One round trip. `set_config(…, true)` is `SET LOCAL`: call inside a transaction.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
            "set_config('hnsw.ef_search', %s, true), plainto_tsquery(%s::regconfig, %s)::text",
            [str(HNSW_EF_SEARCH), SEARCH_CONFIG, text],
        )
        row = cursor.fetchone()
    return split_terms(row[2] if row else "")


def discriminating_terms(scope: MemoryEntryQuerySet, terms: list[str]) -> list[str]:
    """The terms that match at least one and at most `KEYWORD_TERM_MAX_MATCHES` entries in scope.

    A term found in thousands of entries tells them apart no better than chance (BM25 would give
    it next to no weight), and ranking all of them would make keyword search cost grow with the
    namespace. One query: a capped count per term, each served by the GIN index.
    """
    if not terms:
        return []
    parts: list[str] = []
    params: list[Any] = []
    for number, term in enumerate(terms):
        matches = scope.filter(search_vector=TsQuery(term)).values("pk")[: KEYWORD_TERM_MAX_MATCHES + 1]
        sql, term_params = matches.query.sql_with_params()
        # Django compiled `sql`; only the term's position is put into the text here.
        parts.append(f"SELECT {number}, count(*) FROM ({sql}) AS term_{number}")  # noqa: S608
        params.extend(term_params)
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), params)
        counts = dict(cursor.fetchall())
    return [
        term for number, term in enumerate(terms) if 0 < counts.get(number, 0) <= KEYWORD_TERM_MAX_MATCHES
    ]


def _annotated(qs: MemoryEntryQuerySet, embedding: list[float] | None, text_query: TsQuery | None) -> Any:
    # The embedding and the tsvector are large and not needed once scored.
    qs = qs.defer("embedding", "search_vector")
    if embedding is not None:
        qs = qs.annotate(distance=CosineDistance("embedding", embedding))
    if text_query is not None:
        qs = qs.annotate(keyword_rank=SearchRank(F("search_vector"), text_query, cover_density=True))
    return qs


def vector_candidates(
    scope: MemoryEntryQuerySet, *, embedding: list[float], text_query: TsQuery | None, k: int
) -> list[MemoryEntry]:
    """The k nearest entries in scope; after `prepare_search`, in the same transaction.

    With iterative scans the HNSW index keeps searching until k rows pass the scope filter; for
    a small scope the planner prefers the namespace index and an exact sort (see `_scope`).
    """
    qs = _annotated(scope.exclude(embedding__isnull=True), embedding, text_query)
    return list(qs.order_by("distance")[:k])


def keyword_candidates(
    scope: MemoryEntryQuerySet, *, text_query: TsQuery | None, embedding: list[float] | None, k: int
) -> list[MemoryEntry]:
    if text_query is None:
        return []
    qs = _annotated(scope.filter(search_vector=text_query), embedding, text_query)
    return list(qs.order_by("-keyword_rank", "-recorded_at")[:k])


def always_candidates(
    scope: MemoryEntryQuerySet, *, embedding: list[float] | None, text_query: TsQuery | None, k: int
) -> list[MemoryEntry]:
    qs = _annotated(
        scope.filter(Q(pinned=True) | Q(category__in=ALWAYS_RECALL_CATEGORIES)), embedding, text_query
    )
    return list(qs.order_by("-pinned", "-importance", "-recorded_at")[:k])


# --- The service -----------------------------------------------------------------------------


def _scope(*, actor: Any, namespaces: list[Namespace] | None) -> MemoryEntryQuerySet | None:
    """The entries recall may use, or None when there are none (no query needed).

    For an actor the namespace ids are looked up first (one query) and added to `visible_to`,
    which still decides: a literal id list lets the planner use the namespace index and its
    per-namespace statistics, so a small namespace gets an exact scan and a large one the HNSW
    index, where `visible_to`'s OR of subqueries alone would scan the whole table.
    """
    if (actor is None) == (namespaces is None):
        raise MemoryServiceError("Recall needs either an actor or a list of namespaces, not both.")
    if actor is not None:
        # Pause is enforced here, not by each caller: a user who paused memory gets nothing
        # recalled, not even the procedures shared with them.
        owned = (
            Namespace.objects.owned_by(actor)
            .annotate(own=Value(True))
            .values_list("pk", "memory_paused", "own")
        )
        shared = Namespace.objects.shared_with(actor).annotate(own=Value(False))
        rows = list(owned.union(shared.values_list("pk", "memory_paused", "own")))
        if any(paused and own for _, paused, own in rows):
            return None
        ids = list(dict.fromkeys(pk for pk, paused, _ in rows if not paused))
        return MemoryEntry.objects.visible_to(actor).in_namespaces(ids) if ids else None
    ids = list(
        Namespace.objects.filter(pk__in=[n.pk for n in namespaces or []], memory_paused=False).values_list(
            "pk", flat=True
        )
    )
    return MemoryEntry.objects.in_namespaces(ids) if ids else None


def _validate(*, budget_tokens: int, limit: int, at: datetime | None, types: list[str] | None) -> None:
    errors: dict[str, list[str]] = {}
    if budget_tokens <= 0:
        errors["budget_tokens"] = ["Must be a positive number of tokens."]
    if not 1 <= limit <= MAX_LIMIT:
        errors["limit"] = [f"Must be between 1 and {MAX_LIMIT}."]
    if at is not None and timezone.is_naive(at):
        errors["at"] = ["Must include a time zone."]
    if types and set(types) - set(MemoryType.values):
        errors["types"] = [f"Must be among {', '.join(MemoryType.values)}."]
    if errors:
        raise MemoryServiceError("Invalid recall request.", field_errors=errors)


def _query_embedding(text: str, given: list[float] | None) -> list[float]:
    if given is None:
        from memory_core.embeddings import get_embedder

        return get_embedder().embed_query(text)
    embedding = [float(x) for x in given]
    if len(embedding) != EMBEDDING_DIMENSIONS:
        raise MemoryServiceError(f"query_embedding must have {EMBEDDING_DIMENSIONS} dimensions.")
    return embedding


def memory_recall(
    *,
    actor: Any = None,
    namespaces: list[Namespace] | None = None,
    query: str,
    budget_tokens: int = 800,
    limit: int = 20,
    at: datetime | None = None,
    types: list[str] | None = None,
    turn_ref: str = "",
    record: bool = True,
    query_embedding: list[float] | None = None,
) -> RecallResult:
    """The memories for `query` within `budget_tokens`, ranked as the module docstring describes.

    Scope is `actor`'s visible entries, or `namespaces` for trusted callers that authorised them.
    A blank query still returns the always-recall entries. With `record`, the recalled entries'
    access counts and the recall log are written (one UPDATE, one INSERT). About eight queries.
    """
    _validate(budget_tokens=budget_tokens, limit=limit, at=at, types=types)
    base = _scope(actor=actor, namespaces=namespaces)
    text = " ".join((query or "").split())
    turn_ref = turn_ref or f"recall:{uuid.uuid4()}"
    scanned = dict.fromkeys(("vector", "keyword", "always", "candidates", "relevant"), 0)
    if base is None:
        return RecallResult(items=[], prompt_block="", scanned=scanned, turn_ref=turn_ref)
    scope = base.current(at=at)
    if types:
        scope = scope.filter(type__in=types)
    embedding = _query_embedding(text, query_embedding) if text else None

    k = max(CANDIDATES_PER_SOURCE, limit)
    # One transaction: SET LOCAL needs it, and the recording then costs no second one.
    with transaction.atomic():
        vector: list[MemoryEntry] = []
        keyword: list[MemoryEntry] = []
        text_query: TsQuery | None = None
        if embedding is not None:
            text_query = any_term(discriminating_terms(scope, prepare_search(text)))
            vector = vector_candidates(scope, embedding=embedding, text_query=text_query, k=k)
            keyword = keyword_candidates(scope, text_query=text_query, embedding=embedding, k=k)
        always = always_candidates(scope, embedding=embedding, text_query=text_query, k=limit)

        ranked = rank_candidates(
            {"vector": vector, "keyword": keyword, "always": always},
            weights=recall_weights(),
            half_life_days=recency_half_life_days(),
            now=at or timezone.now(),
        )
        items = fill_budget(ranked, budget_tokens=budget_tokens, limit=limit)
        scanned.update(
            vector=len(vector),
            keyword=len(keyword),
            always=len(always),
            candidates=len({entry.pk for entry in [*vector, *keyword, *always]}),
            relevant=len(ranked),
        )
        result = RecallResult(
            items=items,
            prompt_block=render_prompt_block([item.line for item in items]),
            scanned=scanned,
            turn_ref=turn_ref,
            tokens=sum(item.tokens for item in items),
        )
        if record and items:
            _record(result)
    return result


def rank_candidates(
    sources: dict[str, list[MemoryEntry]], *, weights: dict[str, float], half_life_days: float, now: datetime
) -> list[RecalledMemory]:
    """Score the candidates of every source, drop the irrelevant, order them for the budget.

    Order: pinned, then the other always-recall entries, then everything else, each by score.
    """
    found_by: dict[uuid.UUID, set[str]] = {}
    candidates: dict[uuid.UUID, MemoryEntry] = {}
    for name, rows in sources.items():
        for entry in rows:
            candidates.setdefault(entry.pk, entry)
            found_by.setdefault(entry.pk, set()).add(name)
    best_rank = max((_keyword_rank(entry) for entry in candidates.values()), default=0.0)

    ranked: list[tuple[int, RecalledMemory]] = []
    for entry in candidates.values():
        distance = getattr(entry, "distance", None)
        rank = _keyword_rank(entry)
        components = {
            "similarity": min(1.0, max(0.0, 1.0 - float(distance))) if distance is not None else 0.0,
            "keyword": rank / best_rank if best_rank > 0 else 0.0,
            "recency": recency_score(
                last_seen=entry.last_accessed_at or entry.recorded_at, now=now, half_life_days=half_life_days
            ),
            "importance": float(entry.importance),
            "confidence": float(entry.confidence),
        }
        always_recall = "always" in found_by[entry.pk]
        if not always_recall and not is_relevant(
            similarity=components["similarity"], keyword=components["keyword"]
        ):
            continue
        reasons = ["pinned" if entry.pinned else "always"] if always_recall else []
        if "vector" in found_by[entry.pk]:
            reasons.append("vector")
        if rank > 0:
            reasons.append("keyword")
        line = memory_line(entry)
        item = RecalledMemory(
            entry=entry,
            score=round(blend(components, weights), 6),
            breakdown={name: round(value, 6) for name, value in components.items()},
            reasons=tuple(reasons),
            line=line,
            tokens=estimate_tokens(line),
        )
        tier = 0 if entry.pinned else 1 if always_recall else 2
        ranked.append((tier, item))
    ranked.sort(key=lambda pair: (pair[0], -pair[1].score))
    return [item for _, item in ranked]


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


def _keyword_rank(entry: MemoryEntry) -> float:
    return float(getattr(entry, "keyword_rank", 0.0) or 0.0)


def _record(result: RecallResult) -> None:
    """Access counts and the recall log in one statement (`memory_core.recall_log.record`)."""
    from memory_core.recall_log import record

    record(result)
