"""Each namespace's entity graph held in memory for recall's walk (`memory_core.entities.recall`).

A question reaches a handful of entities and relations; walked by PostgreSQL (a recursive CTE in
a PL/pgSQL function) that cost about 0.5 ms a recall, most of recall's extra time with the graph
on, where walking a graph held in memory takes a few hundredths of one. A graph is kept under its
namespace's `graph_version`, which triggers move on every write to the entity, relation, mention
and relation-support tables (migration 0022) and which recall reads with its namespaces anyway
(`memory_core.recall.scope`): a graph that changed is loaded again, in the round trip that reads
the term statistics, and is never walked stale, whichever process or path wrote it.

What is kept says nothing a user said: entities, relations and memories by id, predicates,
validity windows, and each alias as a salted hash (`alias_key`, Python's per-process string hash)
that only a query's words are compared with. The graphs held take at most about
`RECALL_GRAPH_CACHE_MB` of a process's memory (counted as `ITEM_BYTES` an entity, relation,
mention or support), the least recently used out first; one unused for
`RECALL_GRAPH_CACHE_SECONDS` is dropped, and one loaded that long ago is loaded again.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection

from config.tuning import tuned
from memory_core.entities.models import Entity, EntityMention, Relation, RelationSupport, window_holds
from memory_core.entities.zh_forms import simplified
from memory_core.models import Namespace
from memory_core.round_trip import Read

# A graph unused this long is dropped, and one loaded this long ago read again: ten minutes keep a
# conversation's graph warm without holding a quiet user's for good.
RECALL_GRAPH_CACHE_SECONDS = 600.0
# What one entity, relation, mention or support costs held (Python's objects, measured with
# tracemalloc over the benchmark's graphs: about 17 KB for 22 entities, 22 relations, 43
# mentions and 24 supports).
ITEM_BYTES = 150


def alias_key(alias: str) -> int:
    """What the cache keeps of an alias (lower-case, as stored): its salted hash, of Chinese in
    simplified characters, so that "陈家豪" asked finds "陳家豪" said (`zh_forms.simplified`)."""
    return hash(alias if alias.isascii() else simplified(alias))


@dataclass(frozen=True, slots=True)
class GraphRelation:
    id: str
    subject: str
    object: str | None  # None: a relation to a value ("works as: nurse")
    predicate: str
    valid_from: datetime
    valid_to: datetime | None
    start_known: bool = True

    def holds_at(self, at: datetime) -> bool:
        return window_holds(self.valid_from, self.valid_to, at, start_known=self.start_known)


@dataclass(frozen=True)
class NamespaceGraph:
    """One namespace's graph at one version. Ids are the database's, as text."""

    namespace_id: int
    version: int
    by_alias: dict[int, tuple[str, ...]]  # alias key → the entities known by it
    aliases: dict[str, frozenset[int]]  # entity → its alias keys
    self_ids: frozenset[str]  # the user's own entity
    mentions: dict[str, tuple[str, ...]]  # entity → the memories that mention it, one per mention
    relations: dict[str, tuple[GraphRelation, ...]]  # entity → the relations it is either end of
    support: dict[str, tuple[str, ...]]  # relation → the memories it rests on
    items: int  # entities, relations, mentions and supports: what holding it costs (`ITEM_BYTES`)


class _Cache:
    """Least recently used first out beyond the budget; a graph unused for `seconds` out whenever
    the cache is used."""

    def __init__(self) -> None:
        # key → (graph, when it was loaded, when it was last walked), least recently walked first
        self._graphs: OrderedDict[tuple[str, int], tuple[NamespaceGraph, float, float]] = OrderedDict()
        self._items = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int], version: int) -> NamespaceGraph | None:
        now = time.monotonic()
        with self._lock:
            self._sweep(now)
            held = self._graphs.get(key)
            if held is None:
                return None
            graph, loaded, _ = held
            if graph.version != version or now - loaded > _seconds():
                self._drop(key)
                return None
            self._graphs[key] = (graph, loaded, now)
            self._graphs.move_to_end(key)
            return graph

    def put(self, key: tuple[str, int], graph: NamespaceGraph) -> None:
        now = time.monotonic()
        with self._lock:
            if key in self._graphs:
                self._drop(key)
            self._graphs[key] = (graph, now, now)
            self._items += graph.items
            self._sweep(now)

    def _drop(self, key: tuple[str, int]) -> None:
        graph, _, _ = self._graphs.pop(key)
        self._items -= graph.items

    def _sweep(self, now: float) -> None:
        budget, seconds = _budget_items(), _seconds()
        while self._graphs:
            key, (_, _, used) = next(iter(self._graphs.items()))
            if self._items <= budget and now - used <= seconds:
                break
            self._drop(key)

    def clear(self) -> None:
        with self._lock:
            self._graphs.clear()
            self._items = 0

    def __len__(self) -> int:
        return len(self._graphs)

    @property
    def items(self) -> int:
        return self._items


_CACHE = _Cache()


def _fresh_cache_after_fork() -> None:
    # A forked worker may inherit the lock held by another thread of its parent: start afresh.
    global _CACHE
    _CACHE = _Cache()


os.register_at_fork(after_in_child=_fresh_cache_after_fork)


def _budget_items() -> float:
    return float(settings.RECALL_GRAPH_CACHE_MB) * 1_000_000 / ITEM_BYTES


def _seconds() -> float:
    return float(tuned("RECALL_GRAPH_CACHE_SECONDS", RECALL_GRAPH_CACHE_SECONDS))


def _key(namespace_id: int) -> tuple[str, int]:
    # The database too: a process may serve several (the tests' database, the benchmarks').
    return (str(connection.settings_dict["NAME"]), namespace_id)


def cached(versions: dict[int, int]) -> tuple[list[NamespaceGraph], list[int]]:
    """The graphs held at the versions given (namespace id → `graph_version`), and the ids of the
    namespaces whose graph must be loaded."""
    held: list[NamespaceGraph] = []
    missing: list[int] = []
    for namespace_id, version in versions.items():
        graph = _CACHE.get(_key(namespace_id), version)
        if graph is None:
            missing.append(namespace_id)
        else:
            held.append(graph)
    return held, missing


def clear() -> None:
    """Forget every graph held (the benchmarks' cold runs)."""
    _CACHE.clear()


def held() -> int:
    """How many graphs are held."""
    return len(_CACHE)


def held_bytes() -> int:
    """About how much memory the graphs held take (`ITEM_BYTES` an item)."""
    return _CACHE.items * ITEM_BYTES


@functools.cache
def _load_sql() -> str:
    n, e, r = Namespace._meta.db_table, Entity._meta.db_table, Relation._meta.db_table
    m, s = EntityMention._meta.db_table, RelationSupport._meta.db_table
    columns = {
        e: "e.id, e.aliases, e.is_self",
        r: "e.id, e.subject_id, e.object_id, e.predicate, e.valid_from, e.valid_to, e.start_known",
        m: "e.entity_id, e.entry_id",
        s: "e.relation_id, e.entry_id",
    }
    lists = ", ".join(
        f"(SELECT json_agg(json_build_array({listed})) FROM {table} e WHERE e.namespace_id = n.id)"  # noqa: S608
        for table, listed in columns.items()
    )
    return f"SELECT n.id, n.graph_version, {lists} FROM {n} n WHERE n.id = ANY(%s)"  # noqa: S608 - model tables


def load_read(namespace_ids: list[int]) -> Read[list[NamespaceGraph]]:
    """The graphs of `namespace_ids` with their versions, read in one statement (one snapshot: the
    version is the graph's); parsing them also keeps them."""
    return Read(_load_sql(), [list(namespace_ids)], _keep)


def _keep(rows: list[tuple[Any, ...]]) -> list[NamespaceGraph]:
    graphs = [_graph(*row) for row in rows]
    for graph in graphs:
        _CACHE.put(_key(graph.namespace_id), graph)
    return graphs


def _rows(value: Any) -> list[list[Any]]:
    if value is None:
        return []
    return json.loads(value) if isinstance(value, str) else value


def _graph(
    namespace_id: int, version: int, entities: Any, relations: Any, mentions: Any, support: Any
) -> NamespaceGraph:
    entities, relations, mentions, support = map(_rows, (entities, relations, mentions, support))
    by_alias: dict[int, list[str]] = {}
    aliases: dict[str, frozenset[int]] = {}
    self_ids: set[str] = set()
    for entity_id, names, is_self in entities:
        keys = frozenset(alias_key(name) for name in names or ())
        aliases[entity_id] = keys
        for key in keys:
            by_alias.setdefault(key, []).append(entity_id)
        if is_self:
            self_ids.add(entity_id)
    by_entity: dict[str, list[GraphRelation]] = {}
    for relation_id, subject, obj, predicate, valid_from, valid_to, known in relations:
        relation = GraphRelation(
            relation_id,
            subject,
            obj,
            predicate,
            datetime.fromisoformat(valid_from),
            datetime.fromisoformat(valid_to) if valid_to else None,
            bool(known),
        )
        by_entity.setdefault(subject, []).append(relation)
        if obj is not None:
            by_entity.setdefault(obj, []).append(relation)
    mentioned: dict[str, list[str]] = {}
    for entity_id, entry_id in mentions:
        mentioned.setdefault(entity_id, []).append(entry_id)
    supported: dict[str, list[str]] = {}
    for relation_id, entry_id in support:
        supported.setdefault(relation_id, []).append(entry_id)
    return NamespaceGraph(
        namespace_id=namespace_id,
        version=version,
        by_alias={key: tuple(ids) for key, ids in by_alias.items()},
        aliases=aliases,
        self_ids=frozenset(self_ids),
        mentions={key: tuple(ids) for key, ids in mentioned.items()},
        relations={key: tuple(items) for key, items in by_entity.items()},
        support={key: tuple(ids) for key, ids in supported.items()},
        items=len(entities) + len(relations) + len(mentions) + len(support),
    )
