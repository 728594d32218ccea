"""Recall: the memories worth putting in front of the model for one query, within a token budget.

Candidates come from four places, always inside the caller's scope (`visible_to(actor)` or an
explicit namespace list) and `current(at=…)`:

* vector: the `CANDIDATES_PER_SOURCE` nearest entries by cosine distance of `embedding`. A large
  scope is served by the HNSW index with pgvector 0.8's iterative scan (a namespace filter cannot
  starve the result), a small one by the namespace index and an exact sort; the planner picks,
  because the scope reaches it as a literal list of namespace ids (see `_scope`).
* context: the same over `context_embedding` (one UNION ALL query with the vector search), the
  embedding of the turn an entry answers followed
  by the entry (`memory_core.search_context`; the statement itself when it has no context).
* keyword: BM25 over `search_vector` (statement weight A, context weight D), with term weights
  from per-namespace statistics kept by triggers on write and erase (`memory_core.lexical`); a
  term in more than 30% of the scope does not select candidates, it only adds its small weight.
* always-recall: pinned entries and the "profile" / "safety" categories, whatever the query.

Each candidate gets

    score = ( w_similarity * similarity     cosine similarity of the statement to the query, 0..1
          + w_context    * context         cosine similarity of context + statement, 0..1
          + w_keyword    * keyword         BM25 / the sum of the query terms' idf, capped at 1
          + w_time       * time            1 when the event or recorded time falls in the period
                                           the query names ("in March 2023", "last week"; read
                                           from `reference_date`, else `at`, else now), else 0
          + w_names      * names           share of the names in the query the statement mentions
          + w_recency    * recency         0.5 ** (age_days / half_life), age since last recall
                                           (or since it was recorded when never recalled)
          + w_importance * importance      the entry's 0..1 importance
          + w_confidence * confidence      the entry's 0..1 confidence
            ) / (the sum of the weights)       so the score stays within 0..1

Measured on the LoCoMo development conversations (`python -m bench locomo --ablate`, evidence
recall@10; docs/recall.md has the table): the ts_rank_cd design gave 0.646; BM25 from the
statistics alone gives 0.734 (keyword-only) and is the bulk of the gain (without it 0.482);
hybrid 0.741 with the old 0.6 / 0.4 weights, 0.760 (R@20 0.820) with the swept defaults below.
Time and names move R@5 by +0.005 / +0.011 and R@10 by nothing on LoCoMo (its
questions rarely name a period; both speakers are named everywhere); they are kept for the
questions that do (tests/api/test_recall_quality.py). There is no diversity step: MMR over the
top 20-60 candidates' embeddings (λ 0.5-0.95) and per-session caps were measured and none raised
R@20; the best MMR gave R@10 +0.010, within noise, for an extra embedding fetch per recall.

Tunables (Django settings, read on every call):

* `RECALL_WEIGHTS`: a dict with any of the keys of `DEFAULT_WEIGHTS`; missing keys keep their
  default. Recency, importance and confidence are tie-breakers worth 0.12 together, so a stale
  but relevant memory still beats a fresh irrelevant one. For a mostly CJK query while the local
  English model embeds it, similarity and context keep a third of their weight
  (`embedding_coverage.query_weights`); the breakdown still shows the components as measured.
* `RECALL_COMPONENTS`: the optional parts in use (`COMPONENTS`; all by default), for ablations.
* `RECALL_RECENCY_HALF_LIFE_DAYS`: default `DEFAULT_RECENCY_HALF_LIFE_DAYS`.

Candidates whose relevance is negligible (both similarities below `MIN_SIMILARITY` and keyword
below `MIN_KEYWORD`) are dropped unless they are always-recall. The budget is filled greedily:
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
from django.contrib.postgres.search import SearchQuery
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, transaction
from django.db.models import Q, Value
from django.utils import timezone
from pgvector.django import CosineDistance

from memory_core import embedding_coverage, lexical, query_signals, query_translation
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

# Relevance: keyword 0.7, similarity 0.3, context 0.2 is the best R@10 + R@20 of a LoCoMo sweep
# (docs/recall.md); the old 0.6 / 0.4 split gives 0.741 / 0.794 against 0.760 / 0.820.
DEFAULT_WEIGHTS: dict[str, float] = {
    "similarity": 0.3,
    "context": 0.2,
    "keyword": 0.7,
    "time": 0.1,
    "names": 0.1,
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
# The parts of the ranking that can be switched off (`RECALL_COMPONENTS`, for ablations).
COMPONENTS = ("context", "keyword", "time", "names")
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


def recall_components() -> frozenset[str]:
    """The optional parts of the ranking in use: `RECALL_COMPONENTS`, all of `COMPONENTS` by default."""
    configured = getattr(settings, "RECALL_COMPONENTS", None)
    enabled = frozenset(COMPONENTS if configured is None else configured)
    if enabled - set(COMPONENTS):
        raise ImproperlyConfigured(f"RECALL_COMPONENTS must be among {sorted(COMPONENTS)}.")
    return enabled


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
    """The weighted sum divided by the sum of the weights: the same order, and a score that stays
    within 0..1 whatever the weights (mem0's `threshold` and API clients compare it to one)."""
    total = sum(weights.values()) or 1.0
    return sum(weights[name] * components.get(name, 0.0) for name in weights) / total


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
    """A query already in tsquery syntax (`TermWeights.tsquery`), passed on as it is."""

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


@dataclass(frozen=True)
class CandidateQuery:
    """What the candidate searches compare entries with: the query's embedding and term weights."""

    embedding: list[float] | None = None
    weights: lexical.TermWeights = lexical.NO_TERMS

    @property
    def text_query(self) -> TsQuery | None:
        return TsQuery(self.weights.tsquery()) if self.weights.terms else None


def prepare_search(text: str) -> list[str]:
    """Turn on iterative HNSW scans for this transaction and parse `text` into query terms.

    One round trip. `set_config(…, true)` is `SET LOCAL`: call inside a transaction.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), "
            "set_config('hnsw.ef_search', %s, true), plainto_tsquery(%s::regconfig, %s)::text",
            [str(HNSW_EF_SEARCH), SEARCH_CONFIG, lexical.query_text(text)],
        )
        row = cursor.fetchone()
    return lexical.split_terms(row[2] if row else "")


def _annotated(qs: MemoryEntryQuerySet, search: CandidateQuery) -> Any:
    # The embeddings and the tsvector are large and not needed once scored.
    qs = qs.defer("embedding", "context_embedding", "search_vector", "search_context")
    if search.embedding is not None:
        qs = qs.annotate(
            distance=CosineDistance("embedding", search.embedding),
            context_distance=CosineDistance("context_embedding", search.embedding),
        )
    if search.weights.terms:
        qs = qs.annotate(bm25=lexical.bm25_expression(search.weights))
    return qs


def vector_candidates(scope: MemoryEntryQuerySet, *, search: CandidateQuery, k: int) -> list[MemoryEntry]:
    """The k nearest entries in scope; after `prepare_search`, in the same transaction.

    With iterative scans the HNSW index keeps searching until k rows pass the scope filter; for
    a small scope the planner prefers the namespace index and an exact sort (see `_scope`).
    """
    if search.embedding is None:
        return []
    qs = _annotated(scope.exclude(embedding__isnull=True), search)
    return list(qs.order_by("distance")[:k])


def context_candidates(scope: MemoryEntryQuerySet, *, search: CandidateQuery, k: int) -> list[MemoryEntry]:
    """The k entries whose context embedding (preceding turn + statement) is nearest the query."""
    if search.embedding is None:
        return []
    qs = _annotated(scope.exclude(context_embedding__isnull=True), search)
    return list(qs.order_by("context_distance")[:k])


def nearest_candidates(
    scope: MemoryEntryQuerySet, *, search: CandidateQuery, k: int, with_context: bool
) -> dict[str, list[MemoryEntry]]:
    """`vector_candidates` and `context_candidates` in one round trip (UNION ALL of the two sorts).

    Measured on LoCoMo: the separate context query made recall slower (docs/recall.md, Latency);
    one statement is compiled and sent once. An entry in both lists comes back twice, once per source.
    """
    if search.embedding is None:
        return {"vector": [], "context": []}
    nearest = _annotated(scope.exclude(embedding__isnull=True), search).annotate(source=Value("vector"))
    nearest = nearest.order_by("distance")[:k]
    if with_context:
        by_context = _annotated(scope.exclude(context_embedding__isnull=True), search)
        by_context = by_context.annotate(source=Value("context")).order_by("context_distance")[:k]
        nearest = nearest.union(by_context, all=True)
    found: dict[str, list[MemoryEntry]] = {"vector": [], "context": []}
    for entry in nearest:
        found[entry.source].append(entry)
    return found


def keyword_candidates(scope: MemoryEntryQuerySet, *, search: CandidateQuery, k: int) -> list[MemoryEntry]:
    """The k entries with the best BM25 score among those holding a query term (GIN index)."""
    text_query = search.text_query
    if text_query is None:
        return []
    qs = _annotated(scope.filter(search_vector=text_query), search)
    return list(qs.order_by("-bm25", "-recorded_at")[:k])


def always_candidates(scope: MemoryEntryQuerySet, *, search: CandidateQuery, k: int) -> list[MemoryEntry]:
    qs = _annotated(scope.filter(Q(pinned=True) | Q(category__in=ALWAYS_RECALL_CATEGORIES)), search)
    return list(qs.order_by("-pinned", "-importance", "-recorded_at")[:k])


# --- The service -----------------------------------------------------------------------------


def _scope(*, actor: Any, namespaces: list[Namespace] | None) -> tuple[MemoryEntryQuerySet | None, list[int]]:
    """The entries recall may use (None when there are none: no query needed) and their namespaces.

    For an actor the namespace ids are looked up first (one query) and added to `visible_to`,
    which still decides: a literal id list lets the planner use the namespace index and its
    per-namespace statistics, so a small namespace gets an exact scan and a large one the HNSW
    index, where `visible_to`'s OR of subqueries alone would scan the whole table. The ids also
    select the keyword statistics (`memory_core.lexical`).
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
            return None, []
        ids = list(dict.fromkeys(pk for pk, paused, _ in rows if not paused))
        return (MemoryEntry.objects.visible_to(actor).in_namespaces(ids) if ids else None), ids
    ids = list(
        Namespace.objects.filter(pk__in=[n.pk for n in namespaces or []], memory_paused=False).values_list(
            "pk", flat=True
        )
    )
    return (MemoryEntry.objects.in_namespaces(ids) if ids else None), ids


def _validate(
    *,
    budget_tokens: int,
    limit: int,
    at: datetime | None,
    types: list[str] | None,
    reference: datetime | None,
) -> None:
    errors: dict[str, list[str]] = {}
    if budget_tokens <= 0:
        errors["budget_tokens"] = ["Must be a positive number of tokens."]
    if not 1 <= limit <= MAX_LIMIT:
        errors["limit"] = [f"Must be between 1 and {MAX_LIMIT}."]
    if at is not None and timezone.is_naive(at):
        errors["at"] = ["Must include a time zone."]
    if reference is not None and timezone.is_naive(reference):
        errors["reference_date"] = ["Must include a time zone."]
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


@dataclass(frozen=True)
class QuerySignals:
    """What the query asks about besides its words (see `memory_core.query_signals`)."""

    period: query_signals.TimeRange | None = None
    names: tuple[str, ...] = ()
    weights: lexical.TermWeights = lexical.NO_TERMS


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
    where: Q | None = None,
    reference_date: datetime | None = None,
) -> RecallResult:
    """The memories for `query` within `budget_tokens`, ranked as the module docstring describes.

    Scope is `actor`'s visible entries, or `namespaces` for trusted callers that authorised them.
    A blank query still returns the always-recall entries. Dates in the query ("last week") are
    read relative to `reference_date`, else `at`, else now. With `record`, the recalled entries'
    access counts and the recall log are written (one UPDATE, one INSERT). About eight queries.
    `where` narrows the candidates before ranking (a caller's filter on dates, categories, metadata),
    so a filtered search still fills `limit`.
    """
    _validate(budget_tokens=budget_tokens, limit=limit, at=at, types=types, reference=reference_date)
    base, namespace_ids = _scope(actor=actor, namespaces=namespaces)
    text = " ".join((query or "").split())
    turn_ref = turn_ref or f"recall:{uuid.uuid4()}"
    scanned = dict.fromkeys(("vector", "context", "keyword", "always", "candidates", "relevant"), 0)
    if base is None:
        return RecallResult(items=[], prompt_block="", scanned=scanned, turn_ref=turn_ref)
    scope = base.current(at=at)
    if types:
        scope = scope.filter(type__in=types)
    if where is not None:
        scope = scope.filter(where)
    embedding = _query_embedding(text, query_embedding) if text else None
    now = at or timezone.now()
    enabled = recall_components()
    # Cross-language recall (RECALL_TRANSLATE_QUERY, off by default): memory_core.query_translation.
    translated = query_translation.translations(
        text if query_embedding is None else "", namespace_ids=namespace_ids, embed=_query_embedding
    )

    k = max(CANDIDATES_PER_SOURCE, limit)
    # One transaction: SET LOCAL needs it, and the recording then costs no second one.
    with transaction.atomic():
        sources: dict[str, list[MemoryEntry]] = {"vector": [], "context": [], "keyword": []}
        search = CandidateQuery()
        if embedding is not None:
            terms = prepare_search(text)
            weights = lexical.term_weights(namespace_ids=namespace_ids, terms=terms)
            search = CandidateQuery(
                embedding=embedding, weights=weights if "keyword" in enabled else lexical.NO_TERMS
            )
            sources.update(nearest_candidates(scope, search=search, k=k, with_context="context" in enabled))
            sources["keyword"] = keyword_candidates(scope, search=search, k=k)
        sources["always"] = always_candidates(scope, search=search, k=limit)

        signals = QuerySignals(
            period=query_signals.time_range(text, reference=reference_date or now)
            if "time" in enabled
            else None,
            names=query_signals.query_names(text) if "names" in enabled else (),
            weights=search.weights,
        )
        ranked = rank_candidates(
            sources,
            # the embedding weighs less for a query in a language the model does not read
            weights=embedding_coverage.query_weights(recall_weights(), text),
            half_life_days=recency_half_life_days(),
            now=now,
            signals=signals,
        )
        ranked = query_translation.with_translations(
            ranked, translated, scope=scope, namespace_ids=namespace_ids, always=sources["always"], k=k,
            components=enabled, signals=signals, now=now,
        )  # fmt: skip
        items = fill_budget(ranked, budget_tokens=budget_tokens, limit=limit)
        scanned.update({name: len(rows) for name, rows in sources.items()})
        scanned.update(
            candidates=len({entry.pk for rows in sources.values() for entry in rows}),
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


def _components(
    entry: MemoryEntry, *, signals: QuerySignals, half_life_days: float, now: datetime
) -> dict[str, float]:
    distance = getattr(entry, "distance", None)
    context_distance = getattr(entry, "context_distance", None)
    return {
        "similarity": _similarity(distance),
        "context": _similarity(context_distance),
        "keyword": lexical.normalised(float(getattr(entry, "bm25", 0.0) or 0.0), signals.weights),
        "time": query_signals.in_range((entry.valid_from, entry.recorded_at), signals.period),
        "names": query_signals.name_share(entry.content, signals.names),
        "recency": recency_score(
            last_seen=entry.last_accessed_at or entry.recorded_at, now=now, half_life_days=half_life_days
        ),
        "importance": float(entry.importance),
        "confidence": float(entry.confidence),
    }


def _similarity(distance: Any) -> float:
    return min(1.0, max(0.0, 1.0 - float(distance))) if distance is not None else 0.0


def rank_candidates(
    sources: dict[str, list[MemoryEntry]],
    *,
    weights: dict[str, float],
    half_life_days: float,
    now: datetime,
    signals: QuerySignals | None = None,
) -> list[RecalledMemory]:
    """Score the candidates of every source, drop the irrelevant, order them for the budget.

    Order: pinned, then the other always-recall entries, then everything else, each by score.
    """
    signals = signals or QuerySignals()
    found_by: dict[uuid.UUID, set[str]] = {}
    candidates: dict[uuid.UUID, MemoryEntry] = {}
    for name, rows in sources.items():
        for entry in rows:
            candidates.setdefault(entry.pk, entry)
            found_by.setdefault(entry.pk, set()).add(name)

    ranked: list[tuple[int, RecalledMemory]] = []
    for entry in candidates.values():
        components = _components(entry, signals=signals, half_life_days=half_life_days, now=now)
        always_recall = "always" in found_by[entry.pk]
        if not always_recall and not is_relevant(
            similarity=max(components["similarity"], components["context"]), keyword=components["keyword"]
        ):
            continue
        reasons = ["pinned" if entry.pinned else "always"] if always_recall else []
        reasons += [name for name in ("vector", "context") if name in found_by[entry.pk]]
        reasons += [name for name in ("keyword", "time", "names") if components[name] > 0]
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


def _record(result: RecallResult) -> None:
    """Access counts and the recall log in one statement (`memory_core.recall_log.record`)."""
    from memory_core.recall_log import record

    record(result)
