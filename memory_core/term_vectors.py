"""Related words: the keyword search also looks for the scope's terms nearest in meaning to the query's.

A question rarely uses the words its answer was said in ("What do Melanie's kids like?" against
"They love learning about animals"; "children" against "kids"; "destress" against "stress
relief"). Each term the entries hold (a lexeme of `search_vector`, counted in `SearchTerm`) gets
the embedding of its text (`TermVector`, one row per term for every namespace: a function of the
term and the model). At recall, each query term that the scope holds in at most
`lexical.MATCH_MAX_SHARE` of its entries brings the `RELATED_PER_TERM` terms of the scope nearest
to it by cosine, when at least `RELATED_SIMILARITY` (and as rare): they join the keyword search at
`RELATED_WEIGHT` times their cosine times their own idf, and select candidates like the query's
own terms; the keyword component stays normalised by the query's own terms alone
(`lexical.TermWeights.total`), so a related word adds to a match and never dilutes one. Read in the
term statistics' round trip, while the query is embedded: no model call and no round trip more.

The vectors come from a job (`term_vectors_run`), run with the context-vector job (every write of
a turn asks for it, and its schedule is the safety net): a term new to the database is searched
by its own word at once and by its meaning from that run on. The job embeds the terms that have
no vector under the model in use, `embeddings.batch_size()` to a model call, and stores each only
while some namespace still holds it (those rows locked FOR KEY SHARE, SKIP LOCKED: the job never
waits on a writer); a trigger on `SearchTerm` deletes the row with the term's last holder, so
nothing of an erased entry's words stays (migration 0032). docs/recall.md has the figures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import connection

from memory_core import lexical
from memory_core.embeddings import batch_size, get_embedder, vector_literal
from memory_core.language import is_cjk
from memory_core.models import SearchStats, SearchTerm, TermVector
from memory_core.round_trip import Read
from memory_core.vector_storage import MEMORY_VECTOR_TYPE

# Chosen on LoCoMo conversation 26 and read on conversation 30 (docs/recall.md): the plateau runs
# over cosines 0.4-0.55, 5-8 terms and weights 0.2-0.4; below 0.4 the related words are topic
# words rather than near-synonyms ("paint" brings "canvas", "draw", "art" at 0.45-0.6).
RELATED_SIMILARITY = 0.45
RELATED_PER_TERM = 8
RELATED_WEIGHT = 0.3
# Terms one run embeds at most (a few hundred a second on two cores: words are short).
TERM_JOB_MAX_TERMS = 8192

_TERMS = SearchTerm._meta.db_table
_STATS = SearchStats._meta.db_table
_VECTORS = TermVector._meta.db_table


# --- At recall ------------------------------------------------------------------------------------


def related_read(*, namespace_ids: list[int], terms: list[str]) -> Read[list[tuple[str, int, float]]] | None:
    """The scope's terms related to `terms` as a read for the term statistics' round trip:
    (term, entries holding it in scope, cosine to the nearest query term) for each query term held
    in at most `MATCH_MAX_SHARE` of the scope, its `RELATED_PER_TERM` nearest held as rarely,
    at least `RELATED_SIMILARITY` alike; None when there is nothing to read."""
    if not terms or not namespace_ids:
        return None
    # Exact cosines over the scope's vocabulary (a few thousand terms for a namespace of
    # conversations); the vocabulary is aggregated once (a CTE read twice is materialised).
    sql = f"""
        WITH entries AS (
            SELECT coalesce(sum(entries), 0) * %s AS most FROM {_STATS} WHERE namespace_id = ANY(%s)
        ),
        vocabulary AS (
            SELECT t.term, sum(t.entries) AS holding FROM {_TERMS} t
            WHERE t.namespace_id = ANY(%s) GROUP BY t.term
            HAVING sum(t.entries) <= (SELECT most FROM entries)
        ),
        asked AS (
            SELECT v.embedding FROM vocabulary w JOIN {_VECTORS} v ON v.term = w.term
            WHERE w.term = ANY(%s) AND v.embedding_model = %s
        )
        SELECT near.term, near.holding, max(near.similarity) FROM asked CROSS JOIN LATERAL (
            SELECT w.term, w.holding, 1 - (v.embedding <=> asked.embedding) AS similarity
            FROM vocabulary w JOIN {_VECTORS} v ON v.term = w.term
            WHERE v.embedding_model = %s AND w.term <> ALL(%s)
            ORDER BY v.embedding <=> asked.embedding LIMIT %s
        ) AS near
        WHERE near.similarity >= %s GROUP BY near.term, near.holding
    """  # noqa: S608  # table names from the models; values as parameters
    model = get_embedder().name
    params = [
        lexical.MATCH_MAX_SHARE, namespace_ids, namespace_ids, terms, model, model, terms,
        RELATED_PER_TERM, RELATED_SIMILARITY,
    ]  # fmt: skip
    return Read(
        sql, params, lambda rows: [(term, int(holding), float(cosine)) for term, holding, cosine in rows]
    )


def with_related(weights: lexical.TermWeights, related: list[tuple[str, int, float]]) -> lexical.TermWeights:
    """`weights` with the related terms added after the query's own, each at `RELATED_WEIGHT`
    times its cosine times its idf, matching like the query's rarer terms."""
    entries = weights.entries
    found = sorted(
        (term, cosine, holding)
        for term, holding, cosine in related
        if not is_cjk(term) and term not in weights.terms
    )
    if not found or entries <= 0:
        return weights
    idf = [
        RELATED_WEIGHT * cosine * lexical.bm25_idf(entries=entries, holding=holding)
        for _, cosine, holding in found
    ]
    added = tuple(term for term, _, _ in found)
    return lexical.TermWeights(
        terms=weights.terms + added,
        idf=weights.idf + tuple(idf),
        avg_length=weights.avg_length,
        matching=weights.matching + added,
        entries=entries,
        related=len(added),
    )


# --- The job --------------------------------------------------------------------------------------


@dataclass
class TermRunReport:
    """What one run did: terms embedded, stored (some namespace still held them), model calls."""

    embedded: int = 0
    stored: int = 0
    model_calls: int = 0
    more: bool = False
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "embedded": self.embedded,
            "stored": self.stored,
            "model_calls": self.model_calls,
            "more": self.more,
            "seconds": round(self.seconds, 2),
        }


_MISSING = (
    f"SELECT DISTINCT t.term FROM {_TERMS} t WHERE t.term > %s AND NOT EXISTS "  # noqa: S608
    f"(SELECT 1 FROM {_VECTORS} v WHERE v.term = t.term AND v.embedding_model = %s) ORDER BY t.term LIMIT %s"
)


def waiting() -> int:
    """Terms some namespace holds that have no vector under the model in use."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(DISTINCT t.term) FROM {_TERMS} t WHERE NOT EXISTS "  # noqa: S608
            f"(SELECT 1 FROM {_VECTORS} v WHERE v.term = t.term AND v.embedding_model = %s)",
            [get_embedder().name],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def term_vectors_run(*, max_terms: int = TERM_JOB_MAX_TERMS) -> TermRunReport:
    """Embed the terms that have no vector under the model in use, in term order, and store each
    while a namespace still holds it. Stops after `max_terms`, with `more` set when some are left."""
    started = time.monotonic()
    embedder = get_embedder()
    report = TermRunReport()
    after = ""
    while True:
        if report.embedded >= max_terms:
            report.more = bool(_missing(embedder.name, after, 1))
            break
        terms = _missing(embedder.name, after, min(batch_size(), max_terms - report.embedded))
        if not terms:
            break
        after = terms[-1]
        vectors = embedder.embed(terms)
        report.model_calls += 1
        report.embedded += len(terms)
        report.stored += _store(terms, vectors, embedder.name)
    report.seconds = time.monotonic() - started
    return report


def term_vectors_drain() -> TermRunReport:
    """Runs until no term waits (benches and tests; the cluster runs the task instead)."""
    total = TermRunReport()
    while True:
        report = term_vectors_run()
        for name in ("embedded", "stored", "model_calls", "seconds"):
            setattr(total, name, getattr(total, name) + getattr(report, name))
        if not report.more:
            return total


def _missing(model: str, after: str, count: int) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(_MISSING, [after, model, count])
        return [term for (term,) in cursor.fetchall()]


def _store(terms: list[str], vectors: list[list[float]], model: str) -> int:
    """One statement: each vector whose term some namespace still holds, its rows locked FOR KEY
    SHARE (an erasure deleting the last of them waits for this statement, or this one skips a row
    it holds, and its trigger then finds the vector and deletes it). Returns the rows stored."""
    sql = f"""
        WITH held AS (
            SELECT t.term FROM {_TERMS} t WHERE t.term = ANY(%s) FOR KEY SHARE OF t SKIP LOCKED
        )
        INSERT INTO {_VECTORS} (term, embedding, embedding_model)
        SELECT c.term, c.vector, %s FROM unnest(%s::text[], %s::{MEMORY_VECTOR_TYPE}[]) AS c(term, vector)
        WHERE c.term IN (SELECT term FROM held)
        ON CONFLICT (term) DO UPDATE
            SET embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model
    """  # noqa: S608  # table names from the models; values as parameters
    params: list[Any] = [terms, model, terms, [vector_literal(vector) for vector in vectors]]
    with connection.cursor() as cursor:  # one statement: its own transaction in autocommit
        cursor.execute(sql, params)
        return int(cursor.rowcount)
