"""Each namespace's entity graph held in memory for recall's walk (`memory_core.entities.recall`).

A question reaches a handful of entities and relations; walked by PostgreSQL (a recursive CTE in
a PL/pgSQL function) that cost about 0.5 ms a recall, most of recall's extra time with the graph
on, where walking a graph held in memory takes a few hundredths of one. A graph is kept under its
namespace's `graph_version`, which triggers move on every write to the entity, relation, mention
and relation-support tables (migration 0022) and which recall reads with its namespaces anyway
(`memory_core.recall.scope`): a graph that changed is brought up to date in the round trip that
reads the term statistics, and is never walked stale, whichever process or path wrote it.

Up to date means the rows changed since the version held, which the same triggers log
(`GraphChange`, migration 0034), read again by id and applied to the rows kept: after a write
names someone, the next question reads that write's few rows instead of the whole graph, which
grows with every conversation a user has. A graph not held, or loaded whole longer than
`RECALL_GRAPH_CACHE_SECONDS` ago, is read whole.

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
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from config.tuning import tuned
from memory_core import process_caches
from memory_core.entities.models import (
    Entity,
    EntityMention,
    GraphChange,
    Relation,
    RelationSupport,
    window_holds,
)
from memory_core.entities.zh_forms import simplified
from memory_core.models import Namespace
from memory_core.round_trip import Read

# A graph unused this long is dropped, and one loaded this long ago read again: ten minutes keep a
# conversation's graph warm without holding a quiet user's for good.
RECALL_GRAPH_CACHE_SECONDS = 600.0
# What one entity, relation, mention or support costs held (Python's objects, measured with
# tracemalloc over the benchmark's graphs, each row kept by its id beside the walk's indexes:
# 265 bytes an item for 64 items, 195 for 10,555).
ITEM_BYTES = 250
# The changes logged are kept a day: a copy applies them only within `RECALL_GRAPH_CACHE_SECONDS`
# of reading its graph whole, and a change is stamped when its transaction began, so a day
# leaves room for the longest write.
CHANGES_KEPT = timedelta(days=1)
# A graph held with at least this many items is brought up to date with the rows changed since;
# a smaller one is read whole. Reading the changes costs a statement of five parts whatever the
# graph (about 0.7 ms, most of it planning), reading whole grows with the graph: measured on one
# namespace, whole / changes (one row) 0.49 / 0.67 ms at 51 items, 1.1 / 0.7 at 552, 4.0 / 1.1 at
# 2,553 and 21.4 / 2.9 ms at 10,554.
RECALL_GRAPH_CHANGES_FROM_ITEMS = 300


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


@dataclass(frozen=True, slots=True)
class GraphRows:
    """The rows a graph is built from, by their ids, so that a change to one can be applied."""

    entities: dict[str, tuple[frozenset[int], bool]]  # entity → its alias keys, whether the user
    relations: dict[str, GraphRelation]
    mentions: dict[int, tuple[str, str]]  # mention → (entity, memory)
    support: dict[int, tuple[str, str]]  # support → (relation, memory)

    @property
    def items(self) -> int:
        """What holding them costs, counted as `ITEM_BYTES` each."""
        return len(self.entities) + len(self.relations) + len(self.mentions) + len(self.support)


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
    rows: GraphRows  # what the above is built from

    @property
    def items(self) -> int:
        """Entities, relations, mentions and supports: what holding it costs (`ITEM_BYTES`)."""
        return self.rows.items


class _Cache:
    """Least recently used first out beyond the budget; a graph unused for `seconds` out whenever
    the cache is used."""

    def __init__(self) -> None:
        # key → (graph, when it was loaded, when it was last walked), least recently walked first
        self._graphs: OrderedDict[tuple[str, int], tuple[NamespaceGraph, float, float]] = OrderedDict()
        self._items = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int], version: int) -> tuple[NamespaceGraph | None, Held | None]:
        """The graph held at `version`; else the one held at another, to bring up to date (with
        when it was read whole), when it was read whole recently enough."""
        now = time.monotonic()
        with self._lock:
            self._sweep(now)
            held = self._graphs.get(key)
            if held is None:
                return None, None
            graph, loaded, _ = held
            if now - loaded > _seconds():
                self._drop(key)
                return None, None
            if graph.version != version:
                return None, Held(graph, loaded)
            self._graphs[key] = (graph, loaded, now)
            self._graphs.move_to_end(key)
            return graph, None

    def put(self, key: tuple[str, int], graph: NamespaceGraph, loaded: float | None = None) -> None:
        """Hold `graph`, read whole at `loaded` (now unless given: a graph brought up to date
        keeps the time its base was read whole)."""
        now = time.monotonic()
        with self._lock:
            if key in self._graphs:
                self._drop(key)
            self._graphs[key] = (graph, now if loaded is None else loaded, now)
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


@dataclass(frozen=True, slots=True)
class Held:
    """A graph held at a version older than the namespace's, and when it was read whole."""

    graph: NamespaceGraph
    loaded: float


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


def _changes_from_items() -> int:
    return int(tuned("RECALL_GRAPH_CHANGES_FROM_ITEMS", RECALL_GRAPH_CHANGES_FROM_ITEMS))


def _key(namespace_id: int) -> tuple[str, int]:
    # The database too: a process may serve several (the tests' database, the benchmarks').
    return (str(connection.settings_dict["NAME"]), namespace_id)


def cached(versions: dict[int, int]) -> tuple[list[NamespaceGraph], list[Read[list[NamespaceGraph]]]]:
    """The graphs held at the versions given (namespace id → `graph_version`), and the reads that
    bring the others up to date (none when every graph is held): the changes since the version
    held where a large enough one is, the whole graph where none is."""
    current: list[NamespaceGraph] = []
    missing: list[int] = []
    stale: dict[int, Held] = {}
    for namespace_id, version in versions.items():
        graph, older = _CACHE.get(_key(namespace_id), version)
        if graph is not None:
            current.append(graph)
        elif older is not None and older.graph.items >= _changes_from_items():
            stale[namespace_id] = older
        else:
            missing.append(namespace_id)
    reads = [load_read(missing)] if missing else []
    return current, reads + ([changes_read(stale)] if stale else [])


def clear() -> None:
    """Forget every graph held (the benchmarks' cold runs)."""
    _CACHE.clear()


def held() -> int:
    """How many graphs are held."""
    return len(_CACHE)


process_caches.register(clear, held)  # the names of an erased memory's people


def held_bytes() -> int:
    """About how much memory the graphs held take (`ITEM_BYTES` an item)."""
    return _CACHE.items * ITEM_BYTES


# Each table's columns as the graph keeps them; a mention's and a support's own id first, so that
# a change to one can be applied.
_COLUMNS = {
    "entities": "e.id, e.aliases, e.is_self",
    "relations": "e.id, e.subject_id, e.object_id, e.predicate, e.valid_from, e.valid_to, e.start_known",
    "mentions": "e.id, e.entity_id, e.entry_id",
    "support": "e.id, e.relation_id, e.entry_id",
}


def _tables() -> dict[str, str]:
    return {
        "entities": Entity._meta.db_table,
        "relations": Relation._meta.db_table,
        "mentions": EntityMention._meta.db_table,
        "support": RelationSupport._meta.db_table,
    }


@functools.cache
def _load_sql() -> str:
    lists = ", ".join(
        f"(SELECT json_agg(json_build_array({_COLUMNS[part]})) FROM {table} e WHERE e.namespace_id = n.id)"  # noqa: S608
        for part, table in _tables().items()
    )
    n = Namespace._meta.db_table
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


@functools.cache
def _changes_sql() -> str:
    # The rows changed since each version held, read again by id: a row changed and gone is one
    # listed in `changed` that its table no longer has. One statement, so one snapshot: the
    # version read is the one the rows are at.
    ids = {"entities": "row_uuid", "relations": "row_uuid", "mentions": "row_number", "support": "row_number"}
    kinds = {
        "entities": GraphChange.Kind.ENTITY,
        "relations": GraphChange.Kind.RELATION,
        "mentions": GraphChange.Kind.MENTION,
        "support": GraphChange.Kind.SUPPORT,
    }
    lists = ", ".join(
        f"(SELECT json_agg(json_build_array({_COLUMNS[part]})) FROM {table} e WHERE e.namespace_id = n.id "  # noqa: S608
        f"AND e.id IN (SELECT c.{ids[part]} FROM changed c "
        f"WHERE c.namespace_id = n.id AND c.kind = {kinds[part]:d}))"
        for part, table in _tables().items()
    )
    n, c = Namespace._meta.db_table, GraphChange._meta.db_table
    return (
        f"WITH held (id, version) AS (SELECT * FROM unnest(%s::bigint[], %s::bigint[])), "  # noqa: S608
        f"changed AS (SELECT DISTINCT c.namespace_id, c.kind, c.row_uuid, c.row_number FROM {c} c "
        "JOIN held h ON c.namespace_id = h.id AND c.version > h.version) "
        "SELECT n.id, n.graph_version, (SELECT json_agg(json_build_array(c.kind, "
        "coalesce(c.row_uuid::text, c.row_number::text))) FROM changed c WHERE c.namespace_id = n.id), "
        f"{lists} FROM {n} n JOIN held h ON h.id = n.id"
    )


def changes_read(stale: dict[int, Held]) -> Read[list[NamespaceGraph]]:
    """The graphs held at an older version (namespace id → what is held) brought up to date with
    the rows changed since; parsing them also keeps them."""
    ids = list(stale)
    versions = [stale[namespace_id].graph.version for namespace_id in ids]
    return Read(_changes_sql(), [ids, versions], functools.partial(_keep_changed, stale))


def _keep_changed(stale: dict[int, Held], rows: list[tuple[Any, ...]]) -> list[NamespaceGraph]:
    graphs = []
    for namespace_id, version, changed, *current in rows:
        held = stale[namespace_id]
        graph = _applied(held.graph, version, _rows(changed), *map(_rows, current))
        _CACHE.put(_key(namespace_id), graph, loaded=held.loaded)
        graphs.append(graph)
    return graphs


def _rows(value: Any) -> list[list[Any]]:
    if value is None:
        return []
    return json.loads(value) if isinstance(value, str) else value


def _applied(
    held: NamespaceGraph,
    version: int,
    changed: list[list[Any]],
    entities: list[list[Any]],
    relations: list[list[Any]],
    mentions: list[list[Any]],
    support: list[list[Any]],
) -> NamespaceGraph:
    """`held` with each changed row as it is now (gone, or read again), its indexes changed only
    where those rows were: the graph of a long-lived user is thousands of rows, a write's few."""
    read = GraphRows({}, {}, {}, {})
    _read_into(read, entities, relations, mentions, support)
    patch = _Patch(held)
    for kind, row_id in changed:
        if kind == GraphChange.Kind.ENTITY:
            patch.entity(row_id, read.entities.get(row_id))
        elif kind == GraphChange.Kind.RELATION:
            patch.relation(row_id, read.relations.get(row_id))
        elif kind == GraphChange.Kind.MENTION:
            patch.pair(patch.rows.mentions, patch.mentioned, int(row_id), read.mentions.get(int(row_id)))
        else:
            patch.pair(patch.rows.support, patch.supported, int(row_id), read.support.get(int(row_id)))
    return patch.graph(version)


class _Patch:
    """Copies of a held graph's rows and indexes, changed row by row."""

    def __init__(self, held: NamespaceGraph) -> None:
        old = held.rows
        self.held = held
        self.rows = GraphRows(dict(old.entities), dict(old.relations), dict(old.mentions), dict(old.support))
        self.by_alias, self.aliases = dict(held.by_alias), dict(held.aliases)
        self.by_entity, self.mentioned, self.supported = (
            dict(held.relations),
            dict(held.mentions),
            dict(held.support),
        )
        self.self_ids = set(held.self_ids)

    def entity(self, entity_id: str, now: tuple[frozenset[int], bool] | None) -> None:
        before = self.rows.entities.pop(entity_id, None)
        before_keys = before[0] if before else frozenset()
        after_keys = now[0] if now else frozenset()
        for key in before_keys - after_keys:
            _without(self.by_alias, key, entity_id)
        for key in after_keys - before_keys:
            self.by_alias[key] = (*self.by_alias.get(key, ()), entity_id)
        self.aliases.pop(entity_id, None)
        self.self_ids.discard(entity_id)
        if now is not None:
            self.rows.entities[entity_id] = now
            self.aliases[entity_id] = after_keys
            if now[1]:
                self.self_ids.add(entity_id)

    def relation(self, relation_id: str, now: GraphRelation | None) -> None:
        gone = self.rows.relations.pop(relation_id, None)
        for end in _ends(gone):
            kept = tuple(r for r in self.by_entity.get(end, ()) if r.id != relation_id)
            if kept:
                self.by_entity[end] = kept
            else:
                self.by_entity.pop(end, None)
        if now is not None:
            self.rows.relations[relation_id] = now
            for end in _ends(now):
                self.by_entity[end] = (*self.by_entity.get(end, ()), now)

    @staticmethod
    def pair(
        kept: dict[int, tuple[str, str]],
        index: dict[str, tuple[str, ...]],
        row_id: int,
        now: tuple[str, str] | None,
    ) -> None:
        """A mention (entity, memory) or a support (relation, memory)."""
        gone = kept.pop(row_id, None)
        if gone is not None:
            _without(index, gone[0], gone[1])
        if now is not None:
            kept[row_id] = now
            index[now[0]] = (*index.get(now[0], ()), now[1])

    def graph(self, version: int) -> NamespaceGraph:
        return NamespaceGraph(
            namespace_id=self.held.namespace_id,
            version=version,
            by_alias=self.by_alias,
            aliases=self.aliases,
            self_ids=frozenset(self.self_ids),
            mentions=self.mentioned,
            relations=self.by_entity,
            support=self.supported,
            rows=self.rows,
        )


def _ends(relation: GraphRelation | None) -> list[str]:
    """The entities a relation is listed under, as `_build` lists it: both ends, a relation to a
    value under its subject only."""
    if relation is None:
        return []
    return [relation.subject] if relation.object is None else [relation.subject, relation.object]


def _without(index: dict[Any, tuple[str, ...]], key: Any, value: str) -> None:
    """`index[key]` with one `value` fewer (a mention is one memory once; an entity one alias key
    once), and no key left for an empty tuple, as a graph read whole has none."""
    values = list(index.get(key, ()))
    if value in values:
        values.remove(value)
    if values:
        index[key] = tuple(values)
    else:
        index.pop(key, None)


def _read_into(
    rows: GraphRows,
    entities: list[list[Any]],
    relations: list[list[Any]],
    mentions: list[list[Any]],
    support: list[list[Any]],
) -> None:
    for entity_id, names, is_self in entities:
        rows.entities[entity_id] = (frozenset(alias_key(name) for name in names or ()), bool(is_self))
    for relation_id, subject, obj, predicate, valid_from, valid_to, known in relations:
        rows.relations[relation_id] = GraphRelation(
            relation_id,
            subject,
            obj,
            predicate,
            datetime.fromisoformat(valid_from),
            datetime.fromisoformat(valid_to) if valid_to else None,
            bool(known),
        )
    for mention_id, entity_id, entry_id in mentions:
        rows.mentions[mention_id] = (entity_id, entry_id)
    for support_id, relation_id, entry_id in support:
        rows.support[support_id] = (relation_id, entry_id)


def _graph(
    namespace_id: int, version: int, entities: Any, relations: Any, mentions: Any, support: Any
) -> NamespaceGraph:
    rows = GraphRows({}, {}, {}, {})
    _read_into(rows, *map(_rows, (entities, relations, mentions, support)))
    return _build(namespace_id, version, rows)


def _build(namespace_id: int, version: int, rows: GraphRows) -> NamespaceGraph:
    """The graph as the walk reads it, from its rows."""
    by_alias: dict[int, list[str]] = {}
    self_ids: set[str] = set()
    for entity_id, (keys, is_self) in rows.entities.items():
        for key in keys:
            by_alias.setdefault(key, []).append(entity_id)
        if is_self:
            self_ids.add(entity_id)
    by_entity: dict[str, list[GraphRelation]] = {}
    for relation in rows.relations.values():
        by_entity.setdefault(relation.subject, []).append(relation)
        if relation.object is not None:
            by_entity.setdefault(relation.object, []).append(relation)
    mentioned: dict[str, list[str]] = {}
    for entity_id, entry_id in rows.mentions.values():
        mentioned.setdefault(entity_id, []).append(entry_id)
    supported: dict[str, list[str]] = {}
    for relation_id, entry_id in rows.support.values():
        supported.setdefault(relation_id, []).append(entry_id)
    return NamespaceGraph(
        namespace_id=namespace_id,
        version=version,
        by_alias={key: tuple(ids) for key, ids in by_alias.items()},
        aliases={entity_id: keys for entity_id, (keys, _) in rows.entities.items()},
        self_ids=frozenset(self_ids),
        mentions={key: tuple(ids) for key, ids in mentioned.items()},
        relations={key: tuple(items) for key, items in by_entity.items()},
        support={key: tuple(ids) for key, ids in supported.items()},
        rows=rows,
    )


def prune_changes(now: datetime | None = None) -> int:
    """Delete the graph changes logged longer ago than `CHANGES_KEPT`; how many."""
    deleted, _ = GraphChange.objects.filter(at__lt=(now or timezone.now()) - CHANGES_KEPT).delete()
    return deleted
