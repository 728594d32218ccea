"""The write pipeline for several statements into one namespace: `memory_add_many`.

The same steps and guarantees as `pipeline.write` for each statement, in order, as if they were
added one by one — but the work that one-by-one repeats is done once for the batch: the pause
check, the tombstones (one query), the embeddings (one model call), the namespace lock (one
transaction), the reconciliation candidates (the three nearest entries of every statement in
one LATERAL query, the exact-wording matches and the key slots in one query each), and the
inserts of plain ADDs (one INSERT each for entries, evidence and history).

A statement that needs more than an ADD — a merge, a key slot to update, a procedure for review —
or whose duplicate could be an earlier statement of the same batch, first flushes the pending
ADDs and then goes through `pipeline.reconcile` on its own, exactly as a single add would; the
candidates are fetched again after it, as it may have changed them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from django.db import connection, transaction
from django.db.models.functions import Upper

from memory_core.choices import AddAction
from memory_core.entities.hooks import entities_after_write
from memory_core.errors import MemoryServiceError
from memory_core.models import MemoryEntry, MemoryType, Namespace, SourceKind
from memory_core.pipeline import (
    AddOutcome,
    WriteRequest,
    _min_confidence,
    classify,
    first_same_statement,
    guard_pause,
    guard_secrets,
    guard_tombstones,
    lock_namespace,
    normalise,
    reconcile,
    reconcile_scopes,
)
from memory_core.services import memory_create_many
from memory_core.tombstones import tombstones_for_batch
from memory_core.webhooks.announce import announce_outcomes

NEAREST = 3  # as `pipeline._find_duplicate`


def memory_add_many(*, namespace: Namespace, requests: list[WriteRequest]) -> list[AddOutcome]:
    """Guard, classify and reconcile `requests` into `namespace`, in order, in one transaction.

    An invalid statement raises `MemoryServiceError` with `batch_index` set, and nothing of the
    batch is kept (the caller's transaction, or this one).
    """
    requests = [_indexed(index, normalise, request) for index, request in enumerate(requests)]
    fresh = Namespace.objects.only("memory_paused", "mine_after").get(pk=namespace.pk)
    _indexed(0, guard_pause, fresh)
    outcomes: list[AddOutcome | None] = [None] * len(requests)
    tombstones = tombstones_for_batch(
        namespace=fresh, contents=[r.content for r in requests], keys=[r.key for r in requests]
    )
    accepted: list[tuple[int, WriteRequest]] = []
    with transaction.atomic():  # a flag written by the secrets guard goes with the batch
        for index, request in enumerate(requests):
            outcome, request = _guard(fresh, request, tombstones)
            if outcome is not None:
                outcomes[index] = outcome
            else:
                accepted.append((index, request))
        _embed([request for _, request in accepted], into=accepted)
        locked = lock_namespace(namespace.pk)
        _indexed(0, guard_pause, locked)  # paused while we embedded: still nothing is stored
        reconciled = _Reconciler(locked).run(accepted)
        for index, outcome in reconciled:
            outcomes[index] = outcome
        entities_after_write(outcomes=[outcome for _, outcome in reconciled])
        announce_outcomes(outcome for _, outcome in reconciled)  # webhooks, as `pipeline.write` does
    return [outcome for outcome in outcomes if outcome is not None]


def _indexed(index: int, step: Any, *args: Any) -> Any:
    try:
        return step(*args)
    except MemoryServiceError as exc:
        exc.batch_index = index  # type: ignore[attr-defined]  # which statement, for the caller
        raise


def _guard(
    namespace: Namespace, request: WriteRequest, tombstones: list[Any]
) -> tuple[AddOutcome | None, WriteRequest]:
    ignored = guard_tombstones(namespace, request, tombstones)
    if ignored is not None:
        return ignored, request
    request, secret_outcome = guard_secrets(namespace, request)
    if secret_outcome is not None:
        return secret_outcome, request
    if request.source_kind == SourceKind.EXTRACTED and request.confidence < _min_confidence():
        reason = f"confidence {request.confidence:.2f} below the threshold"
        return AddOutcome(AddAction.IGNORED, None, reason=reason), request
    return None, classify(request)


def _embed(requests: list[WriteRequest], *, into: list[tuple[int, WriteRequest]]) -> None:
    """One model call for every statement the caller did not embed."""
    missing = [position for position, request in enumerate(requests) if request.embedding is None]
    if not missing:
        return
    from memory_core.embeddings import get_embedder

    vectors = get_embedder().embed([requests[position].content for position in missing])
    for position, vector in zip(missing, vectors, strict=True):
        index, request = into[position]
        into[position] = (index, replace(request, embedding=vector))


class _Reconciler:
    """Reconciles a batch in order; plain ADDs wait in `pending` and are inserted together."""

    def __init__(self, namespace: Namespace) -> None:
        self.namespace = namespace
        self.pending: list[tuple[int, WriteRequest]] = []
        # Entries written since the candidates were fetched (pending ones included, unsaved).
        self.fresh: list[MemoryEntry] = []
        self.nearest: dict[int, list[MemoryEntry]] | None = None
        self.slots: dict[tuple[str, str], MemoryEntry] = {}
        self.exact: dict[int, list[MemoryEntry]] = {}

    def run(self, items: list[tuple[int, WriteRequest]]) -> list[tuple[int, AddOutcome]]:
        done: list[tuple[int, AddOutcome]] = []
        for position, (index, request) in enumerate(items):
            if request.type != MemoryType.PROCEDURAL:
                if self.nearest is None:
                    self._fetch(items[position:])
                if self._plain_add(index, request):
                    continue
            done += self._flush()
            done.append((index, _indexed(index, reconcile, self.namespace, request)))
            self.nearest = None  # it may have merged into or superseded a candidate
        return done + self._flush()

    def _plain_add(self, index: int, request: WriteRequest) -> bool:
        """Queue `request` as an ADD when nothing in the namespace or the batch says the same
        thing and its key slot is empty; False when it needs `reconcile`."""
        assert self.nearest is not None
        if request.valid_to is not None:
            return False  # its window is checked (and refused with its index) by `reconcile`
        same_type = [entry for entry in self.fresh if entry.type == request.type]
        if request.key and (
            (request.type, request.key) in self.slots or any(e.key == request.key for e in same_type)
        ):
            return False
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
        if not self.pending:
            return []
        drafts = [(request, request.embedding or []) for _, request in self.pending]
        entries = memory_create_many(namespace=self.namespace, drafts=list(drafts))
        done = [
            (index, AddOutcome(AddAction.ADDED, entry))
            for (index, _), entry in zip(self.pending, entries, strict=True)
        ]
        self.pending = []
        return done

    def _fetch(self, items: list[tuple[int, WriteRequest]]) -> None:
        """The candidates of the remaining statements: nearest, same wording, key slots."""
        self.fresh = []  # the pending ADDs were flushed before any refetch: all in the database now
        self.nearest, self.exact, self.slots = {}, {}, {}
        by_type: dict[str, list[tuple[int, WriteRequest]]] = {}
        for index, request in items:
            if request.type != MemoryType.PROCEDURAL:
                by_type.setdefault(request.type, []).append((index, request))
        for type_, group in by_type.items():
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
            keys = {request.key for _, request in group if request.key}
            for entry in live.filter(key__in=keys).only("id", "key", "valid_from").order_by("-valid_from"):
                self.slots.setdefault((type_, entry.key), entry)


def _nearest(scope: Any, group: list[tuple[int, WriteRequest]]) -> dict[int, list[MemoryEntry]]:
    """The `NEAREST` entries of `scope` by cosine distance to each statement, in one query."""
    ids_sql, ids_params = scope.exclude(embedding__isnull=True).values("pk").query.sql_with_params()
    table = MemoryEntry._meta.db_table
    sql = f"""
        SELECT item.position, near.id, near.distance
        FROM unnest(%s::int[], %s::vector[]) AS item(position, embedding)
        CROSS JOIN LATERAL (
            SELECT e.id, e.embedding <=> item.embedding AS distance FROM {table} e
            WHERE e.id IN ({ids_sql}) ORDER BY distance LIMIT {NEAREST}
        ) AS near
    """  # noqa: S608  # Django compiled the scope; the rest are parameters
    vectors = [_vector_literal(request.embedding or []) for _, request in group]
    with connection.cursor() as cursor:
        cursor.execute(sql, [[index for index, _ in group], vectors, *ids_params])
        rows = cursor.fetchall()
    entries = MemoryEntry.objects.only("id", "type", "key", "content", "metadata").in_bulk(
        {pk for _, pk, _ in rows}
    )
    found: dict[int, list[MemoryEntry]] = {}
    for index, pk, distance in rows:
        entry = entries[pk]
        copy = MemoryEntry(
            pk=entry.pk, type=entry.type, key=entry.key, content=entry.content, metadata=entry.metadata
        )
        copy.distance = float(distance)  # type: ignore[attr-defined]
        found.setdefault(index, []).append(copy)
    for values in found.values():
        values.sort(key=lambda e: e.distance)  # type: ignore[attr-defined]
    return found


def _vector_literal(vector: list[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"
