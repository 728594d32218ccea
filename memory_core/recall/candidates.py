"""Recall's candidate search: every source in one SQL statement, rows ranked as plain tuples."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NamedTuple

from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connection
from django.db.models.expressions import RawSQL

from memory_core import lexical
from memory_core.choices import ALWAYS_RECALL_CATEGORIES
from memory_core.embeddings import vector_literal
from memory_core.models import SEARCH_CONFIG, MemoryEntry
from memory_core.querysets import MemoryEntryQuerySet
from memory_core.recall import log as recall_log
from memory_core.recall.types import RANKED_COLUMNS, Candidate, from_micros
from memory_core.vector_storage import MEMORY_VECTOR_TYPE

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


@dataclass(frozen=True)
class CandidateQuery:
    """What the candidate searches compare entries with: the query's embedding and term weights."""

    embedding: list[float] | None = None
    weights: lexical.TermWeights = lexical.NO_TERMS

    @functools.cached_property
    def vector_text(self) -> str | None:
        """The embedding as the statements send it, written once per recall (5 KB of text)."""
        return vector_literal(self.embedding) if self.embedding is not None else None


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


def load_entries(
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


def where_of(scope: MemoryEntryQuerySet) -> tuple[str, list[Any]] | None:
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


def and_where(
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

    The searches are sorted, limited subqueries over the scope's WHERE clause (`scope_where`, None
    for an empty scope): the `k` nearest by the statement's and (`with_context`) the context's
    embedding, the `k` best by BM25 among the entries holding a query term (GIN index), the
    memories the entity graph reached (`graph_ids`, still filtered by the scope) and the first
    `always_k` pinned or always-recall entries (none for 0), joined by UNION ALL. A source is left
    out when the query cannot feed it (no embedding, no terms). The scores are computed once per
    distinct entry in the outer query and the rows come back as plain tuples. The HNSW settings
    travel in the same query string (no transaction needed).

    A scope of at most `EXACT_SCAN_MAX` entries (`scope_size`, an upper bound) is searched
    exactly anyway (the planner sorts a small namespace rather than walk the HNSW graph): then
    both distances of each entry are computed in one pass over the scope (`distances`), which the
    vector and context searches and the scores all read, instead of two scans and a third
    computation for the candidates.
    """
    if scope_where is None:
        return []
    parts: list[tuple[str, str, list[Any]]] = []

    def part(source: str, condition: str, order: str, limit: int, params: list[Any]) -> None:
        parts.append(_scoped_part(source, condition, order, limit, params))

    vector_text = search.vector_text
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
    if always_k:
        part(
            "always",
            "(pinned OR category = ANY(%s))",
            "pinned DESC, importance DESC, recorded_at DESC",
            always_k,
            [list(ALWAYS_RECALL_CATEGORIES)],
        )
    if not parts:
        return []
    found = " UNION ALL ".join(
        f"SELECT s{i}.id, '{source}' AS source FROM ({sql}) AS s{i}"  # noqa: S608 - no value in the text
        for i, (source, sql, _) in enumerate(parts)
    )
    found_params = [p for _, _, part_params in parts for p in part_params]
    return _scored_rows(
        scope_where, (found, found_params), vector_text=vector_text, nearest=nearest, bm25=bm25
    )


def _scored_rows(
    scope_where: tuple[str, list[Any]],
    found: tuple[str, list[Any]],
    *,
    vector_text: str | None,
    nearest: _Nearest | None,
    bm25: RawSQL | None,
    hnsw: bool = True,
) -> list[Candidate]:
    """The entries `found` selects (SQL over the `scope` CTE giving `id, source` rows, and its
    parameters) once each, with their sources and scores, in one statement. `hnsw`: with the
    index scan settings (for a nearest-neighbour search)."""
    table = _ENTRY_TABLE
    where, where_params = scope_where
    params: list[Any] = [vector_text] if vector_text is not None else []
    params += where_params
    params += found[1]
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
        f"{nearest.cte if nearest else ''}found AS ({found[0]}), {grouped} "
        f"SELECT ids.sources, {', '.join(scores)}, {columns} "
        f"FROM ids JOIN {table} ON {table}.id = ids.id{nearest.joined if nearest else ''}"
    )
    with connection.cursor() as cursor:
        if hnsw:
            # The HNSW settings of `prepare_search` for this statement only: set_config(…, true) in
            # the same query string, which PostgreSQL runs as one (implicit) transaction when no
            # explicit one is open; inside a caller's transaction they last until it ends, as SET LOCAL does.
            cursor.execute(f"{_HNSW_SETTINGS}; {sql}", [str(HNSW_EF_SEARCH), *params])
            cursor.nextset()
        else:
            cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [Candidate(row) for row in rows]


# The source label of the turns said next to the `i`th hit (`fetch_neighbours`).
NEIGHBOUR_SOURCE = "neighbour:{}"
# Each side of a hit, read through the (namespace, recorded_at, id) index: the row comparison and
# the bound on recorded_at are one range of it.
_BESIDE = (
    "SELECT n.id, 'neighbour:' || (h.i - 1) AS source "  # noqa: S608 - table name from the model
    "FROM unnest(%s::uuid[], %s::timestamptz[], %s::int[]) WITH ORDINALITY AS h(id, at, ns, i) "
    f"CROSS JOIN LATERAL (SELECT id FROM {_IN_SCOPE} WHERE namespace_id = h.ns AND said_as_turn "
    "AND (recorded_at, id) {sign} (h.at, h.id) AND recorded_at {within} h.at {op} %s::interval "
    "ORDER BY recorded_at {order}, id {order} LIMIT %s) AS n"
)


def fetch_neighbours(
    scope_where: tuple[str, list[Any]] | None,
    *,
    search: CandidateQuery,
    hits: list[Candidate],
    span: int,
    window: timedelta,
) -> list[Candidate]:
    """The turns in scope said just before and after each of `hits` (turns themselves): up to
    `span` on each side, in the order the client added them to the hit's namespace and recorded
    within `window` of it, as the candidates statement scores them. A row's sources name the hits
    it is next to (`NEIGHBOUR_SOURCE` with the hit's index). One statement; the scores computed
    for these rows alone."""
    if scope_where is None or not hits:
        return []
    each = [[hit.pk for hit in hits], [hit.recorded_at for hit in hits], [hit.namespace_id for hit in hits]]
    before = _BESIDE.format(sign="<", within=">=", op="-", order="DESC")
    after = _BESIDE.format(sign=">", within="<=", op="+", order="ASC")
    found = (f"{before} UNION ALL {after}", [*each, window, span, *each, window, span])
    vector_text = search.vector_text
    # Both distances of these rows alone (the nearest-search parts are not used).
    nearest = _nearest(k=1, with_context=True, exact=False) if vector_text else None
    bm25 = lexical.bm25_expression(search.weights) if search.weights.terms else None
    return _scored_rows(scope_where, found, vector_text=vector_text, nearest=nearest, bm25=bm25, hnsw=False)
