"""The graph candidate source of recall: the entities a query mentions (names, aliases, kinship
words, English and Chinese), their neighbours up to two hops over the relations valid at `at`,
and the memories that mention them or support those relations, each with a 0..1 "graph" score.

One statement: the seeds (a GIN lookup of the query's words in the aliases), a bounded recursive
walk, and the memories reached. A hop along a relation the query asks about ("husband", "lives",
"工作") keeps most of the score (`ASKED_HOP`), any other hop halves it (`OTHER_HOP`); an entity
named everywhere (a conversation's speaker) counts for less, and so does the walk through it
(`COMMON`); memories scoring under `FLOOR` are left out. The user's
own entity is never walked through: everyone is related to the user, so it links nothing.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

from django.utils import timezone

from memory_core.entities.kinship import (
    KIN_WORDS,
    QUERY_PREDICATE_WORDS,
    is_plural,
    label_said,
    singular_label,
)
from memory_core.entities.record import candidate_names
from memory_core.entities.rules import _STOP_NAMES
from memory_core.extraction.rules.lexicon import _words
from memory_core.round_trip import Read

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
# Below this a memory is too far from what the query names to be a candidate of its own.
FLOOR = 0.2

_WORDS = re.compile(r"[\w\u00c0-\u024f-]+(?:'[\w]+)?")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_HAS_CJK = re.compile(r"[\u4e00-\u9fff]")
_MINE = re.compile(r"(?i)\b(?:my|mine|me|i|our|we)\b|我")


def query_terms(query: str) -> tuple[list[str], list[str], list[str], bool]:
    """(names, kin words, predicates asked about, whether the user speaks of their own) of a
    query, lower-cased. Names are words and word runs that may be an entity's alias; kin words
    count only for an entity related to someone the query names (or to the user)."""
    words = [w.lower().removesuffix("'s") for w in _WORDS.findall(query.replace("\u2019", "'"))]
    terms = set(candidate_names(query))
    for size in range(1, 4):
        terms.update(" ".join(words[i : i + size]) for i in range(len(words) - size + 1))
    kin = {w for w in words if w in KIN_WORDS}
    # "mum" finds the mother: a kin word's canonical label is an alias of whom it names; a plural
    # ("Melanie's friends") also finds each one, a singular never the group (`label_said`).
    kin |= {label_said(w) for w in words if w in KIN_WORDS}
    kin |= {singular_label(w) for w in words if is_plural(w)}
    predicates = {KIN_WORDS[w][0] for w in words if w in KIN_WORDS}
    predicates |= {QUERY_PREDICATE_WORDS[w] for w in words if w in QUERY_PREDICATE_WORDS}
    mine = bool(_MINE.search(query))
    for run in _CJK_RUN.findall(query):
        kin |= {w for w in KIN_WORDS if w in run and _HAS_CJK.match(w)}
        kin |= {label for word, (_, label) in KIN_WORDS.items() if word in run}
        predicates |= {p for word, (p, _) in KIN_WORDS.items() if word in run}
        predicates |= {p for word, p in QUERY_PREDICATE_WORDS.items() if word in run}
    names = sorted(t for t in terms if t and t not in kin and t not in KIN_WORDS)
    return names, sorted(kin), sorted(predicates), mine


_CAPITALISED = re.compile(r"\b[A-Z][\w\u00c0-\u024f'-]*")
_QUESTION_WORDS = _words(
    "what where which who whom whose when how why does do did is are was were can could would will "
    "should tell please hi hello hey remind show give find list any"
)


def may_name_someone(query: str) -> bool:
    """Whether the query may mention an entity: a kin word, Chinese text, or a capitalised word
    that is not a sentence opener or question word. Without one, recall spends no query on the
    graph (a lower-case name in a lower-case question is the price)."""
    if _CJK_RUN.search(query):
        return True
    words = _WORDS.findall(query.replace("\u2019", "'").lower())
    if any(w.removesuffix("'s") in KIN_WORDS for w in words):
        return True
    return any(
        w.lower().removesuffix("'s") not in _STOP_NAMES | _QUESTION_WORDS for w in _CAPITALISED.findall(query)
    )


# The statement itself is the PL/pgSQL function `memory_graph_candidates` (migration
# 0019_graph_function), so that it is parsed and planned once per connection, not per recall.
# The namespace's relations valid at `at` are read once there (`edges`, both directions in
# `pairs`): a user's graph is tens to hundreds of relations, and plain joins over one
# materialised set make a generic plan as good as a custom one.
_SQL = (
    "SELECT graph_entry_id, graph_score FROM memory_graph_candidates"
    "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def graph_read(
    *, namespace_ids: list[int], query: str, at: datetime | None = None, limit: int = LIMIT
) -> Read[dict[uuid.UUID, float]] | None:
    """Memory id → graph score of the memories reached from the entities `query` mentions, as a
    read that shares recall's round trip with the term statistics (`memory_core.round_trip`);
    None when there is nothing to walk, so that most recalls, which name no one, spend nothing
    on it. Ids only: the caller applies its own scope."""
    if not namespace_ids or not may_name_someone(query):
        return None
    names, kin, predicates, mine = query_terms(query)
    if not (names or kin):
        return None
    params = [
        list(namespace_ids), names, kin, names + kin, mine, predicates, at or timezone.now(),
        ASKED_HOP, OTHER_HOP, MAX_HOPS, COMMON, SUPPORT_SHARE, FLOOR, limit,
    ]  # fmt: skip
    return Read(_SQL, params, _scores)


def _scores(rows: list[tuple[Any, ...]]) -> dict[uuid.UUID, float]:
    return {row[0]: round(float(row[1]), 6) for row in rows}
