"""`CONTEXT_VECTOR = "deferred"`: a turn's context document embedded later, in batches, by a job.

The write path embeds the statement only (one transformer pass per memory) and stores at once a
stand-in context vector: `search_context.pooled_context` of the statement's vector and the turn
before's, when that one is at hand (stored, in the same batch, in the query cache), else the
statement's own vector. The entry is marked `context_pending`, and the commit asks for the job
(`context_vectors_request`: one one-off django-q schedule, `CONTEXT_JOB_DELAY_SECONDS` ahead,
that a burst of adds shares; a writer whose namespace lock found it waiting holds it instead,
`run_held`; the `context-vectors` schedule of `memory_core.schedules` is the safety net).
Recall never sees a missing context vector: until the job has run it searches the stand-in,
afterwards exactly what `CONTEXT_VECTOR = "document"` stores.

The job (`context_vectors_run`) reads the waiting entries oldest first, embeds their context
documents ("turn before\\nturn") `embeddings.batch_size()` to a model call, holding no lock and no
transaction meanwhile, and then stores each vector with one conditional UPDATE: only where the
row is still waiting, with the same content, context and embedding model as what was embedded,
and not locked by a write at that moment (SKIP LOCKED: the job never waits on a user). A row
erased in between is gone; one whose context was scrubbed by an erasure is no longer waiting;
one a user's write held is left waiting for the next run. Nothing it embeds is kept anywhere
else (`Embedder.embed` keeps no copy; the query cache is not used). A run is bounded
(`CONTEXT_JOB_MAX_ENTRIES`, and a quarter of the task timeout), and the task queues the next
while more wait (`memory_core.tasks.run_context_vectors`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, F, Q, QuerySet
from django.db.models.expressions import RawSQL
from django_q.models import Schedule

from config.tuning import tuned
from memory_core.embeddings import batch_size, get_embedder, vector_literal
from memory_core.jobs import JobReport, one_off_soon
from memory_core.leases import task_timeout
from memory_core.models import MemoryEntry
from memory_core.search_context import context_document
from memory_core.vector_storage import MEMORY_VECTOR_TYPE

SOON_SCHEDULE = "context-vectors-soon"
TASK = "memory_core.tasks.run_context_vectors"

# A burst of adds (a conversation stored one turn per call) shares one run; the cluster's scheduler
# looks at the schedules every 30 s anyway, so this only bounds how often a run starts.
CONTEXT_JOB_DELAY_SECONDS = 5
# Entries one run embeds at most (64 a model call), and at most a quarter of the task timeout:
# the local model embeds 16-23 LoCoMo context documents a second on two busy cores (the job
# itself, 95% of its time in the model: docs/performance.md), so the time ends a run there first;
# then the next run is queued.
CONTEXT_JOB_MAX_ENTRIES = 2048


def deferred() -> bool:
    return settings.CONTEXT_VECTOR == "deferred"


# --- The request (debounce) -----------------------------------------------------------------------


def context_vectors_request(*, held: bool = False) -> None:
    """Ask for a run once the current transaction commits (its entries are then visible to it);
    nothing to ask when the transaction `held` the waiting run's schedule (`run_held`)."""
    if not held:
        transaction.on_commit(context_vectors_soon)


# The waiting one-off schedule, held FOR KEY SHARE: the cluster's scheduler takes a due schedule
# FOR UPDATE, so it waits for this transaction's commit before turning it into a task. (The ORM
# locks a subquery FOR UPDATE only, which would queue every writer behind one row.)
_RUN_HELD = (
    'EXISTS (SELECT 1 FROM "django_q_schedule" WHERE "name" = %s AND NOT ("repeats" = 0) '
    "LIMIT 1 FOR KEY SHARE)"
)


def run_held() -> RawSQL:
    """For the writer's namespace lock (`reconciliation.lock_for_write`): is a run already asked
    for? If so its schedule row stays locked until the commit, so the run starts after this
    transaction's entries are visible to it and the commit need not ask again (one statement
    less an add); if the scheduler took it meanwhile, the row is gone and the commit asks."""
    return RawSQL(_RUN_HELD, [SOON_SCHEDULE], BooleanField())  # noqa: S611  # constant SQL, a parameter


def context_vectors_soon() -> Schedule:
    """A run soon; one already waiting is shared, so a burst of writes costs one run. As the disk
    pass of erasures (`compaction.compaction_request`): a one-off schedule the cluster's scheduler
    turns into a task at `next_run` and deletes, so the next write asks for a new one."""
    delay = tuned("CONTEXT_JOB_DELAY_SECONDS", CONTEXT_JOB_DELAY_SECONDS)
    return one_off_soon(name=SOON_SCHEDULE, func=TASK, seconds=delay)


# --- The job --------------------------------------------------------------------------------------


@dataclass
class RunReport(JobReport):
    """What one run did: documents embedded and stored, left alone (changed, erased or locked
    meanwhile), and whether it stopped at its bound with more waiting."""

    embedded: int = 0
    stored: int = 0
    left: int = 0
    model_calls: int = 0
    model_seconds: float = 0.0  # of `seconds`, in the model calls


def waiting() -> int:
    """Entries whose context document is still to be embedded."""
    return MemoryEntry.objects.filter(context_pending=True).count()


def context_vectors_run(*, max_entries: int | None = None, seconds: float | None = None) -> RunReport:
    """Embed the context documents of waiting entries, oldest first, and store each vector where
    the entry is still as it was read (module docstring). Stops after `max_entries`
    (`CONTEXT_JOB_MAX_ENTRIES`) or `seconds` (a quarter of the task timeout), with `more` set when
    entries are left beyond that bound."""
    started = time.monotonic()
    limit = max_entries or int(tuned("CONTEXT_JOB_MAX_ENTRIES", CONTEXT_JOB_MAX_ENTRIES))
    budget = seconds if seconds is not None else task_timeout().total_seconds() / 4
    embedder = get_embedder()
    report = RunReport()
    _settle_without_context()
    after: tuple[datetime, object] | None = None
    size = batch_size()
    while True:
        if report.embedded >= limit or time.monotonic() - started > budget:
            report.more = _waiting_after(embedder.name, after)
            break
        rows = _next_rows(embedder.name, after, min(size, limit - report.embedded))
        if not rows:
            break
        after = (rows[-1][1], rows[-1][0])
        embedding = time.monotonic()
        vectors = embedder.embed([context_document(context, content) for _, _, content, context in rows])
        report.model_seconds += time.monotonic() - embedding
        report.model_calls += 1
        report.embedded += len(rows)
        stored = _store(rows, vectors, embedder.name)
        report.stored += stored
        report.left += len(rows) - stored
    report.seconds = time.monotonic() - started
    return report


def context_vectors_drain() -> RunReport:
    """Runs until no entry the job can complete is waiting (benches and tests; the cluster runs
    the task instead): the total of the runs."""
    total = RunReport()
    while True:
        report = context_vectors_run()
        total.add(report)
        if not report.more:
            return total


def _waiting_rows(model: str, after: tuple[datetime, object] | None) -> QuerySet[MemoryEntry]:
    rows = MemoryEntry.objects.filter(context_pending=True, embedding_model=model).exclude(search_context="")
    if after is not None:
        recorded_at, pk = after
        rows = rows.filter(Q(recorded_at__gt=recorded_at) | Q(recorded_at=recorded_at, pk__gt=pk))
    return rows


def _next_rows(model: str, after: tuple[datetime, object] | None, count: int) -> list[tuple]:
    """(id, recorded_at, content, search_context) of the next waiting entries, oldest first:
    keyset pagination, so a row left waiting is not read again by the same run."""
    rows = _waiting_rows(model, after).order_by("recorded_at", "pk")
    return list(rows.values_list("pk", "recorded_at", "content", "search_context")[:count])


def _waiting_after(model: str, after: tuple[datetime, object] | None) -> bool:
    return _waiting_rows(model, after).exists()


def _settle_without_context() -> None:
    """An entry waiting without context (none is written so; a scrub that left the flag) has its
    statement's vector as its context vector, as any entry without context: no model call."""
    MemoryEntry.objects.filter(context_pending=True, search_context="").update(
        context_pending=False, context_embedding=F("embedding")
    )


def _store(rows: list[tuple], vectors: list[list[float]], model: str) -> int:
    """One statement: each vector where its row is still waiting with the
    content and context it was computed from, under the same model, and not locked by a write
    (locked in id order, SKIP LOCKED). Returns how many rows took their vector."""
    table = MemoryEntry._meta.db_table
    sql = f"""
        WITH computed(id, content, context, vector) AS (
            SELECT * FROM unnest(%s::uuid[], %s::text[], %s::text[], %s::{MEMORY_VECTOR_TYPE}[])
        ), still AS (
            SELECT e.id FROM {table} e JOIN computed c ON e.id = c.id
            WHERE e.context_pending AND e.content = c.content AND e.search_context = c.context
              AND e.embedding_model = %s
            ORDER BY e.id FOR UPDATE OF e SKIP LOCKED
        )
        UPDATE {table} e SET context_embedding = c.vector, context_pending = false
        FROM computed c, still s WHERE e.id = s.id AND c.id = s.id
    """  # noqa: S608  # the table name is ours; the rest are parameters
    params: list[Any] = [
        [pk for pk, *_ in rows],
        [content for _, _, content, _ in rows],
        [context for *_, context in rows],
        [vector_literal(vector) for vector in vectors],
        model,
    ]
    with connection.cursor() as cursor:  # one statement: its own transaction in autocommit
        cursor.execute(sql, params)
        return int(cursor.rowcount)
