"""Related words: the keyword search also looks for the scope's terms nearest in meaning to the query's.

A question rarely uses the words its answer was said in ("What do Melanie's kids like?" against
"They love learning about animals"; "children" against "kids"; "visited" against "a trip to
Rome"). Each term the entries hold (a lexeme of `search_vector`, counted in `SearchTerm`) gets the
embedding of its text (`TermVector`: one row per term for every namespace, a function of the term
and the model), and every two terms at least `PAIR_FLOOR` alike are kept as a pair
(`RelatedTerm`, both ways). At recall, each query term that the scope holds in at most
`lexical.MATCH_MAX_SHARE` of its entries brings its `RELATED_PER_TERM` most alike pairs that the
scope holds as rarely, at least `RELATED_SIMILARITY` alike: they join the BM25 sum at
`RELATED_WEIGHT` times their cosine times their own idf, and the rarest of them
(`RELATED_MATCH_MAX_SHARE`) select candidates like the query's own terms; the keyword component
stays normalised by the query's own terms alone (`lexical.TermWeights.total`), so a related word
adds to a match and never dilutes one. Read by index lookups in the term statistics' round trip,
while the query is embedded: no model call, no cosine and no round trip more at recall. Only the
scope's own words are related (another user's words are never read, not even as a vector for the
query's), so a query word the scope has never held is searched as itself only.

The vectors and pairs come from a job (`term_vectors_run`), run with the context-vector job (every
write of a turn asks for it, and its 10-minute schedule is the safety net): a term new to the
database is searched by its own word at once and by its meaning from that run on. The job embeds
the terms that have no vector under the model in use, `embeddings.batch_size()` to a model call,
stores each only while some namespace still holds it, and pairs it with every vector alike
enough (an exact pass over the vectors: a few seconds for the first thousands of terms, then a
few new terms a run). Rows it reads are locked FOR KEY SHARE, SKIP LOCKED (it never waits on a
writer); a trigger on `SearchTerm` deletes the vector and the pairs with the term's last holder,
so nothing of an erased entry's words stays (migration 0032). Two erasures deleting a term's last
two holders at once each still see the other's row, so neither trigger deletes: each erasure
forgets its terms again after its commit (`term_vectors_forget_on_commit`), and the disk pass
forgets every term no namespace holds. docs/recall.md has the figures.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.db import connection, transaction

from memory_core import lexical
from memory_core.embeddings import batch_size, get_embedder, vector_literal
from memory_core.jobs import JobReport
from memory_core.language import is_cjk
from memory_core.models import MemoryEntry, RelatedTerm, SearchStats, SearchTerm, TermVector
from memory_core.round_trip import Read
from memory_core.vector_storage import MEMORY_VECTOR_TYPE

# Chosen on LoCoMo conversation 26 and read on conversation 30 (docs/recall.md): the plateau runs
# over cosines 0.4-0.55, 5-8 terms and weights 0.2-0.4; below 0.4 the related words are topic
# words rather than near-synonyms ("paint" brings "canvas", "draw", "art" at 0.45-0.6).
RELATED_SIMILARITY = 0.45
# The pairs the job keeps: every two terms at least this alike (below `RELATED_SIMILARITY`, so
# that constant can be tried higher or lower down to it without recomputing them).
PAIR_FLOOR = 0.4
RELATED_PER_TERM = 8
RELATED_WEIGHT = 0.3
# A related word selects candidates when at most this share of the scope holds it (LoCoMo: any
# share from 1% up ranks exactly as all of them selecting, with half the rows to score).
RELATED_MATCH_MAX_SHARE = 0.02
# Terms one run embeds at most (a few hundred a second on two cores: words are short).
TERM_JOB_MAX_TERMS = 8192

_TERMS = SearchTerm._meta.db_table
_STATS = SearchStats._meta.db_table
_VECTORS = TermVector._meta.db_table
_PAIRS = RelatedTerm._meta.db_table
_ENTRIES = MemoryEntry._meta.db_table


# --- At recall ------------------------------------------------------------------------------------


def related_read(*, namespace_ids: list[int], terms: list[str]) -> Read[list[tuple[str, int, float]]] | None:
    """The scope's terms related to `terms` as a read for the term statistics' round trip:
    (term, entries holding it in scope, cosine to the nearest query term) for each query term held
    in at most `MATCH_MAX_SHARE` of the scope, its `RELATED_PER_TERM` nearest held as rarely,
    at least `RELATED_SIMILARITY` alike; None when there is nothing to read."""
    if not terms or not namespace_ids:
        return None
    # The query terms' pairs (`RelatedTerm`, all at least `PAIR_FLOOR` alike) that the scope holds:
    # index lookups, no cosine computed here.
    sql = f"""
        WITH entries AS (
            SELECT coalesce(sum(entries), 0) * %s AS most FROM {_STATS} WHERE namespace_id = ANY(%s)
        ),
        asked AS (
            SELECT t.term FROM {_TERMS} t WHERE t.namespace_id = ANY(%s) AND t.term = ANY(%s)
            GROUP BY t.term HAVING sum(t.entries) <= (SELECT most FROM entries)
        ),
        near AS (
            SELECT r.related, r.similarity, h.holding,
                row_number() OVER (PARTITION BY r.term ORDER BY r.similarity DESC, r.related) AS n
            FROM asked JOIN {_PAIRS} r ON r.term = asked.term
            CROSS JOIN LATERAL (
                SELECT sum(t.entries) AS holding FROM {_TERMS} t
                WHERE t.namespace_id = ANY(%s) AND t.term = r.related
            ) AS h
            WHERE r.similarity >= %s AND r.related <> ALL(%s) AND h.holding <= (SELECT most FROM entries)
        )
        SELECT related, holding, max(similarity) FROM near WHERE n <= %s GROUP BY related, holding
    """  # noqa: S608  # table names from the models; values as parameters
    params = [
        lexical.MATCH_MAX_SHARE, namespace_ids, namespace_ids, terms, namespace_ids, RELATED_SIMILARITY,
        terms, RELATED_PER_TERM,
    ]  # fmt: skip
    return Read(
        sql, params, lambda rows: [(term, int(holding), float(cosine)) for term, holding, cosine in rows]
    )


def with_related(weights: lexical.TermWeights, related: list[tuple[str, int, float]]) -> lexical.TermWeights:
    """`weights` with the related terms added after the query's own, each at `RELATED_WEIGHT`
    times its cosine times its idf; the rarest select candidates too (`RELATED_MATCH_MAX_SHARE`)."""
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
    # Only a rare related word selects candidates: one that many entries hold would bring rows
    # it barely moves (each costs its BM25 in the keyword search); it still adds to their scores.
    rare = tuple(term for term, _, holding in found if holding <= RELATED_MATCH_MAX_SHARE * entries)
    return lexical.TermWeights(
        terms=weights.terms + added,
        idf=weights.idf + tuple(idf),
        avg_length=weights.avg_length,
        matching=weights.matching + rare,
        entries=entries,
        related=len(added),
    )


# --- The job --------------------------------------------------------------------------------------


@dataclass
class TermRunReport(JobReport):
    """What one run did: terms embedded, stored (some namespace still held them), pairs, model calls."""

    embedded: int = 0
    stored: int = 0
    pairs: int = 0
    model_calls: int = 0


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
        stored = _store(terms, vectors, embedder.name)
        report.stored += stored
        if stored:
            report.pairs += _pair(terms, embedder.name)
    report.seconds = time.monotonic() - started
    return report


def term_vectors_drain() -> TermRunReport:
    """Runs until no term waits (benches and tests; the cluster runs the task instead)."""
    total = TermRunReport()
    while True:
        report = term_vectors_run()
        total.add(report)
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


def _pair(terms: list[str], model: str) -> int:
    """One statement: the pairs of the newly stored `terms` with every vector at least `PAIR_FLOOR`
    alike, both ways (a new vector's pairs replace what an older model gave). Each vector read is
    locked FOR KEY SHARE, SKIP LOCKED: a vector an erasure is deleting is skipped, and one this
    statement holds is deleted after it, with the pairs it wrote (the trigger of migration 0032).
    Returns the pairs written."""
    sql = f"""
        WITH fresh AS (
            SELECT term, embedding FROM {_VECTORS}
            WHERE term = ANY(%s) AND embedding_model = %s FOR KEY SHARE SKIP LOCKED
        ),
        near AS (
            SELECT f.term, v.term AS related, 1 - (f.embedding <=> v.embedding) AS similarity
            FROM fresh f JOIN {_VECTORS} v ON v.term <> f.term AND v.embedding_model = %s
            WHERE (f.embedding <=> v.embedding) <= %s
        ),
        held AS (
            SELECT term FROM {_VECTORS} WHERE term IN (SELECT related FROM near) FOR KEY SHARE SKIP LOCKED
        ),
        both_ways AS (
            SELECT term, related, similarity FROM near WHERE related IN (SELECT term FROM held)
            UNION ALL
            SELECT related, term, similarity FROM near WHERE related IN (SELECT term FROM held)
        )
        INSERT INTO {_PAIRS} (term, related, similarity)
        SELECT DISTINCT ON (term, related) term, related, similarity FROM both_ways ORDER BY term, related
        ON CONFLICT (term, related) DO UPDATE SET similarity = EXCLUDED.similarity
    """  # noqa: S608  # table names from the models; values as parameters
    with connection.cursor() as cursor:  # one statement: its own transaction in autocommit
        cursor.execute(sql, [terms, model, model, 1 - PAIR_FLOOR])
        return int(cursor.rowcount)


# --- Forgetting -----------------------------------------------------------------------------------

# Vectors no namespace holds, deleted with their pairs; `{which}` picks the terms. FOR UPDATE SKIP
# LOCKED: a vector an erasure is deleting goes with that erasure (waiting for it could close a cycle
# with an erasure waiting for a vector locked here); one the job holds that moment waits for the
# next pass.
_FORGET = f"""
    WITH gone AS (
        SELECT v.term FROM {_VECTORS} v
        WHERE {{which}} AND NOT EXISTS (SELECT 1 FROM {_TERMS} t WHERE t.term = v.term)
        FOR UPDATE OF v SKIP LOCKED
    ),
    vectors AS (DELETE FROM {_VECTORS} WHERE term IN (SELECT term FROM gone) RETURNING term),
    pairs AS (
        DELETE FROM {_PAIRS} WHERE term IN (SELECT term FROM vectors) OR related IN (SELECT term FROM vectors)
    )
    SELECT count(*) FROM vectors
"""  # noqa: S608  # table names from the models


def term_vectors_forget(*, terms: Collection[str] | None = None) -> int:
    """Delete the vectors and pairs of `terms` (of every term, when None) that no namespace holds
    any more; returns the vectors deleted. The trigger of migration 0032 misses a term whose last
    two holders two transactions delete at once (each sees the other's row): the later commit's
    call here finds neither."""
    if terms is not None and not terms:
        return 0
    which, params = ("v.term = ANY(%s)", [list(terms)]) if terms is not None else ("true", [])
    with connection.cursor() as cursor:  # one statement: its own transaction in autocommit
        cursor.execute(_FORGET.format(which=which), params)
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def term_vectors_forget_on_commit(*, entry_ids: Collection[Any]) -> None:
    """Before the entries `entry_ids` are deleted: once the transaction commits, forget the terms
    they hold that no namespace holds any more (`term_vectors_forget`). Robust: the erasure stands
    if this fails, and the disk pass forgets what is left."""
    if not entry_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT unnest(tsvector_to_array(search_vector)) FROM {_ENTRIES} WHERE id = ANY(%s)",  # noqa: S608
            [list(entry_ids)],
        )
        terms = [term for (term,) in cursor.fetchall()]
    if terms:
        transaction.on_commit(partial(term_vectors_forget, terms=terms), robust=True)
