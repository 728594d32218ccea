"""Which entries one recall may read: its namespaces (one statement) and the WHERE clause over the
entry table that the candidate searches share, both written as SQL text (docs/performance.md)."""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any, NamedTuple

from django.db import connection
from django.utils import timezone

from memory_core import lexical
from memory_core.actors import Actor
from memory_core.choices import MemoryStatus, MemoryType, NamespaceKind
from memory_core.entities.models import Entity
from memory_core.errors import MemoryServiceError
from memory_core.models import MemoryEntry, Namespace, NamespaceGrant, SearchStats
from memory_core.process_caches import ERASURES_SEEN_SQL, erasures_seen
from memory_core.querysets import HISTORICAL_STATUSES, MemoryEntryQuerySet, is_real_user

ENTRY_TABLE = MemoryEntry._meta.db_table


class RecallScope(NamedTuple):
    namespace_ids: list[int]  # every namespace read (own and shared), paused ones left out
    shared_ids: list[int]  # of them, those only shared with the actor: approved procedures only
    terms: list[str]  # of the query (`lexical.parse_terms`)
    # The namespaces whose entity graph knows someone besides the user (only these are walked),
    # each with its graph's version (`memory_core.entities.graph_cache`).
    graph_versions: dict[int, int]
    # How many entries the namespaces hold, whatever their status: a bound on the scope's size.
    size: int = 0
    actor: Actor = None

    def where(self, *, at: datetime | None = None, types: list[str] | None = None) -> tuple[str, list[Any]]:
        """The WHERE clause (SQL over the entry table, its parameters) of the entries this scope
        holds at `at` (default now), of `types` when given."""
        own = [pk for pk in self.namespace_ids if pk not in self.shared_ids]
        column = f"{ENTRY_TABLE}.namespace_id"
        if self.shared_ids:
            visible = (
                f"({column} = ANY(%s) OR ({column} = ANY(%s) "
                f"AND {ENTRY_TABLE}.type = %s AND {ENTRY_TABLE}.status = %s))"
            )
            params: list[Any] = [own, self.shared_ids, MemoryType.PROCEDURAL, MemoryStatus.ACTIVE]
        else:
            visible, params = f"{column} = ANY(%s)", [own]
        current, current_params = current_where(at)
        sql = f"{visible} AND {current}"
        params += current_params
        if types:
            sql += f" AND {ENTRY_TABLE}.type = ANY(%s)"
            params.append(list(types))
        return sql, params

    def entries(self) -> MemoryEntryQuerySet:
        """The same entries as a queryset (all statuses: add `.current(at)`), for callers that
        filter further with the ORM."""
        base = MemoryEntry.objects.visible_to(self.actor) if self.actor is not None else MemoryEntry.objects
        return base.in_namespaces(self.namespace_ids)

    def queryset(self, *, at: datetime | None = None, types: list[str] | None = None) -> MemoryEntryQuerySet:
        """`where(at, types)` as a queryset: the same rows, for searches written with the ORM (the
        cross-language recall's)."""
        scope = self.entries().current(at=at)
        return scope.filter(type__in=types) if types else scope


def current_where(at: datetime | None) -> tuple[str, list[Any]]:
    """`MemoryEntryQuerySet.current(at)` as SQL text: now, the active entries inside their validity
    window and before their TTL; at a past instant, whatever was valid then, superseded or expired
    since included."""
    now = timezone.now()
    when = at or now
    t = ENTRY_TABLE
    window = f"({t}.valid_from <= %s OR NOT {t}.start_known) AND ({t}.valid_to IS NULL OR {t}.valid_to > %s)"
    if at is None or at >= now:
        ttl = f"({t}.expires_at IS NULL OR {t}.expires_at > %s)"
        return f"{window} AND {ttl} AND {t}.status = %s", [when, when, when, MemoryStatus.ACTIVE]
    return f"{window} AND {t}.status = ANY(%s)", [when, when, [str(s) for s in HISTORICAL_STATUSES]]


@functools.cache
def _namespace_select() -> str:
    """The columns read per namespace: its entry count, whether its graph knows anyone besides
    the user, its graph's version, the erasures' sequence and the query's parsed terms (the last
    two the same on every row)."""
    n = Namespace._meta.db_table
    stats, entity = SearchStats._meta.db_table, Entity._meta.db_table
    return (
        f"COALESCE((SELECT s.entries FROM {stats} s WHERE s.namespace_id = {n}.id LIMIT 1), 0), "  # noqa: S608
        f"EXISTS (SELECT 1 FROM {entity} e WHERE e.namespace_id = {n}.id AND NOT e.is_self), "
        f"{n}.graph_version, {ERASURES_SEEN_SQL}, "
    )


def read(
    *, actor: Actor = None, namespaces: list[Namespace] | None = None, terms_of: str = ""
) -> RecallScope:
    """The scope of one recall, for an actor or for trusted callers' namespaces, and the terms of
    `terms_of`, in one statement. An empty scope (no namespace, or an actor who paused memory)
    has no namespace ids.

    An actor reads their own namespaces whole, and the approved (active) procedures of the org and
    agent namespaces granted to them; a paused own namespace means nothing is recalled at all. A
    trusted caller names the namespaces; paused ones are left out. The rules are the querysets'
    own (`NamespaceQuerySet.owned_by` / `shared_with`, `MemoryEntryQuerySet.visible_to` /
    `current`): tests/memory_core/test_recall_scope.py checks that both select the same rows."""
    if (actor is None) == (namespaces is None):
        raise MemoryServiceError("Recall needs either an actor or a list of namespaces, not both.")
    n = Namespace._meta.db_table
    parsed = lexical.terms_expression(terms_of) if terms_of else None
    parsed_sql, parsed_params = (parsed.sql, list(parsed.params)) if parsed is not None else ("''", [])
    columns = f"{n}.id, {n}.memory_paused, {_namespace_select()}{parsed_sql}"
    if actor is not None:
        if not is_real_user(actor):
            return RecallScope([], [], [], {}, actor=actor)
        grants = NamespaceGrant._meta.db_table
        sql = (
            f"SELECT {columns}, {n}.owner_id IS NOT DISTINCT FROM %s FROM {n} "  # noqa: S608
            f"WHERE {n}.owner_id = %s OR ({n}.kind <> %s AND EXISTS "
            f"(SELECT 1 FROM {grants} g WHERE g.namespace_id = {n}.id AND g.user_id = %s))"
        )
        params = [*parsed_params, actor.pk, actor.pk, NamespaceKind.USER, actor.pk]
    else:
        sql = f"SELECT {columns}, TRUE FROM {n} WHERE {n}.id = ANY(%s)"  # noqa: S608
        params = [*parsed_params, [namespace.pk for namespace in namespaces or []]]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # Pause is enforced here, not by each caller: a user who paused memory gets nothing recalled,
    # not even the procedures shared with them.
    if rows:
        erasures_seen(rows[0][5])  # before any cache of this process answers the question
    if actor is not None and any(paused and own for _, paused, _, _, _, _, _, own in rows):
        return RecallScope([], [], [], {}, actor=actor)
    kept = [row for row in rows if not row[1]]
    return RecallScope(
        namespace_ids=[row[0] for row in kept],
        shared_ids=[row[0] for row in kept if not row[7]],
        terms=lexical.split_terms(rows[0][6]) if terms_of and rows else [],
        graph_versions={row[0]: row[4] for row in kept if row[3]},
        size=sum(row[2] for row in kept),
        actor=actor,
    )
