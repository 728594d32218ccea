"""The write pipeline for several statements into one namespace: `memory_add_many`.

The same steps and guarantees as `pipeline.write` for each statement, in order, as if they were
added one by one — but the work that one-by-one repeats is done once for the batch: the pause
check with the tombstones (one query), the embeddings of the statements and of their contexts
(one model call), the namespace lock with the webhook check (one transaction, one query), the
reconciliation candidates (the nearest entries of every statement in one LATERAL query, the
exact-wording matches and the key slots in one query each, per memory type), and the inserts of
plain ADDs and of procedures for review (one INSERT each for entries, evidence and history).

A statement that needs more than that — a merge, a key slot to update — or whose duplicate could
be an earlier statement of the same batch, first flushes the pending inserts and then goes
through `reconciliation.reconcile` on its own, exactly as a single add would; the candidates of its
memory type are fetched again after it, as it may have changed them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.db.models.functions import Upper

from memory_core.choices import AddAction
from memory_core.embeddings import vector_literal
from memory_core.entities.hooks import entities_after_write
from memory_core.errors import MemoryServiceError
from memory_core.models import MemoryEntry, MemoryType, Namespace
from memory_core.outcomes import AddOutcome
from memory_core.people_known import PeopleKnown
from memory_core.people_reread import reread
from memory_core.pipeline import embed, last_turn_vector, normalise, with_previous_turns, within_rule
from memory_core.reading.slots import related_slot_keys
from memory_core.reconciliation import (
    NEAREST,
    corrected_away,
    first_same_statement,
    held_for_review,
    lock_for_write,
    reconcile,
    reconcile_scopes,
)
from memory_core.sameness import value_tokens
from memory_core.screening import guard_pause, screen
from memory_core.services import memory_create_many
from memory_core.tombstones import namespace_with_tombstones
from memory_core.vector_storage import MEMORY_VECTOR_TYPE
from memory_core.webhooks.announce import announce_outcomes
from memory_core.write_request import WriteRequest

PENDING_REASON = "Awaiting operator review."  # as `reconciliation.reconcile` for a procedure


def memory_add_many(*, namespace: Namespace, requests: list[WriteRequest]) -> list[AddOutcome]:
    """Guard, classify and reconcile `requests` into `namespace`, in order, in one transaction.

    An invalid statement raises `MemoryServiceError` with `batch_index` set, and nothing of the
    batch is kept (the caller's transaction, or this one).
    """
    requests = [_indexed(index, normalise, request) for index, request in enumerate(requests)]
    fresh, tombstones = namespace_with_tombstones(
        namespace_id=namespace.pk,
        contents=[r.content for r in requests],
        keys=[r.key for r in requests],
        turns=any(r.turn for r in requests),
    )
    _indexed(0, guard_pause, fresh)
    outcomes: list[AddOutcome | None] = [None] * len(requests)
    accepted: list[tuple[int, WriteRequest]] = []
    facts: list[tuple[int, WriteRequest]] = []  # the safety facts held rules state first
    people = PeopleKnown(fresh.pk)  # the graph as the batch found it, read once if needed
    with transaction.atomic():  # a flag written by the secrets guard goes with the batch
        for index, request in enumerate(requests):
            outcome, screened = screen(fresh, request, tombstones, people)
            if outcome is not None:
                outcomes[index] = outcome
            else:
                accepted.append((index, screened))
                facts += [(index, fact) for fact in within_rule(fresh, request, screened, tombstones, people)]
        turns = with_previous_turns([request for _, request in accepted], last=fresh.last_turn)  # type: ignore[attr-defined]
        # before the lock: keeps it short
        embedded = embed([*turns, *(fact for _, fact in facts)], known=last_turn_vector(fresh))
        statements, derived = embedded[: len(turns)], embedded[len(turns) :]
        accepted = [(index, request) for (index, _), request in zip(accepted, statements, strict=True)]
        facts = [(index, fact) for (index, _), fact in zip(facts, derived, strict=True)]
        locked = lock_for_write(namespace.pk)
        _indexed(0, guard_pause, locked)  # paused while we embedded: still nothing is stored
        reconciled = _Reconciler(locked).run(accepted)
        for index, outcome in reconciled:
            outcomes[index] = outcome
        # After the batch's own statements, as `pipeline.write` stores them after the rule.
        also = _Reconciler(locked).run(facts) if facts else []
        for index, outcome in also:
            held = outcomes[index]
            outcomes[index] = replace(held, also=(*held.also, outcome)) if held is not None else outcome
        written = [outcome for _, outcome in [*reconciled, *also]]
        earlier = entities_after_write(outcomes=written, names_known=locked.names_known)  # type: ignore[attr-defined]
        reread(earlier)  # as `pipeline.write` does: the batch's own statements too
        # Webhooks, as `pipeline.write` does.
        announce_outcomes(written, listening=locked.webhooks_listening)  # type: ignore[attr-defined]
    return [outcome for outcome in outcomes if outcome is not None]


def _indexed(index: int, step: Any, *args: Any) -> Any:
    try:
        return step(*args)
    except MemoryServiceError as exc:
        exc.batch_index = index  # type: ignore[attr-defined]  # which statement, for the caller
        raise


class _Reconciler:
    """Reconciles a batch in order; plain ADDs and procedures for review wait in `pending` and are
    inserted together."""

    def __init__(self, namespace: Namespace) -> None:
        self.namespace = namespace
        self.pending: list[tuple[int, WriteRequest]] = []
        # Entries written since their type's candidates were fetched (pending ones included, unsaved).
        self.fresh: list[MemoryEntry] = []
        self.fetched: set[str] = set()  # the memory types whose candidates below are current
        self.nearest: dict[int, list[MemoryEntry]] = {}
        self.slots: dict[tuple[str, str], MemoryEntry] = {}
        self.exact: dict[int, list[MemoryEntry]] = {}
        self.corrected: dict[str, list[frozenset[str]]] = {}  # values corrected away, per type

    def run(self, items: list[tuple[int, WriteRequest]]) -> list[tuple[int, AddOutcome]]:
        done: list[tuple[int, AddOutcome]] = []
        for position, (index, request) in enumerate(items):
            if request.type not in self.fetched:
                self._fetch(request.type, items[position:])
            if self._queued(index, request):
                continue
            done += self._flush()
            done.append((index, _indexed(index, reconcile, self.namespace, request)))
            # It may have merged into or superseded a candidate of its type (and only of its type).
            self.fetched.discard(request.type)
        return done + self._flush()

    def _queued(self, index: int, request: WriteRequest) -> bool:
        """Queue `request` for insertion when nothing in the namespace or the batch says the same
        thing and (a fact) its key slot is empty; False when it needs `reconcile`."""
        if request.valid_to is not None:
            return False  # its window is checked (and refused with its index) by `reconcile`
        same_type = [entry for entry in self.fresh if entry.type == request.type]
        procedural = request.type == MemoryType.PROCEDURAL
        if (
            request.key
            and not procedural
            and (
                any((request.type, key) in self.slots for key in related_slot_keys(request.key))
                or any(e.key in related_slot_keys(request.key) for e in same_type)
            )
        ):
            return False
        if any(
            taken and taken <= value_tokens(request.content) for taken in self.corrected.get(request.type, [])
        ):
            return False  # it may name a value the user corrected away: `reconcile` decides
        vector = np.asarray(request.embedding, dtype=np.float64)
        for entry in same_type:
            distance = 1.0 - float(np.dot(vector, np.asarray(entry.embedding, dtype=np.float64)))
            entry.distance = distance  # type: ignore[attr-defined]  # as annotate() would
        nearest = sorted(
            [*self.nearest.get(index, []), *same_type],
            key=lambda e: e.distance,  # type: ignore[attr-defined]
        )[:NEAREST]
        wording = request.content.upper()
        exact = [e for e in [*self.exact.get(index, []), *same_type] if e.content.upper() == wording][:1]
        if first_same_statement(nearest + exact, request) is not None:
            return False
        self.pending.append((index, request))
        self.fresh.append(
            MemoryEntry(
                type=request.type,
                key=request.key,
                content=request.content,
                metadata=request.metadata,
                embedding=request.embedding,
            )
        )
        return True

    def _flush(self) -> list[tuple[int, AddOutcome]]:
        """Insert the pending statements: ADDs, and procedures waiting for review as
        `reconciliation.reconcile` would store them (flagged when they would weaken a policy)."""
        if not self.pending:
            return []
        drafts = [
            (
                request,
                (request.embedding or [], request.context_embedding or request.embedding or []),
                PENDING_REASON if request.type == MemoryType.PROCEDURAL else "",
            )
            for _, request in self.pending
        ]
        entries = memory_create_many(namespace=self.namespace, drafts=drafts)
        done = []
        for (index, request), entry in zip(self.pending, entries, strict=True):
            if request.type != MemoryType.PROCEDURAL:
                done.append((index, AddOutcome(AddAction.ADDED, entry)))
                continue
            done.append((index, held_for_review(entry, request)))
        self.pending = []
        return done

    def _fetch(self, type_: str, items: list[tuple[int, WriteRequest]]) -> None:
        """The candidates of the remaining statements of `type_`: nearest, same wording, key slots.
        The pending statements were flushed before any refetch: all in the database now."""
        self.fresh = [entry for entry in self.fresh if entry.type != type_]
        self.slots = {slot: entry for slot, entry in self.slots.items() if slot[0] != type_}
        group = [(index, request) for index, request in items if request.type == type_]
        live, dup_scope = reconcile_scopes(self.namespace.pk, type_)
        self.nearest.update(_nearest(dup_scope, group))
        wordings = {request.content.upper() for _, request in group}
        same = list(
            dup_scope.annotate(wording=Upper("content"))
            .filter(wording__in=wordings)
            .only("id", "type", "key", "content", "metadata")
        )
        for index, request in group:
            self.exact[index] = [e for e in same if e.content.upper() == request.content.upper()]
        keys = {key for _, request in group if request.key for key in related_slot_keys(request.key)}
        if keys and type_ != MemoryType.PROCEDURAL:
            for entry in live.filter(key__in=keys).only("id", "key", "valid_from").order_by("-valid_from"):
                self.slots.setdefault((type_, entry.key), entry)
        # Read only where the user has corrected something (`lock_for_write` says so): rarely.
        made = getattr(self.namespace, "corrections_made", True)
        self.corrected[type_] = (
            corrected_away(self.namespace.pk, type_) if made and type_ != MemoryType.PROCEDURAL else []
        )
        self.fetched.add(type_)


def _nearest(scope: Any, group: list[tuple[int, WriteRequest]]) -> dict[int, list[MemoryEntry]]:
    """The `NEAREST` entries of `scope` by cosine distance to each statement, in one query."""
    found: dict[int, list[MemoryEntry]] = {}
    if not group:
        return found
    ids_sql, ids_params = scope.exclude(embedding__isnull=True).values("pk").query.sql_with_params()
    table = MemoryEntry._meta.db_table
    sql = f"""
        SELECT item.position, near.id, near.type, near.key, near.content, near.metadata, near.distance
        FROM unnest(%s::int[], %s::{MEMORY_VECTOR_TYPE}[]) AS item(position, embedding)
        CROSS JOIN LATERAL (
            SELECT e.id, e.type, e.key, e.content, e.metadata, e.embedding <=> item.embedding AS distance
            FROM {table} e WHERE e.id IN ({ids_sql}) ORDER BY distance LIMIT {NEAREST}
        ) AS near
    """  # noqa: S608  # Django compiled the scope; the rest are parameters
    vectors = [vector_literal(request.embedding or []) for _, request in group]
    with connection.cursor() as cursor:
        cursor.execute(sql, [[index for index, _ in group], vectors, *ids_params])
        rows = cursor.fetchall()
    for index, pk, type_, key, content, metadata, distance in rows:
        entry = MemoryEntry(pk=pk, type=type_, key=key, content=content, metadata=_json(metadata))
        entry.distance = float(distance)  # type: ignore[attr-defined]
        found.setdefault(index, []).append(entry)
    for values in found.values():
        values.sort(key=lambda e: e.distance)  # type: ignore[attr-defined]
    return found


def _json(value: Any) -> Any:
    """A jsonb column read by a raw cursor: decoded by psycopg, or text with another driver."""
    return json.loads(value) if isinstance(value, str) else value
