"""The graph candidate source of recall: the entities a query mentions (names, aliases, kinship
words, English and Chinese), their neighbours up to two hops over the relations valid at `at`,
and the memories that mention them or support those relations, each with a 0..1 "graph" score.

One query: the seeds (a GIN lookup of the query's words in the aliases), a bounded recursive
walk, and the memories reached. A hop along a relation the query asks about ("husband", "lives",
"工作") keeps most of the score (`ASKED_HOP`), any other hop halves it (`OTHER_HOP`); an entity
named everywhere counts for less (`COMMON`). The user's
own entity is never walked through: everyone is related to the user, so it links nothing.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime

from django.db import connection
from django.utils import timezone

from memory_core.entities.kinship import KIN_WORDS, QUERY_PREDICATE_WORDS
from memory_core.entities.record import candidate_names

MAX_HOPS = 2
ASKED_HOP = 0.8
OTHER_HOP = 0.5
# A memory that supports a relation of a reached entity (not only mentions it) scores this much
# of the entity's weight: "Ana's husband Marc" is about Marc, and also about Ana's marriage.
SUPPORT_SHARE = 0.9
LIMIT = 50
# An entity named in more memories than this (a conversation's speaker) says less about any one
# of them: its score is scaled by COMMON / mentions.
COMMON = 20

_WORDS = re.compile(r"[\w\u00c0-\u024f-]+(?:'[\w]+)?")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


def query_terms(query: str) -> tuple[list[str], list[str]]:
    """(words that may be aliases, predicates the query asks about) of a query, lower-cased."""
    words = [w.lower().removesuffix("'s") for w in _WORDS.findall(query.replace("\u2019", "'"))]
    terms = set(candidate_names(query))
    for size in range(1, 4):
        terms.update(" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
    # "mum" finds the mother: a kin word's canonical label is an alias of whom it names.
    terms.update(KIN_WORDS[w][1] for w in words if w in KIN_WORDS)
    predicates = {KIN_WORDS[w][0] for w in words if w in KIN_WORDS}
    predicates |= {QUERY_PREDICATE_WORDS[w] for w in words if w in QUERY_PREDICATE_WORDS}
    for run in _CJK_RUN.findall(query):
        terms.update(label for word, (_, label) in KIN_WORDS.items() if word in run)
        predicates |= {p for word, (p, _) in KIN_WORDS.items() if word in run}
        predicates |= {p for word, p in QUERY_PREDICATE_WORDS.items() if word in run}
    return sorted(t for t in terms if t), sorted(predicates)


_SQL = """
WITH RECURSIVE seeds AS (
    SELECT id FROM memory_core_entity
    WHERE namespace_id = ANY(%(ns)s) AND NOT is_self AND aliases && %(terms)s::varchar[]
), walk(entity_id, hop, weight) AS (
    SELECT id, 0, 1.0::float FROM seeds
  UNION ALL
    SELECT n.id, w.hop + 1,
           w.weight * CASE WHEN r.predicate = ANY(%(predicates)s) THEN %(asked)s ELSE %(other)s END
    FROM walk w
    JOIN memory_core_relation r ON r.subject_id = w.entity_id OR r.object_id = w.entity_id
    JOIN memory_core_entity n
      ON n.id = CASE WHEN r.subject_id = w.entity_id THEN r.object_id ELSE r.subject_id END
    WHERE w.hop < %(hops)s AND NOT n.is_self AND r.namespace_id = ANY(%(ns)s)
      AND r.valid_from <= %(at)s AND (r.valid_to IS NULL OR r.valid_to > %(at)s)
), reached AS (
    SELECT w.entity_id, max(w.weight) * LEAST(1.0, %(common)s::float / GREATEST(1, (
        SELECT count(*) FROM memory_core_entitymention c WHERE c.entity_id = w.entity_id
    ))) AS weight
    FROM walk w GROUP BY w.entity_id
)
SELECT entry_id, max(score) AS score FROM (
    SELECT m.entry_id, b.weight AS score
    FROM reached b JOIN memory_core_entitymention m ON m.entity_id = b.entity_id
  UNION ALL
    SELECT s.entry_id, b.weight * %(support)s
    FROM reached b
    JOIN memory_core_relation r ON r.subject_id = b.entity_id OR r.object_id = b.entity_id
    JOIN memory_core_relationsupport s ON s.relation_id = r.id
    WHERE r.namespace_id = ANY(%(ns)s) AND r.valid_from <= %(at)s
      AND (r.valid_to IS NULL OR r.valid_to > %(at)s)
) found
GROUP BY entry_id ORDER BY score DESC, entry_id LIMIT %(limit)s
"""


def graph_candidates(
    *, namespace_ids: list[int], query: str, at: datetime | None = None, limit: int = LIMIT
) -> dict[uuid.UUID, float]:
    """Memory id → graph score of the memories reached from the entities `query` mentions (one
    query; none when the query has no words). Ids only: the caller applies its own scope."""
    terms, predicates = query_terms(query)
    if not terms or not namespace_ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            _SQL,
            {
                "ns": list(namespace_ids),
                "terms": terms,
                "predicates": predicates,
                "asked": ASKED_HOP,
                "other": OTHER_HOP,
                "hops": MAX_HOPS,
                "at": at or timezone.now(),
                "support": SUPPORT_SHARE,
                "limit": limit,
                "common": COMMON,
            },
        )
        return {row[0]: round(float(row[1]), 6) for row in cursor.fetchall()}
