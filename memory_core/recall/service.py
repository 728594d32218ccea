"""Recall's entry point, `memory_recall`: the memories for one query within a token budget.

How it searches and ranks, and what each part is worth: docs/recall.md."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from memory_core import (
    embedding_coverage,
    lexical,
    term_vectors,
)
from memory_core.actors import Actor
from memory_core.entities import graph_cache
from memory_core.entities.recall import graph_question, graph_scores
from memory_core.errors import MemoryServiceError
from memory_core.models import (
    MemoryEntry,
    MemoryType,
    Namespace,
)
from memory_core.recall import log as recall_log
from memory_core.recall import scope as recall_scope
from memory_core.recall import signals as query_signals
from memory_core.recall import translation as query_translation
from memory_core.recall.candidates import (
    CANDIDATES_PER_SOURCE,
    GRAPH_CANDIDATES,
    CandidateQuery,
    and_where,
    fetch_candidates,
    load_entries,
    where_of,
)
from memory_core.recall.neighbours import with_neighbours
from memory_core.recall.prompt import (
    fill_budget,
    fill_scored,
    memory_line,
    render_prompt_block,
)
from memory_core.recall.query_embedding import embed, embed_async, wait
from memory_core.recall.scoring import (
    answers,
    recall_components,
    recall_weights,
    recalled,
    recency_half_life_days,
    score_candidates,
)
from memory_core.recall.types import (
    Candidate,
    QuerySignals,
    RecalledMemory,
    RecallResult,
)
from memory_core.round_trip import run_together

MAX_LIMIT = 200


def _validate(
    *,
    budget_tokens: int | None,
    limit: int,
    at: datetime | None,
    types: list[str] | None,
    reference: datetime | None,
) -> None:
    errors: dict[str, list[str]] = {}
    if budget_tokens is not None and budget_tokens <= 0:
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
    related: bool = False,
) -> tuple[lexical.TermWeights, dict[uuid.UUID, float]]:
    """The query terms' statistics and the entity graph's candidates (the entities the query
    mentions and their neighbours), while the query embedding is still being computed. The graphs
    are walked as `graph_cache` holds them; those it does not hold at their current version
    (`graph_versions`, for the namespaces whose graph knows anyone besides the user) are brought
    up to date in the term statistics' round trip. With `related`, the scope's words related to the query's
    come in the same round trip (`memory_core.term_vectors`). No graph is read when the query
    names no one; no round trip when no read is needed."""
    weights = lexical.term_weights_read(namespace_ids=namespace_ids, terms=terms)
    near = term_vectors.related_read(namespace_ids=namespace_ids, terms=terms) if related else None
    question = graph_question(text) if graph_versions else None
    graphs, loads = graph_cache.cached(graph_versions) if question is not None else ([], [])
    results = iter(run_together([read for read in (weights, near) if read is not None] + loads))
    term_weights = lexical.NO_TERMS if weights is None else next(results)
    if near is not None:
        term_weights = term_vectors.with_related(term_weights, next(results))
    for loaded in results:
        graphs += loaded
    if question is None:
        return term_weights, {}
    return term_weights, graph_scores(graphs, question, at=at)


def memory_recall(
    *,
    actor: Actor = None,
    namespaces: list[Namespace] | None = None,
    query: str,
    budget_tokens: int | None = None,
    limit: int = 20,
    at: datetime | None = None,
    types: list[str] | None = None,
    turn_ref: str = "",
    record: bool = True,
    query_embedding: list[float] | None = None,
    where: Q | None = None,
    reference_date: datetime | None = None,
) -> RecallResult:
    """The memories that answer `query`, ranked as docs/recall.md describes: at most `limit`, and
    within `budget_tokens` when the caller gives one (`trimmed` says how many it left out). The
    always-recall entries come apart (`always`, and first in the prompt block), never in a ranked
    slot.

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
    scanned = dict.fromkeys(
        ("vector", "context", "keyword", "graph", "always", "neighbour", "candidates", "relevant"), 0
    )
    if not namespace_ids:
        return RecallResult(items=[], prompt_block="", scanned=scanned, turn_ref=turn_ref)
    scope_where: tuple[str, list[Any]] | None = readable.where(at=at, types=types)
    if where is not None:
        scope_where = and_where(scope_where, where_of(MemoryEntry.objects.filter(where)))
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
        # the related words' vectors mean nothing in a language the model does not read
        related="related" in enabled and embedding_coverage.embedding_serves(text),
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
    # the embedding weighs less for a query in a language the model does not read
    weights_now = embedding_coverage.query_weights(recall_weights(), text)
    half_life = recency_half_life_days()
    scored = score_candidates(
        candidates, weights=weights_now, half_life_days=half_life, now=now, signals=signals
    )
    if "neighbour" in enabled:
        scored = with_neighbours(
            scored, scope_where=scope_where, search=search, signals=signals, weights=weights_now,
            half_life_days=half_life, now=now,
        )  # fmt: skip
    if translated:
        items = _translated_items(
            scored, translated, budget_tokens=budget_tokens, limit=limit, scope_where=scope_where,
            scope_size=readable.size, namespace_ids=namespace_ids, k=k, components=enabled,
            signals=signals, now=now,
        )  # fmt: skip
        always = _always(scored, taken={item.entry.pk for item in items})
        if record and (items or always):
            recall_log.record_items(
                turn_ref=turn_ref,
                items=[(i.entry.namespace_id, i.entry.pk, i.score) for i in (*items, *always)],
            )
        trimmed = 0
    else:
        answering = [row for row in scored if answers(row[2])]
        chosen = fill_scored(answering, budget_tokens=budget_tokens or UNBOUNDED, limit=limit)
        trimmed = min(limit, len(answering)) - len(chosen) if budget_tokens else 0
        taken = {candidate.pk for candidate, *_ in chosen}
        apart = [(c, score, parts, memory_line(c)) for c, score, parts in _always_rows(scored, taken)]
        # The recalled entries read whole, with the access counts and the log written (when
        # `record`) by the same statement.
        delivered = chosen + apart
        logged = [score for _, score, *_ in delivered] if record else None
        entries = load_entries([c for c, *_ in delivered], turn_ref=turn_ref, logged=logged)
        items, always = (
            [
                recalled(candidate, score, components, entry=lambda c: entries[c.pk], line=line)
                for candidate, score, components, line in rows
                if candidate.pk in entries  # erased since it was found
            ]
            for rows in (chosen, apart)
        )
    for candidate in candidates:
        for name in candidate.sources:
            scanned[name] += 1
    # the turns next to the best hits that no search had found
    scanned["neighbour"] = sum(1 for candidate, _, _ in scored if candidate.sources == {"neighbour"})
    scanned.update(candidates=len(candidates), relevant=len(scored))
    return RecallResult(
        items=items,
        always=always,
        trimmed=trimmed,
        prompt_block=render_prompt_block([item.line for item in _prompt_order(always, items)]),
        scanned=scanned,
        turn_ref=turn_ref,
        tokens=sum(item.tokens for item in (*always, *items)),
    )


def _prompt_order(always: list[RecalledMemory], items: list[RecalledMemory]) -> list[RecalledMemory]:
    """The prompt block's order: every pinned entry first, whether the query ranked it among the
    items or it came apart (a safety fact leads the prompt whatever was asked), then the other
    always-recall entries, then the ranked items."""
    pinned = [item for item in (*always, *items) if item.entry.pinned]
    return [*pinned, *(item for item in (*always, *items) if not item.entry.pinned)]


# Always-recall entries delivered with one answer, pinned first (they come on top of `limit`).
ALWAYS_LIMIT = 20
UNBOUNDED = 10**9  # no caller budget: `limit` alone bounds the items


def _always_rows(
    scored: list[tuple[Candidate, float, dict[str, float]]], taken: set[uuid.UUID]
) -> list[tuple[Candidate, float, dict[str, float]]]:
    rows = [row for row in scored if "always" in row[0].sources and row[0].pk not in taken]
    return sorted(rows, key=lambda row: (not row[0].pinned, -row[1]))[:ALWAYS_LIMIT]


def _always(
    scored: list[tuple[Candidate, float, dict[str, float]]], taken: set[uuid.UUID]
) -> list[RecalledMemory]:
    """The always-recall entries as recalled items (the translated path, which logs its own)."""
    rows = _always_rows(scored, taken)
    entries = load_entries([candidate for candidate, _, _ in rows])
    return [
        recalled(row, score, parts, entry=lambda c: entries[c.pk])
        for row, score, parts in rows
        if row.pk in entries
    ]


def _translated_items(
    scored: list[tuple[Candidate, float, dict[str, float]]],
    translated: list[Any],
    *,
    budget_tokens: int | None,
    limit: int,
    **search: Any,
) -> list[RecalledMemory]:
    """The rare path (translation on and needed): the query's ranking as model instances, merged
    with each translation's (memory_core.recall.translation), then the budget."""
    answering = [row for row in scored if answers(row[2])]
    entries = load_entries([candidate for candidate, _, _ in answering])
    ranked = [
        recalled(row, score, parts, entry=lambda c: entries[c.pk])
        for row, score, parts in answering
        if row.pk in entries
    ]
    ranked = query_translation.with_translations(ranked, translated, **search)
    return fill_budget(ranked, budget_tokens=budget_tokens or UNBOUNDED, limit=limit)
