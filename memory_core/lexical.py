"""Keyword ranking with real term weights: Okapi BM25 computed in SQL from per-namespace statistics.

`SearchTerm` (entries per term) and `SearchStats` (entries and total length per namespace) are
kept by database triggers in the writing transaction (migration 0007), so a query reads a few
rows of statistics instead of counting matches over the scope. A term's weight is its inverse
document frequency over the scope's namespaces; an entry's score is

    sum over query terms t it holds of  idf(t) * tf * (K1 + 1) / (tf + K1 * (1 - B + B * len / avg_len))

where `tf` counts the term's positions in the statement, plus `CONTEXT_TF` per position in the
conversational context the entry is indexed with (`MemoryEntry.search_context`, weight D), and
`len` is the entry's number of distinct lexemes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import FloatField
from django.db.models.expressions import RawSQL

from memory_core.language import search_text
from memory_core.models import SEARCH_CONFIG
from memory_core.round_trip import Read, run_together

K1 = 1.2
B = 0.75
# A word of the preceding turn counts this much of a word of the statement itself.
CONTEXT_TF = 0.5
# Query terms beyond this many are ignored; a term held by more than this many entries in scope
# is too common to tell entries apart (next to no weight) and would make matching cost grow with
# the namespace, so it is left out of the search.
MAX_QUERY_TERMS = 16
TERM_MAX_ENTRIES = 1000
MATCH_MAX_SHARE = 0.3


@dataclass(frozen=True)
class TermWeights:
    """The query's terms that occur in scope, each with its BM25 inverse document frequency."""

    terms: tuple[str, ...] = ()
    idf: tuple[float, ...] = ()
    avg_length: float = 1.0
    # The terms an entry must hold one of to be a keyword candidate: those held by at most
    # `MATCH_MAX_SHARE` of the entries (all of them when none is). A term in most entries
    # still adds its small weight to the score of the candidates found by the others.
    matching: tuple[str, ...] = ()
    # The scope's entries, and how many of `terms` (the last ones) are the scope's words related to
    # the query's rather than its own (`memory_core.term_vectors`).
    entries: int = 0
    related: int = 0

    @property
    def total(self) -> float:
        """The score of an entry holding each of the query's own terms once at average length: 1.0
        in `normalised` (a related word adds to a match, it does not raise the bar)."""
        return sum(self.idf[: len(self.idf) - self.related])

    def tsquery(self) -> str:
        """OR of the matching terms: one is enough (the ranking prefers entries with more)."""
        return " | ".join(_quoted(term) for term in self.matching or self.terms)

    def any_term_query(self) -> str:
        """OR of every term: an entry this does not match scores 0 (`bm25_expression`)."""
        return " | ".join(_quoted(term) for term in self.terms)


NO_TERMS = TermWeights()


def _quoted(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def bm25_idf(*, entries: int, holding: int) -> float:
    """Okapi's idf with the +1 that keeps it positive for terms in more than half the entries."""
    return math.log(1 + (entries - holding + 0.5) / (holding + 0.5))


def query_text(text: str) -> str:
    """A query as the index reads its entries: Chinese segmented into words, the rest as typed
    (`memory_core.language.search_text`); parse it with `plainto_tsquery(SEARCH_CONFIG, …)`."""
    return search_text(text) or text


def parse_terms(text: str) -> list[str]:
    """The lexemes of `text` as the column holds them (stemmed, stop words gone), in query order."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT plainto_tsquery(%s::regconfig, %s)::text", [SEARCH_CONFIG, query_text(text)])
        row = cursor.fetchone()
    return split_terms(row[0] if row else "")


def terms_expression(text: str) -> RawSQL:
    """`parse_terms`'s parse as an expression, to travel in another query (its text: `split_terms`)."""
    return RawSQL("plainto_tsquery(%s::regconfig, %s)::text", [SEARCH_CONFIG, query_text(text)])


class TsQuery(SearchQuery):
    """A query already in tsquery syntax (`prefix_query`, `TermWeights.tsquery`), passed on as it is."""

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


def own_words_query(text: str) -> str:
    """A tsquery (syntax text, '' when no word is searchable) matching every word of `text` in the
    statements' own words (weight A), not in the context a turn is indexed with (weight D,
    `search_context`): a list filtered by words shows what the statements say."""
    return " & ".join(_quoted(term) + ":A" for term in parse_terms(text))


def prefix_query(text: str, *, max_words: int = MAX_QUERY_TERMS, own_words: bool = False) -> str:
    """A tsquery (syntax text, '' when no word is searchable) that every word of `text` must match at
    a word's beginning, through the GIN index: each word as the index stems it or as typed, so both
    "peanut" (stem) finds "peanuts" and "bicy" (typed; its stem is "bici") finds "bicycle"; an
    identifier's start finds it ('rf2026':* finds RF20260629001); Chinese as `query_text` segments
    it. Stop words match nothing and are left out, as the index leaves them out. One round trip."""
    words = query_text(text).split()[:max_words]
    if not words:
        return ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT plainto_tsquery(%s::regconfig, w)::text, plainto_tsquery('simple', w)::text "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(w, n) ORDER BY n",
            [SEARCH_CONFIG, words],
        )
        parsed = cursor.fetchall()
    parts = []
    for stemmed, typed in parsed:
        stems = split_terms(stemmed)
        if not stems:
            continue  # a stop word: not in the index
        # `own_words`: the statement's own words only (weight A), not its indexed context (D).
        prefix = ":*A" if own_words else ":*"
        forms = dict.fromkeys([" & ".join(_quoted(term) + prefix for term in stems)])
        forms[" & ".join(_quoted(term) + prefix for term in split_terms(typed))] = None
        parts.append("(" + " | ".join(form for form in forms if form) + ")")
    return " & ".join(dict.fromkeys(parts))


def split_terms(tsquery_text: str) -> list[str]:
    """The lexemes of a `plainto_tsquery` result ("'refund' & 'rf2026'"), unquoted, first 16."""
    terms = []
    for part in tsquery_text.split(" & "):
        part = part.strip()
        if len(part) >= 2 and part[0] == part[-1] == "'":
            terms.append(part[1:-1].replace("''", "'").replace("\\\\", "\\"))
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


def term_weights(*, namespace_ids: list[int], terms: list[str]) -> TermWeights:
    """The weights of `terms` over the namespaces' statistics: one query on two small tables."""
    read = term_weights_read(namespace_ids=namespace_ids, terms=terms)
    return NO_TERMS if read is None else run_together([read])[0]


def term_weights_read(*, namespace_ids: list[int], terms: list[str]) -> Read[TermWeights] | None:
    """`term_weights` as a read that can share a round trip (`memory_core.round_trip`); None when
    there is nothing to read."""
    if not terms or not namespace_ids:
        return None
    sql = (
        "SELECT t.term, t.holding, s.entries, s.total_length FROM "
        "(SELECT coalesce(sum(entries), 0) AS entries, coalesce(sum(total_length), 0) AS total_length "
        " FROM memory_core_searchstats WHERE namespace_id = ANY(%s)) AS s "
        "LEFT JOIN (SELECT term, sum(entries) AS holding FROM memory_core_searchterm "
        " WHERE namespace_id = ANY(%s) AND term = ANY(%s) GROUP BY term) AS t ON true"
    )
    return Read(sql, [namespace_ids, namespace_ids, terms], lambda rows: _weights_of(rows, terms))


def _weights_of(rows: list[tuple[Any, ...]], terms: list[str]) -> TermWeights:
    entries = int(rows[0][2]) if rows else 0
    if entries == 0:
        return NO_TERMS
    holding = {term: int(count) for term, count, _, _ in rows if term is not None}
    kept = [term for term in terms if 0 < holding.get(term, 0) <= TERM_MAX_ENTRIES]
    return TermWeights(
        terms=tuple(kept),
        matching=tuple(term for term in kept if holding[term] <= MATCH_MAX_SHARE * entries),
        idf=tuple(bm25_idf(entries=entries, holding=holding[term]) for term in kept),
        avg_length=max(1.0, int(rows[0][3]) / entries),
        entries=entries,
    )


def bm25_expression(weights: TermWeights) -> RawSQL:
    """An entry's BM25 score for the query, evaluated by PostgreSQL on the row's tsvector."""
    # The index-free `@@` first: most candidates (found by meaning) hold none of the terms, and
    # for them the lexeme join would unnest the whole tsvector to sum nothing.
    # The lexemes filtered by `= ANY` and their idf looked up by position, rather than joined
    # with the terms: no hash built per row, a third less time per row (docs/recall.md).
    sql = (
        "(CASE WHEN memory_core_memoryentry.search_vector @@ %s::tsquery THEN "
        "(SELECT coalesce(sum((%s::float8[])[array_position(%s::text[], u.lexeme)] * tf.n * %s "
        "/ (tf.n + %s * (1 - %s + %s * length(memory_core_memoryentry.search_vector) / %s))), 0) "
        "FROM unnest(memory_core_memoryentry.search_vector) AS u "
        "CROSS JOIN LATERAL (SELECT sum(CASE WHEN w = 'D' THEN %s ELSE 1 END) AS n "
        "FROM unnest(u.weights) AS w) AS tf WHERE u.lexeme = ANY(%s::text[])) ELSE 0 END)"
    )
    params: list[Any] = [
        weights.any_term_query(),
        list(weights.idf),
        list(weights.terms),
        K1 + 1,
        K1,
        B,
        B,
        weights.avg_length,
        CONTEXT_TF,
        list(weights.terms),
    ]
    return RawSQL(sql, params, output_field=FloatField())  # noqa: S611 - parameters only


def normalised(score: float, weights: TermWeights) -> float:
    """0..1: the share of the query's total term weight an entry's score reaches."""
    if weights.total <= 0:
        return 0.0
    return min(1.0, score / weights.total)
