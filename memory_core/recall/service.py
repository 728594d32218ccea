"""Recall: the memories worth putting in front of the model for one query, within a token budget.

Candidates come from four places, always inside the caller's scope (`visible_to(actor)` or an
explicit namespace list) and `current(at=…)`, all four in one SQL statement (`fetch_candidates`):

* vector: the `CANDIDATES_PER_SOURCE` nearest entries by cosine distance of `embedding`. A large
  scope is served by the HNSW index with pgvector 0.8's iterative scan (a namespace filter cannot
  starve the result), a small one by the namespace index and an exact sort; the planner picks,
  because the scope reaches it as a literal list of namespace ids (see `recall_scope`).
* context: the same over `context_embedding`, the embedding of the turn an entry answers followed
  by the entry (`memory_core.search_context`; the statement itself when it has no context).
* keyword: BM25 over `search_vector` (statement weight A, context weight D), with term weights
  from per-namespace statistics kept by triggers on write and erase (`memory_core.lexical`); a
  term in more than 30% of the scope does not select candidates, it only adds its small weight.
* always-recall: pinned entries and the "profile" / "safety" categories, whatever the query.
* graph: the memories linked to the entities the query mentions and to their neighbours up to
  two hops (`memory_core.entities.recall`; docs/entities.md).

Each candidate gets

    score = ( w_similarity * similarity     cosine similarity of the statement to the query, 0..1
          + w_context    * context         cosine similarity of context + statement, 0..1
          + w_keyword    * keyword         BM25 / the sum of the query terms' idf, capped at 1
          + w_time       * time            1 when the event or recorded time falls in the period
                                           the query names ("in March 2023", "last week"; read
                                           from `reference_date`, else `at`, else now), else 0
          + w_names      * names           per name in the query: 1 when the statement names that
                                           person as its subject (first three words), 0.5 when it
                                           only mentions them; averaged over the names
          + w_recency    * recency         0.5 ** (age_days / half_life), age since last recall
                                           (or since it was recorded when never recalled)
          + w_importance * importance      the entry's 0..1 importance
          + w_confidence * confidence      the entry's 0..1 confidence
          + w_graph      * graph           1 for a memory about an entity the query mentions,
                                           less per hop away from one (0 when not reached)
            ) / (the sum of the weights)       so the score stays within 0..1

Measured on the LoCoMo development conversations (`python -m bench locomo --ablate`, evidence
recall@5/10/20; docs/recall.md has the tables): 0.693 / 0.776 / 0.847 with the defaults below
(the ts_rank_cd design before this ranking: 0.556 / 0.646 / 0.705). Each part's effect, the
others kept: BM25 from the statistics is the bulk (without the keyword part 0.466 / 0.568 /
0.655); the context similarity's weight +0.015 / +0.001 / +0.024 (the context candidate search
alone +0.000 / +0.000 / +0.002); names with the subject rule +0.011 / +0.042 / +0.032 (counting
every mention alike gave +0.011 / +0.000 / -0.006); time +0.000 / +0.005 / +0.000 (LoCoMo's
questions rarely name a period; kept for the questions that do, tests/api/test_recall_quality.py).
Diversity (MMR over the top 20-60, per-session caps), reciprocal-rank fusion, per-query min-max
normalisation, embedding feedback from the top results (Rocchio), a larger candidate pool
(100 per source) and other BM25 constants were measured and none moved R@20 by more than noise.

Cost (`python -m bench locomo_latency`, docs/performance.md): four statements per recall
(namespaces with the query's terms, term statistics, candidates, recall log) and no transaction;
the query embedding runs on a worker thread while the first two are read; candidates are ranked as
plain rows and only the recalled ones become model instances.

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

import functools
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from django.contrib.postgres.search import SearchQuery
from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connection
from django.db.models import Q, Value
from django.utils import timezone
from pgvector.django import CosineDistance

from memory_core import (
    embedding_coverage,
    lexical,
)
from memory_core.embeddings import vector_literal
from memory_core.entities import graph_cache
from memory_core.entities.recall import graph_question, graph_scores
from memory_core.errors import MemoryServiceError
from memory_core.models import (
    SEARCH_CONFIG,
    MemoryEntry,
    MemoryType,
    Namespace,
)
from memory_core.querysets import MemoryEntryQuerySet
from memory_core.recall import log as recall_log
from memory_core.recall import scope as recall_scope
from memory_core.recall import signals as query_signals
from memory_core.recall import translation as query_translation
from memory_core.recall.prompt import (
    fill_budget,
    fill_scored,
    render_prompt_block,
)
from memory_core.recall.query_embedding import embed, embed_async, wait
from memory_core.recall.scoring import (
    recall_components,
    recall_weights,
    recalled,
    recency_half_life_days,
    score_candidates,
)
from memory_core.recall.types import (
    RANKED_COLUMNS,
    Candidate,
    QuerySignals,
    RecalledMemory,
    RecallResult,
    from_micros,
)
from memory_core.round_trip import run_together
from memory_core.vector_storage import MEMORY_VECTOR_TYPE

ALWAYS_RECALL_CATEGORIES = ("profile", "safety")
# Rows taken from each of the vector and keyword searches before reranking.
CANDIDATES_PER_SOURCE = 50
# The graph source adds its best memories only: the rest of what it reached still gets its graph
# score when another source finds it, and loading and ranking fifty more rows cost more than they won.
GRAPH_CANDIDATES = 20
# A scope of at most this many entries is searched by one exact pass over its rows (see
# `fetch_candidates`); a bigger one by the planner's choice (the HNSW index for large ones).
EXACT_SCAN_MAX = 2000
# pgvector 0.8: keep walking the graph until enough rows pass the scope filter (relaxed order is
# fine because candidates are re-sorted here), with a candidate list larger than the default 40.
HNSW_EF_SEARCH = 100
MAX_LIMIT = 200


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


_HNSW_SETTINGS = (
    "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true)"
)


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
    a small scope the planner prefers the namespace index and an exact sort (see `recall_scope`).
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

    An entry in both lists comes back twice, once per source. (Recall itself uses `fetch_candidates`.)
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


# Loaded for every returned entry: all columns but the vectors and the search columns and their
# segmented copies (large, and not needed once scored; a caller that reads one gets it loaded as
# a deferred field).
_NOT_LOADED = frozenset(
    {
        "embedding",
        "context_embedding",
        "search_vector",
        "search_context",
        "search_text",
        "search_context_text",
    }
)
_ENTRY_TABLE = MemoryEntry._meta.db_table


def _time_column(column: str) -> str:
    """A timestamp column as whole microseconds since the epoch: exact, and read back by a C-level
    int and `timedelta` where psycopg's text timestamps go through a Python parser (Django's
    time-zone loader subclasses it). A recall reads about 500 of them, most for candidates it drops."""
    return f"(extract(epoch FROM {column}) * 1000000)::int8"


def _loaded_fields() -> list[Any]:
    return [f for f in MemoryEntry._meta.concrete_fields if f.name not in _NOT_LOADED]


def _is_time(field: Any) -> bool:
    return field.get_internal_type() == "DateTimeField"


def _select_list(fields: list[Any]) -> str:
    """The columns of `fields`, timestamps as microseconds (`_time_column`)."""
    quoted = (f"{_ENTRY_TABLE}.{connection.ops.quote_name(f.column)}" for f in fields)
    return ", ".join(
        _time_column(column) if _is_time(f) else column for f, column in zip(fields, quoted, strict=True)
    )


@functools.cache
def _ranked_select() -> str:
    """The candidates statement's columns (`RANKED_COLUMNS`); the same for every recall."""
    by_attname = {f.attname: f for f in MemoryEntry._meta.concrete_fields}
    return _select_list([by_attname[name] for name in RANKED_COLUMNS])


class _EntryReader(NamedTuple):
    """How a returned entry is read whole: the same for every recall, so made once."""

    fields: list[Any]
    attnames: list[str]
    select: str  # with the parameter %(loaded)s, the ids
    converters: list[tuple[int, list[Any]]]  # (column index, its converters), for columns with any


@functools.cache
def _entry_reader() -> _EntryReader:
    fields = _loaded_fields()
    select = f"SELECT {_select_list(fields)} FROM {_ENTRY_TABLE} WHERE id = ANY(%(loaded)s::uuid[])"  # noqa: S608
    converters = [(index, found) for index, found in enumerate(_converters(fields)) if found]
    return _EntryReader(fields, [f.attname for f in fields], select, converters)


def _load_entries(
    candidates: list[Candidate], *, turn_ref: str = "", logged: list[float] | None = None
) -> dict[uuid.UUID, MemoryEntry]:
    """The candidates' entries as model instances, by id (one statement; the columns not loaded
    are deferred). With `logged` (one score per candidate, in rank order) the same statement
    counts the access and writes the recall log (`recall_log.record_items`); the rows read are as they
    were before it, as a recall that reads first and records after would see them."""
    if not candidates:
        return {}
    reader = _entry_reader()
    params = {"loaded": [candidate.pk for candidate in candidates]}
    if logged is not None:
        items = [(c.namespace_id, c.pk, score) for c, score in zip(candidates, logged, strict=True)]
        rows = recall_log.record_items(turn_ref=turn_ref, items=items, then=reader.select, then_params=params)
    else:
        with connection.cursor() as cursor:
            cursor.execute(reader.select, params)
            rows = cursor.fetchall()
    entries: dict[uuid.UUID, MemoryEntry] = {}
    for row in rows:
        values = list(row)
        for index, field_converters in reader.converters:
            for converter in field_converters:
                values[index] = converter(values[index], reader.fields[index], connection)
        entry = MemoryEntry.from_db(connection.alias, reader.attnames, values)
        entries[entry.pk] = entry
    for candidate in candidates:
        if (loaded := entries.get(candidate.pk)) is not None:
            loaded.distance = candidate.distance  # type: ignore[attr-defined]
            loaded.context_distance = candidate.context_distance  # type: ignore[attr-defined]
            loaded.bm25 = candidate.bm25  # type: ignore[attr-defined]
    return entries


def _converters(fields: list[Any]) -> list[list[Any]]:
    converters: list[list[Any]] = []
    for model_field in fields:
        if _is_time(model_field):  # read as microseconds (`_time_column`)
            converters.append([lambda value, _field, _connection: from_micros(value)])
            continue
        col = model_field.get_col(_ENTRY_TABLE)
        converters.append(connection.ops.get_db_converters(col) + col.get_db_converters(connection))
    return converters


def _scope_where(scope: MemoryEntryQuerySet) -> tuple[str, list[Any]] | None:
    """The WHERE clause of a queryset of entries, compiled once by the ORM for the candidates
    statement's `scope` CTE; None when it is empty. A filter on the entry's own columns (and
    subqueries) is used as is; one that joins another table becomes `id IN (the queryset)`, since
    the CTE selects from the entry table alone."""
    query = scope.query
    try:
        if any(count for alias, count in query.alias_refcount.items() if alias != query.base_table):
            sql, params = scope.values("id").query.sql_with_params()
            return f"{_ENTRY_TABLE}.id IN ({sql})", list(params)
        sql, params = query.get_compiler(connection=connection).compile(query.where)
    except EmptyResultSet:
        return None
    except FullResultSet:  # an empty filter
        return "TRUE", []
    return (sql or "TRUE"), list(params)


def _and_where(
    first: tuple[str, list[Any]] | None, second: tuple[str, list[Any]] | None
) -> tuple[str, list[Any]] | None:
    """Both WHERE clauses (None, an empty scope, stays empty)."""
    if first is None or second is None:
        return None
    return f"({first[0]}) AND ({second[0]})", [*first[1], *second[1]]


# The query vector travels once, in the first CTE of the candidates statement: the searches and
# the scores refer to it (an index scan orders by it as by a constant); inlined at each use it made
# the statement four 5 KB literals longer to send and parse.
_VECTOR = "(SELECT v FROM query_vector)"


# The scope's WHERE clause is written once, in a CTE that PostgreSQL inlines into each search
# (NOT MATERIALIZED: every search is planned as if it had the clause itself, so each keeps its own
# index). Each search reads the CTE under the table's name, so that expressions written for the
# table (the BM25 score) read it unchanged. Written out in five searches, the clause and its
# parameters made the statement over 4 KB, past what psycopg caches the parsing of.
_IN_SCOPE = f"scope AS {_ENTRY_TABLE}"


def _scoped_part(
    source: str, condition: str, order: str, limit: int, params: list[Any]
) -> tuple[str, str, list[Any]]:
    """One candidate search: the scope's entries meeting `condition`, the first `limit` by `order`."""
    sql = f"SELECT id FROM {_IN_SCOPE} WHERE {condition} ORDER BY {order} LIMIT {int(limit)}"  # noqa: S608
    return source, sql, params


class _Nearest(NamedTuple):
    cte: str  # a CTE of the statement ("" for none)
    parts: list[tuple[str, str, list[Any]]]  # the searches, as `_scoped_part` makes them
    scores: list[str]  # the statement and context distances of an outer row
    joined: str  # what the outer query joins for them


def _nearest(*, k: int, with_context: bool, exact: bool) -> _Nearest:
    """The vector and context searches of the candidates statement. `exact`: both distances of
    each entry in the scope computed in one pass (`distances`), which both searches and the scores
    read; else each search is its own subquery, which the planner may serve by the HNSW index, and
    the scores are computed again for the candidates."""
    v = _VECTOR
    if exact:
        cte = (
            f"distances AS MATERIALIZED (SELECT id, embedding <=> {v} AS d, context_embedding <=> {v} AS cd "  # noqa: S608
            f"FROM {_IN_SCOPE}), "
        )
        searches = [("vector", "d")] + ([("context", "cd")] if with_context else [])
        parts: list[tuple[str, str, list[Any]]] = [
            (source, f"SELECT id FROM distances WHERE {col} IS NOT NULL ORDER BY {col} LIMIT {int(k)}", [])  # noqa: S608
            for source, col in searches
        ]
        joined = " LEFT JOIN distances ON distances.id = ids.id"
        return _Nearest(cte, parts, ["distances.d", "distances.cd"], joined)
    parts = [_scoped_part("vector", "embedding IS NOT NULL", f"embedding <=> {v}", k, [])]
    if with_context:
        condition, order = "context_embedding IS NOT NULL", f"context_embedding <=> {v}"
        parts.append(_scoped_part("context", condition, order, k, []))
    table = _ENTRY_TABLE
    return _Nearest("", parts, [f"{table}.embedding <=> {v}", f"{table}.context_embedding <=> {v}"], "")


def fetch_candidates(
    scope_where: tuple[str, list[Any]] | None,
    *,
    search: CandidateQuery,
    k: int,
    always_k: int,
    with_context: bool,
    graph_ids: list[uuid.UUID] | None = None,
    scope_size: int | None = None,
) -> list[Candidate]:
    """Every candidate source in one statement; each candidate with its scores and its sources.

    The vector, context, keyword and always-recall searches are the sorted, limited subqueries of
    `vector_candidates`, `context_candidates`, `keyword_candidates` and `always_candidates` over
    the scope's WHERE clause (`scope_where`, None for an empty scope), with the memories the
    entity graph reached (`graph_ids`, still filtered by the scope), joined by UNION ALL; the
    scores are computed once per distinct entry in the outer query and the rows come back as
    plain tuples. The HNSW settings `prepare_search` makes travel in the same query string (no
    transaction needed).

    A scope of at most `EXACT_SCAN_MAX` entries (`scope_size`, an upper bound) is searched
    exactly anyway (the planner sorts a small namespace rather than walk the HNSW graph): then
    both distances of each entry are computed in one pass over the scope (`distances`), which the
    vector and context searches and the scores all read, instead of two scans and a third
    computation for the candidates.
    """
    if scope_where is None:
        return []
    table = _ENTRY_TABLE
    parts: list[tuple[str, str, list[Any]]] = []

    def part(source: str, condition: str, order: str, limit: int, params: list[Any]) -> None:
        parts.append(_scoped_part(source, condition, order, limit, params))

    vector_text = vector_literal(search.embedding) if search.embedding is not None else None
    exact = scope_size is not None and scope_size <= EXACT_SCAN_MAX
    nearest = _nearest(k=k, with_context=with_context, exact=exact) if vector_text else None
    parts += nearest.parts if nearest is not None else []
    bm25 = lexical.bm25_expression(search.weights) if search.weights.terms else None
    if bm25 is not None:
        tsquery = search.weights.tsquery()
        part(
            "keyword",
            "search_vector @@ %s::tsquery",
            f"{bm25.sql} DESC, recorded_at DESC",
            k,
            [tsquery, *bm25.params],
        )
    if graph_ids and nearest is not None and nearest.cte:
        # The scope's rows are all in `distances` already: no search of the table to plan again.
        parts.append(("graph", "SELECT id FROM distances WHERE id = ANY(%s::uuid[])", [list(graph_ids)]))
    elif graph_ids:
        part("graph", "id = ANY(%s::uuid[])", "recorded_at DESC", len(graph_ids), [list(graph_ids)])
    part(
        "always",
        "(pinned OR category = ANY(%s))",
        "pinned DESC, importance DESC, recorded_at DESC",
        always_k,
        [list(ALWAYS_RECALL_CATEGORIES)],
    )
    found = " UNION ALL ".join(
        f"SELECT s{i}.id, '{source}' AS source FROM ({sql}) AS s{i}"  # noqa: S608 - no value in the text
        for i, (source, sql, _) in enumerate(parts)
    )
    where, where_params = scope_where
    params: list[Any] = [vector_text] if vector_text is not None else []
    params += where_params
    params += [p for _, _, part_params in parts for p in part_params]
    columns = _ranked_select()
    scores = ["NULL::float8", "NULL::float8", "NULL::float8"]
    if nearest is not None:
        scores[:2] = nearest.scores
    if bm25 is not None:
        scores[2] = bm25.sql
        params += list(bm25.params)
    query_vector = (
        ""
        if vector_text is None
        else f"query_vector AS MATERIALIZED (SELECT %s::{MEMORY_VECTOR_TYPE} AS v), "
    )
    grouped = "ids AS (SELECT id, array_agg(source) AS sources FROM found GROUP BY id)"
    sql = (
        # Table and column names from the model, the WHERE clause compiled by the ORM, values as parameters.
        f"WITH {query_vector}scope AS NOT MATERIALIZED (SELECT * FROM {table} WHERE ({where})), "  # noqa: S608
        f"{nearest.cte if nearest else ''}found AS ({found}), {grouped} "
        f"SELECT ids.sources, {', '.join(scores)}, {columns} "
        f"FROM ids JOIN {table} ON {table}.id = ids.id{nearest.joined if nearest else ''}"
    )
    with connection.cursor() as cursor:
        # The HNSW settings of `prepare_search` for this statement only: set_config(…, true) in the
        # same query string, which PostgreSQL runs as one (implicit) transaction when no explicit
        # one is open; inside a caller's transaction they last until it ends, as SET LOCAL does.
        cursor.execute(f"{_HNSW_SETTINGS}; {sql}", [str(HNSW_EF_SEARCH), *params])
        cursor.nextset()
        rows = cursor.fetchall()
    return [Candidate(row) for row in rows]


# --- The service -----------------------------------------------------------------------------


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



def _term_weights_and_graph(
    text: str,
    *,
    at: datetime | None,
    namespace_ids: list[int],
    terms: list[str],
    graph_versions: dict[int, int],
) -> tuple[lexical.TermWeights, dict[uuid.UUID, float]]:
    """The query terms' statistics and the entity graph's candidates (the entities the query
    mentions and their neighbours), while the query embedding is still being computed. The graphs
    are walked as `graph_cache` holds them; those it does not hold at their current version
    (`graph_versions`, for the namespaces whose graph knows anyone besides the user) are loaded
    in the term statistics' round trip. No graph is read when the query names no one; no round
    trip when neither read is needed."""
    weights = lexical.term_weights_read(namespace_ids=namespace_ids, terms=terms)
    question = graph_question(text) if graph_versions else None
    graphs, missing = graph_cache.cached(graph_versions) if question is not None else ([], [])
    load = graph_cache.load_read(missing) if missing else None
    results = iter(run_together([read for read in (weights, load) if read is not None]))
    term_weights = lexical.NO_TERMS if weights is None else next(results)
    if load is not None:
        graphs += next(results)
    if question is None:
        return term_weights, {}
    return term_weights, graph_scores(graphs, question, at=at)


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
    access counts and the recall log are written (one statement). Four round trips in all: the
    graph walk, when the query names someone the entity graph knows, travels with the term
    statistics when it is loaded (`_term_weights_and_graph`).
    `where` narrows the candidates before ranking (a caller's filter on dates, categories, metadata),
    so a filtered search still fills `limit`.
    """
    _validate(budget_tokens=budget_tokens, limit=limit, at=at, types=types, reference=reference_date)
    text = " ".join((query or "").split())
    enabled = recall_components()
    # The query embedding starts first, on a worker thread, and this one reads the namespaces, the
    # term statistics and the entity graph meanwhile (a refused or empty scope discards it).
    pending = embed_async(text, query_embedding) if text else None
    readable = recall_scope.read(
        actor=actor, namespaces=namespaces, terms_of=text if "keyword" in enabled else ""
    )
    namespace_ids, terms = readable.namespace_ids, readable.terms
    turn_ref = turn_ref or f"recall:{uuid.uuid4()}"
    scanned = dict.fromkeys(("vector", "context", "keyword", "graph", "always", "candidates", "relevant"), 0)
    if not namespace_ids:
        return RecallResult(items=[], prompt_block="", scanned=scanned, turn_ref=turn_ref)
    scope_where: tuple[str, list[Any]] | None = readable.where(at=at, types=types)
    if where is not None:
        scope_where = _and_where(scope_where, _scope_where(MemoryEntry.objects.filter(where)))
    now = at or timezone.now()
    # Cross-language recall (RECALL_TRANSLATE_QUERY, off by default): memory_core.recall.translation.
    translated = query_translation.translations(
        text if query_embedding is None else "", namespace_ids=namespace_ids, embed=embed
    )

    k = max(CANDIDATES_PER_SOURCE, limit)
    # No transaction of its own: every step is one statement (the candidates' HNSW settings
    # travel with them, see `fetch_candidates`), so recall costs no BEGIN / COMMIT round trips.
    search = CandidateQuery()
    weights, graph = _term_weights_and_graph(
        text,
        at=at,
        namespace_ids=namespace_ids,
        terms=terms if pending is not None and "keyword" in enabled else [],
        graph_versions=readable.graph_versions if "graph" in enabled else {},
    )
    if pending is not None:
        search = CandidateQuery(embedding=wait(pending), weights=weights)
    candidates = fetch_candidates(
        scope_where, search=search, k=k, always_k=limit, with_context="context" in enabled,
        graph_ids=sorted(graph, key=graph.__getitem__, reverse=True)[:GRAPH_CANDIDATES],
        scope_size=readable.size,
    )  # fmt: skip
    signals = QuerySignals(
        period=query_signals.time_range(text, reference=reference_date or now) if "time" in enabled else None,
        names=query_signals.query_names(text) if "names" in enabled else (),
        weights=search.weights,
        graph=graph,
    )
    scored = score_candidates(
        candidates,
        # the embedding weighs less for a query in a language the model does not read
        weights=embedding_coverage.query_weights(recall_weights(), text),
        half_life_days=recency_half_life_days(),
        now=now,
        signals=signals,
    )
    if translated:
        # The translations' own searches go through the ORM (off by default, see above).
        scope = readable.queryset(at=at, types=types)
        if where is not None:
            scope = scope.filter(where)
        items = _translated_items(
            scored, translated, budget_tokens=budget_tokens, limit=limit, scope=scope,
            namespace_ids=namespace_ids, k=k, components=enabled, signals=signals, now=now,
        )  # fmt: skip
        if record and items:
            recall_log.record_items(
                turn_ref=turn_ref, items=[(i.entry.namespace_id, i.entry.pk, i.score) for i in items]
            )
    else:
        chosen = fill_scored(scored, budget_tokens=budget_tokens, limit=limit)
        # The recalled entries read whole, with the access counts and the log written (when
        # `record`) by the same statement.
        logged = [score for _, score, *_ in chosen] if record else None
        entries = _load_entries([c for c, *_ in chosen], turn_ref=turn_ref, logged=logged)
        items = [
            recalled(candidate, score, components, entry=lambda c: entries[c.pk], line=line)
            for candidate, score, components, line in chosen
            if candidate.pk in entries  # erased since it was found
        ]
    for candidate in candidates:
        for name in candidate.sources:
            scanned[name] += 1
    scanned.update(candidates=len(candidates), relevant=len(scored))
    result = RecallResult(
        items=items,
        prompt_block=render_prompt_block([item.line for item in items]),
        scanned=scanned,
        turn_ref=turn_ref,
        tokens=sum(item.tokens for item in items),
    )
    return result


def _translated_items(
    scored: list[tuple[Candidate, float, dict[str, float]]],
    translated: list[Any],
    *,
    budget_tokens: int,
    limit: int,
    **search: Any,
) -> list[RecalledMemory]:
    """The rare path (translation on and needed): the query's ranking as model instances, merged
    with each translation's (memory_core.recall.translation), then the budget."""
    entries = _load_entries([candidate for candidate, _, _ in scored])
    ranked = [
        recalled(row, score, parts, entry=lambda c: entries[c.pk])
        for row, score, parts in scored
        if row.pk in entries
    ]
    always = [item.entry for item in ranked if {"always", "pinned"} & set(item.reasons)]
    ranked = query_translation.with_translations(ranked, translated, always=always, **search)
    return fill_budget(ranked, budget_tokens=budget_tokens, limit=limit)


