"""The graph candidate source of recall: the entities a query mentions (names, aliases, kinship
words, English and Chinese), their neighbours up to two hops over the relations valid at `at`,
and the memories that mention them or support those relations, each with a 0..1 "graph" score.

Walked in Python over the namespaces' graphs as `graph_cache` holds them (loaded again whenever a
namespace's graph changed): the seeds (the query's words, word runs and kin words among the
aliases), a bounded walk, and the memories reached. A hop along a relation the query asks about
("husband", "lives", "工作") keeps most of the score (`ASKED_HOP`), any other hop halves it
(`OTHER_HOP`); an entity named everywhere (a conversation's speaker) counts for less, and so does
the walk through it (`COMMON`); memories scoring under `FLOOR` are left out. The user's own
entity is never walked through: everyone is related to the user, so it links nothing. The
memory that answers outscores those on the way: an entity the question only passes through
("Ana" in "Ana's husband") weighs `WAY`, and a memory stating the relation asked about scores
more than the entity's other memories (`ANSWER_SHARE`, `ANSWERED_ELSE`).
"""

from __future__ import annotations

import functools
import itertools
import re
import uuid
from collections import ChainMap
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import NamedTuple, TypeVar

from django.utils import timezone

from memory_core import process_caches
from memory_core.entities.graph_cache import GraphRelation, NamespaceGraph, alias_key
from memory_core.entities.kinship import (
    BOSS_ASKED,
    KIN_WORDS,
    OTHER_GENDER,
    PAST_PREFIXES,
    QUERY_PREDICATE_WORDS,
    ZH_COMPOSED,
    ZH_KIN_WORDS,
    Step,
    is_plural,
    label_said,
    paths_of,
    singular_label,
)
from memory_core.entities.record import SYMMETRIC, candidate_names
from memory_core.entities.rules import _STOP_NAMES
from memory_core.entities.vocabulary import SINGLE_VALUED, Predicate
from memory_core.entities.zh_forms import as_mandarin
from memory_core.reading.words import word_set

_V = TypeVar("_V")

MAX_HOPS = 2
ASKED_HOP = 0.8
OTHER_HOP = 0.5
# What a memory scores of the weight of the entity it is reached from: one that states the
# relation the question asks about ("Marc works at Acme" for "where does Ana's husband work?")
# answers it; one that states the relation a kin word of the question named ("Ana is married to
# Marc") is the hop that led there; one that only mentions the entity, or states another of its
# relations, is about it.
ANSWER_SHARE = 1.0
HOP_SHARE = 0.9
SUPPORT_SHARE = 0.85
# Any other memory of an entity whose asked relation the graph holds: not the answer.
ANSWERED_ELSE = 0.7
# An entity the question passes through to reach another ("Ana" in "Ana's husband", "my sister"
# in "my sister's husband") is not what it asks about: its memories and the walk from it weigh less.
WAY = 0.6
LIMIT = 50
# An entity named in more memories than this (a conversation's speaker) says less about any one
# of them: its score is scaled by COMMON / mentions.
COMMON = 20
# Below this a memory is too far from what the query names to be a candidate of its own.
FLOOR = 0.2

_WORDS = re.compile(r"[\w\u00c0-\u024f-]+(?:'[\w]+)?")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_MINE = re.compile(r"(?i)\b(?:my|mine|me|i|our|we)\b|我")


class QueryTerms(NamedTuple):
    names: list[str]  # words and word runs that may be an entity's alias
    kin: list[str]  # kin words and their canonical labels ("mum" → "mother")
    predicates: list[str]  # asked about: the kin words' and the other words' ("lives")
    kin_predicates: list[str]  # the kin words' alone ("husband" → spouse)
    mine: bool  # the user speaks of their own ("my", "我")
    # Kin said through others ("father-in-law", "ex-wife", "姐夫", "my wife's brother"): each way
    # (`kinship.Step`).
    paths: tuple[tuple[Step, ...], ...] = ()
    # With a possessive chain among the paths: the terms as a bag of kin words, for a graph where
    # the chain's way reaches no one.
    otherwise: QueryTerms | None = None


def _said_through_others(words: list[str], *, past: bool = True) -> tuple[list[str], list[str]]:
    """The words of `words` ("team lead", "ex wife" joined) that name kin through others
    (`kinship.paths_of`), and the words left once a former relation's word took its kin word
    ("former boss" is not the boss one has); without `past`, "late wife" is a wife."""
    composed: list[str] = []
    left: list[str] = []
    index = 0
    while index < len(words):
        pair = " ".join(words[index : index + 2])
        if not past and pair.startswith(PAST_PREFIXES):
            pair = ""
        if index + 1 < len(words) and (paths_of(pair) or pair in KIN_WORDS):
            (composed if paths_of(pair) else left).append(pair)
            if pair in KIN_WORDS and paths_of(pair):
                left.append(pair)
            index += 2
            continue
        if paths_of(words[index]):
            composed.append(words[index])
        left.append(words[index])
        index += 1
    return composed, left


# The Chinese kin words by their first character, longest first: a run is looked up by its own.
_ZH_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _word in sorted({*ZH_COMPOSED, *ZH_KIN_WORDS}, key=len, reverse=True):
    _ZH_BY_FIRST[_word[0]] = (*_ZH_BY_FIRST.get(_word[0], ()), _word)


def _zh_kin_words(run: str) -> tuple[list[str], list[str]]:
    """The kin words of a Chinese run, longest first, each where no longer one was (姐夫 is not
    姐, 女朋友 not 朋友): those that name kin through others, and the plain ones."""
    taken = [False] * len(run)
    composed: list[str] = []
    plain: list[str] = []
    candidates = {word for char in set(run) for word in _ZH_BY_FIRST.get(char, ())}
    for word in sorted(candidates, key=len, reverse=True):
        start = run.find(word)
        while start >= 0:
            if not any(taken[start : start + len(word)]):
                taken[start : start + len(word)] = [True] * len(word)
                if paths_of(word):
                    composed.append(word)
                if word in KIN_WORDS:
                    plain.append(word)
            start = run.find(word, start + 1)
    return composed, plain


def _kin_at(words: list[str], index: int) -> int:
    """How many words (two, one or none) make a kin word at `index` ("half brother", "wife")."""
    for size in (2, 1):
        word = " ".join(w.removesuffix("'s") for w in words[index : index + size])
        if index + size <= len(words) and (word in KIN_WORDS or paths_of(word)):
            return size
    return 0


def _chains(words: list[str]) -> list[tuple[int, int, list[str]]]:
    """The possessive kin chains of a query's words, in order, with where each starts and ends:
    "my wife's brother's husband" → (…, [wife, brother, husband]). A word may stand between one
    kin's "'s" and the next kin word ("my ex-husband's new wife")."""
    chains: list[tuple[int, int, list[str]]] = []
    index = 0
    while index < len(words):
        size = _kin_at(words, index)
        start, chain = index, []
        while size and words[index + size - 1].endswith("'s"):
            chain.append(" ".join(words[index : index + size]).removesuffix("'s"))
            index += size
            later = next((n for n in (0, 1) if _kin_at(words, index + n)), None)
            if later is None:
                size = 0
                break
            index += later
            size = _kin_at(words, index)
        if size:
            chain.append(" ".join(words[index : index + size]).removesuffix("'s"))
            index += size
        if len(chain) > 1:
            chains.append((start, index, chain))
        index = max(index, start + 1)
    return chains


def _chain_paths(chain: list[str]) -> tuple[tuple[Step, ...], ...]:
    """The ways of a possessive chain, one kin word after the other: each word's own ways when it
    names kin through others ("ex-husband"), else one step of its relation known by its label."""
    ways: list[tuple[Step, ...]] = [()]
    for word in chain:
        own = paths_of(word) or ((Step(KIN_WORDS[word][0], frozenset({singular_label(word)})),),)
        ways = [way + path for way in ways for path in own]
    return tuple(ways)


def query_terms(query: str, *, plain: bool = False) -> QueryTerms:
    """What a query may name, lower-cased (`QueryTerms`). Kin words count only for an entity
    related to someone the query names (or to the user). A possessive chain of kin words ("my
    brother's wife") is a way walked in its order (not "my wife's brother"), and "late wife" an
    ended marriage; the terms `otherwise` (`plain`) read the chain as a bag of its words and the
    late wife as the wife."""
    if _CJK_RUN.search(query):
        query = as_mandarin(query, ZH_KIN_WORDS)  # traditional and Cantonese as the kin words are
    tokens = [w.lower() for w in _WORDS.findall(query.replace("\u2019", "'"))]
    said = [w.removesuffix("'s") for w in tokens]
    found = [] if plain else _chains(tokens)
    in_chain = {i for start, end, _ in found for i in range(start, end)}
    rest = [w for i, w in enumerate(said) if i not in in_chain]
    composed, words = _said_through_others(rest, past=not plain)
    past = any(word.startswith(PAST_PREFIXES) for word in composed)
    if BOSS_ASKED.search(query):
        words.append("boss")
    terms = set(candidate_names(query))
    for size in range(1, 4):
        terms.update(" ".join(said[i : i + size]) for i in range(len(said) - size + 1))
    kin = {w for w in words if w in KIN_WORDS}
    # "mum" finds the mother: a kin word's canonical label is an alias of whom it names; a plural
    # ("Melanie's friends") also finds each one, a singular never the group (`label_said`).
    kin |= {label_said(w) for w in words if w in KIN_WORDS}
    kin |= {singular_label(w) for w in words if is_plural(w)}
    kin_predicates = {KIN_WORDS[w][0] for w in words if w in KIN_WORDS}
    predicates = {QUERY_PREDICATE_WORDS[w] for w in words if w in QUERY_PREDICATE_WORDS}
    mine = bool(_MINE.search(query))
    for run in _CJK_RUN.findall(query):
        zh_composed, zh_plain = _zh_kin_words(run)
        composed += zh_composed
        kin |= set(zh_plain) | {KIN_WORDS[w][1] for w in zh_plain}
        kin_predicates |= {KIN_WORDS[w][0] for w in zh_plain}
        predicates |= {p for word, p in QUERY_PREDICATE_WORDS.items() if word in run}
    names = sorted(t for t in terms if t and t not in kin and t not in KIN_WORDS and not paths_of(t))
    paths = tuple(dict.fromkeys(path for word in composed for path in paths_of(word)))
    paths += tuple(path for _, _, chain in found for path in _chain_paths(chain) if path not in paths)
    return QueryTerms(
        names,
        sorted(kin),
        sorted(predicates | kin_predicates),
        sorted(kin_predicates),
        mine,
        paths,
        query_terms(query, plain=True) if found or past else None,
    )


_CAPITALISED = re.compile(r"\b[A-Z][\w\u00c0-\u024f'-]*")
_QUESTION_WORDS = word_set(
    "what where which who whom whose when how why does do did is are was were can could would will "
    "should tell please hi hello hey remind show give find list any"
)


def may_name_someone(query: str) -> bool:
    """Whether the query may mention an entity: a kin word, Chinese text, or a capitalised word
    that is not a sentence opener or question word. Without one, recall spends no query on the
    graph (a lower-case name in a lower-case question is the price)."""
    if _CJK_RUN.search(query) or BOSS_ASKED.search(query):
        return True
    words = [w.removesuffix("'s") for w in _WORDS.findall(query.replace("\u2019", "'").lower())]
    if any(w in KIN_WORDS or paths_of(w) for w in words):
        return True
    if any(" ".join(pair) in KIN_WORDS or paths_of(" ".join(pair)) for pair in itertools.pairwise(words)):
        return True
    return any(
        w.lower().removesuffix("'s") not in _STOP_NAMES | _QUESTION_WORDS for w in _CAPITALISED.findall(query)
    )


class GraphQuestion(NamedTuple):
    """What the walk needs of a query: its names and kin words as alias keys
    (`graph_cache.alias_key`), the predicates it asks about and those its kin words name, and
    whether the user speaks of their own."""

    names: frozenset[int]
    kin: frozenset[int]
    predicates: frozenset[str]
    kin_predicates: frozenset[str]
    mine: bool
    paths: tuple[tuple[WalkStep, ...], ...] = ()
    otherwise: GraphQuestion | None = None  # `QueryTerms.otherwise`


class WalkStep(NamedTuple):
    """A `kinship.Step` as the walk reads it: its labels as alias keys, and the keys of the
    labels that rule an entity out (the other gender's)."""

    predicate: str
    wanted: frozenset[int]
    unwanted: frozenset[int]
    ended: bool


def _walk_step(step: Step) -> WalkStep:
    unwanted = {OTHER_GENDER[label] for label in step.labels if label in OTHER_GENDER} - step.labels
    return WalkStep(
        step.predicate,
        frozenset(map(alias_key, step.labels)),
        frozenset(map(alias_key, unwanted)),
        step.ended,
    )


@functools.lru_cache(maxsize=1024)
def graph_question(query: str) -> GraphQuestion | None:
    """The query as the walk reads it; None when it names no one (no graph is read at all, so
    most recalls spend nothing on it). Kept for the last questions asked, as their embeddings are
    (`embeddings.query_cache`): reading one costs about 0.07 ms, a tenth of the graph's share of a
    recall asked again."""
    if not may_name_someone(query):
        return None
    return _as_walked(query_terms(query))


process_caches.register_lru(graph_question)


def _as_walked(terms: QueryTerms) -> GraphQuestion | None:
    if not (terms.names or terms.kin or terms.paths):
        return None
    return GraphQuestion(
        frozenset(map(alias_key, terms.names)),
        frozenset(map(alias_key, terms.kin)),
        frozenset(terms.predicates),
        frozenset(terms.kin_predicates),
        terms.mine,
        tuple(tuple(_walk_step(step) for step in path) for path in terms.paths),
        _as_walked(terms.otherwise) if terms.otherwise else None,
    )


def graph_scores(
    graphs: Sequence[NamespaceGraph],
    question: GraphQuestion,
    *,
    at: datetime | None = None,
    limit: int = LIMIT,
) -> dict[uuid.UUID, float]:
    """Memory id → graph score of the memories reached from the entities `question` mentions in
    `graphs` (the namespaces read, held by `graph_cache`), the best `limit` of those scoring at
    least `FLOOR`. Ids only: the caller applies its own scope."""
    view = _View(graphs, at or timezone.now())
    seeds, way, by_paths = _seeds(view, graphs, question)
    if question.otherwise is not None and not by_paths:
        question = question.otherwise  # the chain's way reaches no one: its words as a bag
        seeds, way, _ = _seeds(view, graphs, question)
    reached = _walk(view, seeds, way, question.predicates)
    answers = question.predicates - question.kin_predicates
    # The relations a question's kin words walk along, through others too ("姐夫": sibling, spouse).
    hops = question.kin_predicates | {step.predicate for path in question.paths for step in path}
    hits: dict[str, float] = {}
    for entity, weight in reached.items():
        relations = list(view.valid_relations(entity))
        # When the graph holds the relation asked about, its support answers and the rest of what
        # is said of the entity is on the way; else whatever is said of it may answer — but for the
        # statement of the hop that led to it ("Lena's husband is Omar" names Omar too).
        answered = any(r.predicate in answers for r in relations)
        hop_said = {
            e
            for r in view.relations.get(entity, ())
            if r.predicate in hops
            for e in view.support.get(r.id, ())
        }
        for entry in view.mentions.get(entity, ()):
            share = ANSWERED_ELSE if answered else (HOP_SHARE if entry in hop_said else 1.0)
            _keep_best(hits, entry, weight * share)
        for relation in relations:
            share = _share(relation.predicate, answers, hops)
            share = share if relation.predicate in answers or not answered else ANSWERED_ELSE
            for entry in view.support.get(relation.id, ()):
                _keep_best(hits, entry, weight * share)
    best = sorted((item for item in hits.items() if item[1] >= FLOOR), key=lambda item: (-item[1], item[0]))
    return {uuid.UUID(entry): round(score, 6) for entry, score in best[:limit]}


def _share(predicate: str, answers: frozenset[str], hops: frozenset[str]) -> float:
    if predicate in answers:
        return ANSWER_SHARE
    return HOP_SHARE if predicate in hops else SUPPORT_SHARE


class _View:
    """The graphs of the namespaces read as one, at one instant (ids are unique across them)."""

    def __init__(self, graphs: Sequence[NamespaceGraph], at: datetime) -> None:
        self.at = at
        self.is_self: frozenset[str] = frozenset().union(*(graph.self_ids for graph in graphs))
        self.relations = _joined([graph.relations for graph in graphs])
        self.mentions = _joined([graph.mentions for graph in graphs])
        self.support = _joined([graph.support for graph in graphs])
        self.aliases = _joined([graph.aliases for graph in graphs])

    def valid_relations(self, entity: str) -> Iterator[GraphRelation]:
        return (relation for relation in self.relations.get(entity, ()) if relation.holds_at(self.at))

    def links(self, entity: str) -> Iterator[tuple[str, str, bool]]:
        """(the other end, the predicate, whether `entity` is the subject) of each relation between
        two entities valid then: "subject's <predicate> is object"."""
        for relation in self.valid_relations(entity):
            if relation.object is not None:
                outgoing = relation.subject == entity
                yield (relation.object if outgoing else relation.subject), relation.predicate, outgoing

    def step(self, entity: str, step: WalkStep) -> set[str]:
        """Whom `entity` reaches by one step of a kin word said through others: its relation of
        the step's predicate (either way for a symmetric one; a parent is also whoever has it as a
        child), holding then, or, for a former relation, ended by then; known by the step's
        label, or at least not by the other gender's."""
        reached: set[str] = set()
        for relation in self.relations.get(entity, ()):
            other = relation.object if relation.subject == entity else relation.subject
            if other is None or other in self.is_self or other == entity:
                continue
            if step.ended:
                if relation.valid_to is None or relation.valid_to > self.at:
                    continue
            elif not relation.holds_at(self.at):
                continue
            outgoing = relation.subject == entity
            if relation.predicate == step.predicate:
                if not (outgoing or relation.predicate in SYMMETRIC):
                    continue
            elif outgoing or _INVERSE.get(relation.predicate) != step.predicate:
                continue
            keys = self.aliases.get(other, frozenset())
            if step.wanted and not keys & step.wanted and keys & step.unwanted:
                continue
            reached.add(other)
        return reached

    def share(self, entity: str) -> float:
        """An entity named in many memories (a conversation's speaker) says less about each."""
        return min(1.0, COMMON / max(1, len(self.mentions.get(entity, ()))))


# "X's parent is Y" is "Y's child is X".
_INVERSE: dict[str, str] = {Predicate.PARENT: Predicate.CHILD, Predicate.CHILD: Predicate.PARENT}


def _joined(parts: list[dict[str, _V]]) -> Mapping[str, _V]:
    # Most recalls read one namespace's graph: its own dict, quicker to look in than a ChainMap.
    return parts[0] if len(parts) == 1 else ChainMap(*parts)


def _seeds(
    view: _View, graphs: Sequence[NamespaceGraph], question: GraphQuestion
) -> tuple[frozenset[str], frozenset[str], bool]:
    """The entities the query names, and those its kin words name among the kin of whom it names
    (else, or also for "my …", of the user) and their kin in turn ("my sister's husband"); those
    of them the question only passes through (whose kin it names); and whether a way of kin said
    through others reached anyone."""
    named, kin = _by_alias(graphs, question)
    # A kin word for a relation one has at most one of ("husband", "boss") names whoever holds it
    # then, however they were called: "Joel is married to Lena" makes Lena Joel's husband or wife.
    held = question.kin_predicates & SINGLE_VALUED

    def kin_of(entity: str, held: frozenset[str] = held) -> set[str]:
        return {
            other
            for other, predicate, outgoing in view.links(entity)
            if other in kin
            or (predicate in held and (outgoing or predicate in SYMMETRIC) and other not in view.is_self)
        }

    owners = named | (view.is_self if question.mine or not named else set())
    # Kin said through others ("my father-in-law": my spouse's father; "my ex-wife"): whom each
    # way reaches is the owner's kin, whoever it passed on the way is on the way.
    composed: dict[str, set[str]] = {owner: set() for owner in owners}
    passed: set[str] = set()
    for path in question.paths:
        for owner in owners:
            frontier, crossed = {owner}, set()
            for step in path:
                crossed |= frontier - {owner}
                frontier = set().union(*(view.step(entity, step) for entity in frontier))
            if frontier:
                composed[owner] |= frontier
                passed |= crossed
    # A kin word after one said through others is theirs: in "my ex-wife's new husband" the
    # husband is hers, not whoever is married to the user now.
    held_of_owners = frozenset() if any(composed.values()) else held
    found = {owner: kin_of(owner, held_of_owners) | composed[owner] for owner in owners}
    kin_of_owners = set().union(*found.values())
    found |= {entity: kin_of(entity) for entity in kin_of_owners - found.keys()}
    seeds = named | kin_of_owners | passed | set().union(*(found[entity] for entity in kin_of_owners))
    # On the way: an owner whose kin the question names, and a kin of an owner whose own kin it
    # names further ("my sister" in "my sister's husband"; not one sister for another).
    way = {owner for owner in owners if found[owner]} | (passed - kin_of_owners)
    way |= {entity for entity in kin_of_owners if found[entity] - kin_of_owners}
    return frozenset(seeds), frozenset(way), any(composed.values())


def _by_alias(graphs: Sequence[NamespaceGraph], question: GraphQuestion) -> tuple[set[str], set[str]]:
    """The entities (not the user's own) the query's names call, and those its kin words call."""
    named: set[str] = set()
    kin: set[str] = set()
    for graph in graphs:
        for key in question.names | question.kin:
            for entity in graph.by_alias.get(key, ()):
                if entity not in graph.self_ids:
                    keys = graph.aliases[entity]
                    if keys & question.names:
                        named.add(entity)
                    if keys & question.kin:
                        kin.add(entity)
    return named, kin


def _walk(view: _View, seeds: frozenset[str], way: frozenset[str], asked: frozenset[str]) -> dict[str, float]:
    """Entity → its best weight over every walk of up to `MAX_HOPS` hops from a seed (one on the
    way weighs `WAY`). Weights only shrink along a walk, so the best of each hop's best is the best walk."""
    reached = {entity: view.share(entity) * (WAY if entity in way else 1.0) for entity in seeds}
    frontier = dict(reached)
    for _ in range(MAX_HOPS):
        step: dict[str, float] = {}
        for entity, weight in frontier.items():
            for other, predicate, _ in view.links(entity):
                # Everyone is related to the user: it links nothing. An entity on the way keeps its
                # weight: walking back to it from the target ("Omar" → "Lena") does not make it one.
                if other not in view.is_self and other not in way:
                    hop = ASKED_HOP if predicate in asked else OTHER_HOP
                    _keep_best(step, other, weight * hop * view.share(other))
        for entity, weight in step.items():
            _keep_best(reached, entity, weight)
        frontier = step
    return reached


def _keep_best(best: dict[str, float], key: str, score: float) -> None:
    if score > best.get(key, -1.0):
        best[key] = score
