"""Running an import: every statement through `memory_add` — as a dry run, at once, or as a job.

- `import_preview` is the dry run. The statements go through the whole pipeline inside a
  transaction that is then rolled back, so its decisions are the real ones (a line merging into
  an earlier line of the same file included) and nothing stays: no entry, evidence, event, flag
  or job row, and nothing queued (`on_commit` callbacks of a rolled-back transaction never run).
  It is answered at once, for the first IMPORT_PREVIEW_MAX statements (or messages) only: the
  user's write lock is held until the rollback, so a preview must stay short (`Preview.bounded`).
- `import_create` records an `ImportJob`; `import_start` writes up to IMPORT_JOB_THRESHOLD
  statements (or transcript messages) during the request; more are queued (`tasks.import_job`),
  their input read and checked for secrets by the job (`intake`), not by the request.
- `import_run` writes a job in chunks; each chunk commits together with the job's progress (and
  takes the namespace's write lock for that chunk only), so a job retried after a lost worker
  goes on where it stopped and writes nothing twice. A run writes for `run_budget()` seconds,
  well inside the task timeout, then queues its continuation; a transcript is read one window
  at a time the same way. A run is owned through a claim (`memory_core.leases`).

A transcript is first read by the extractor (the language model, or the rules offline); each
candidate's `valid_from` is its own past date, else when its message was said (`created_at`).
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_q.exceptions import TimeoutException

from config.brokers import running_task
from config.tuning import tuned
from memory_core.choices import ImportFormat, ImportStatus
from memory_core.errors import Conflict
from memory_core.imports.intake import WINDOW as READ_WINDOW
from memory_core.imports.intake import read_input, read_window, seal_input
from memory_core.imports.parsers import ImportItem, check_format, check_size, unchecked
from memory_core.imports.pasted import SkippedLine
from memory_core.imports.preview import read_prefix
from memory_core.imports.statements import _CREATING, WINDOW, ImportRow, _apply, _extract, _fresh
from memory_core.jobs import enqueue
from memory_core.leases import claim_until, holder_gone, lost_jobs, task_timeout, this_run
from memory_core.llm import LLMError
from memory_core.models import ImportJob, Namespace
from memory_core.screening import PAUSED_MESSAGE, MemoryPaused, guard_pause

logger = logging.getLogger(__name__)

# Statements per committed step of a job (and per embedding call). The user's write lock is held
# for one chunk, so a concurrent add waits for at most this many writes: at 25 that was a p95 of
# 2.6 s under load (`python -m bench imports`, docs/deploy.md).
CHUNK = 10
MAX_ATTEMPTS = 3


# Up to this many statements are written while the request waits; more run as a job with progress.
IMPORT_JOB_THRESHOLD = 100
# A dry run holds the user's write lock until it rolls back, so it tries this many at most.
IMPORT_PREVIEW_MAX = 50


def job_threshold() -> int:
    return int(tuned("IMPORT_JOB_THRESHOLD", IMPORT_JOB_THRESHOLD))


# --- the dry run ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preview:
    """A dry run's rows, of the first `previewed` of `total` statements (a transcript: messages).
    `bounded` when that is not all of them: a preview answers at once and holds the user's write
    lock for a moment only, so a large input is previewed in part (the import takes it all).
    `skipped`: the lines of a pasted list that are not memories (titles, closing lines,
    separators), with the reason; the import leaves them out the same way."""

    rows: list[ImportRow]
    total: int
    previewed: int
    skipped: list[SkippedLine] = field(default_factory=list)

    @property
    def bounded(self) -> bool:
        return self.previewed < self.total


def preview_limit() -> int:
    return int(tuned("IMPORT_PREVIEW_MAX", IMPORT_PREVIEW_MAX))


def import_preview(*, namespace: Namespace, format: Any, data: Any, actor_kind: str) -> Preview:
    """What importing `data` would do, line by line, for its first `preview_limit()` statements
    (or transcript messages); nothing is written (see the module docstring)."""
    format = check_format(format)
    check_size(data)
    limit = preview_limit()
    items, messages, total, skipped = read_prefix(format, data, limit)
    namespace = _fresh(namespace)
    if messages:
        items = _extract(messages)
    whole = total <= limit  # then all of it was read, and the count is exact
    new: dict[str, int] = {}  # entries this dry run created → their line
    rows = []
    with transaction.atomic():
        for row in _apply(namespace, items, actor_kind=actor_kind):
            if row.entry in new:  # merged into an earlier line of this import
                row = replace(row, entry=None, reason=f"duplicate of line {new[row.entry]}", existing="")
            elif row.entry and row.action in _CREATING:
                new[row.entry] = row.line
                row = replace(row, entry=None)  # rolled back below: the id will not exist
            if row.replaces in new:  # a newer value than an earlier line of this import
                row = replace(row, replaces=None, reason=f"replaces line {new[row.replaces]}")
            rows.append(row)
        transaction.set_rollback(True)
    if whole:
        total = len(messages) or len(items)
    return Preview(rows=rows, total=total, previewed=total if whole else limit, skipped=skipped)


# --- the import ----------------------------------------------------------------------------------


def import_create(*, namespace: Namespace, format: Any, data: Any, actor_kind: str) -> ImportJob:
    """Record the import; a large one is queued for django-q2 (after commit), its input sealed
    and `unread`: read unchecked here (bad input is refused at once), it is checked for secrets by
    the job (`intake`). Call `import_start` once the caller's transaction has committed: it writes
    a small one at once, chunk by chunk."""
    format, items, messages = read_input(format, data, unchecked)
    namespace = _fresh(namespace)
    count = len(messages) or len(items)
    if count > job_threshold():
        job = ImportJob.objects.create(
            namespace=namespace,
            format=format,
            actor_kind=actor_kind,
            pending=seal_input(data),
            unread=count,
            total=len(items),
        )
        _queue(job.pk)
        return job
    _, items, messages = read_input(format, data)  # checked: a small import is written at once
    return ImportJob.objects.create(
        namespace=namespace,
        format=format,
        actor_kind=actor_kind,
        messages=messages,
        items=[item.as_json() for item in items],
        total=len(items),
    )


def import_start(*, job: ImportJob) -> ImportJob:
    """After `import_create` has committed: a small import is written now (each chunk commits on
    its own, so the user's other writes wait for one chunk at most), a large one is left queued."""
    if not _inline(job):
        return job
    run = import_run(job_id=job.pk)
    return run if run is not None else job


def _inline(job: ImportJob) -> bool:
    return not job.unread and (len(job.messages) or len(job.items)) <= job_threshold()


_TASK = "memory_core.tasks.import_job"


def _queue(job_id: Any) -> None:
    # Failures are not acknowledged, so the broker hands the task out again (bounded).
    ImportJob.objects.filter(pk=job_id).update(queued_at=timezone.now())  # the reaper's clock
    enqueue(_TASK, str(job_id), group="imports", q_options={"ack_failure": False})


def _lock(job_id: Any) -> ImportJob | None:
    return (
        ImportJob.objects.select_for_update(of=("self",))
        .select_related("namespace__owner")
        .filter(pk=job_id)
        .first()
    )


def _claim(job_id: Any) -> tuple[ImportJob | None, str]:
    """(job, claim) for this run; claim "" when there is nothing for it to do: gone, finished, or
    a live run holds it (`memory_core.leases`). A run that took over from one that died counts
    an attempt; after MAX_ATTEMPTS of those the job is failed with the reason."""
    now, me = timezone.now(), this_run()
    with transaction.atomic():
        job = _lock(job_id)
        if job is None or job.status in (ImportStatus.DONE, ImportStatus.FAILED):
            return job, ""
        if job.status == ImportStatus.RUNNING:
            if not holder_gone(job.claim, job.claimed_until, now=now, me=me):
                return job, ""
            if job.claim:  # not a hand-over: the run that held it died
                job.attempts += 1
                if job.attempts >= MAX_ATTEMPTS:
                    return _finish(job, status=ImportStatus.FAILED, error=died_error(job)), ""
        claim = me.encode()
        job.status, job.claim, job.claimed_until = ImportStatus.RUNNING, claim, claim_until(now)
        job.save(update_fields=["status", "attempts", "claim", "claimed_until"])
        return job, claim


def died_error(job: ImportJob) -> str:
    seconds = int(task_timeout().total_seconds())
    return (
        f"Stopped after {job.done} of {job.total}: the worker running it stopped {job.attempts} times "
        f"(killed, or past the {seconds} s task timeout). Retry it to go on from there."
    )


def lost_error(job: ImportJob) -> str:
    return (
        f"Stopped after {job.done} of {job.total}, at attempt {job.attempts}: its queued task was lost "
        "(a broker that lost its data, or a request that stopped before running it). Retry it to go on "
        "from there."
    )


def _finish(job: ImportJob, *, status: str, error: str = "") -> ImportJob:
    """Finished. Done: the pending statements and messages are the user's words and go. Failed:
    they stay (erased with the user's data) so that a retry goes on where it stopped."""
    job.status, job.error, job.claim, job.claimed_until = status, error, "", None
    job.finished_at = timezone.now()
    fields = ["status", "error", "attempts", "claim", "claimed_until", "finished_at"]
    if status == ImportStatus.DONE:
        job.items, job.messages = [], []
        fields += ["items", "messages"]
    job.save(update_fields=fields)
    return job


def _read_window(job_id: Any, claim: str) -> bool:
    """Read and check for secrets the next window of a large input (outside any transaction: the
    check is slow) and append it; False when all of it is read (or the job is no longer ours)."""
    fields = ("format", "pending", "items", "messages")
    job = ImportJob.objects.filter(pk=job_id, claim=claim).only(*fields).first()
    if job is None or not job.pending:
        return False
    start = _read_so_far(job)
    items, messages = read_window(job.format, job.pending, start)
    with transaction.atomic():
        current = _lock(job_id)
        if current is None or current.claim != claim:
            return False
        if _read_so_far(current) != start:
            return True  # read meanwhile (a run that lost its claim): read on from there
        current.items = [*current.items, *(item.as_json() for item in items)]
        current.messages = [*current.messages, *messages]
        current.unread = max(0, current.unread - len(items) - len(messages))
        if current.unread == 0 or len(items) + len(messages) < READ_WINDOW:
            current.pending, current.unread = "", 0
        current.claimed_until = claim_until(timezone.now())
        current.save(update_fields=["items", "messages", "pending", "unread", "claimed_until"])
    return True


def _read_so_far(job: ImportJob) -> int:
    return len(job.messages) if job.format == ImportFormat.TRANSCRIPT else len(job.items)


def _extract_window(job_id: Any, claim: str) -> bool:
    """Extract the next window of a transcript (outside any transaction: the model is slow) and
    append its statements; False when no messages are left (or the job is no longer ours)."""
    job = ImportJob.objects.filter(pk=job_id, claim=claim).first()
    if job is None or not job.messages:
        return False
    window = list(job.messages[:WINDOW])
    items = _extract(window, first_line=len(job.items) + 1)
    with transaction.atomic():
        current = _lock(job_id)
        if current is None or current.claim != claim:
            return False
        if current.messages[:WINDOW] != window:
            return True  # scrubbed by an erasure meanwhile: read what is left
        current.items = [*current.items, *(i.as_json() for i in items)]
        current.messages = current.messages[WINDOW:]
        current.total = len(current.items)
        current.claimed_until = claim_until(timezone.now())
        current.save(update_fields=["items", "messages", "total", "claimed_until"])
    return True


def _step(job_id: Any, claim: str) -> bool:
    """Write the next chunk and record the progress, in one transaction (the namespace's write
    lock is held for this chunk only); False when there is no more to do (the job is then
    finished, erased, no longer ours, or stopped because memory was paused)."""
    try:
        with transaction.atomic():
            job = _lock(job_id)
            if job is None or job.status != ImportStatus.RUNNING or job.claim != claim:
                return False
            chunk = [ImportItem.from_json(data) for data in job.items[job.done : job.done + CHUNK]]
            if not chunk:
                if not job.unread and not job.messages:  # else read or extracted first (`import_run`)
                    _finish(job, status=ImportStatus.DONE)
                return False
            rows = _apply(job.namespace, chunk, actor_kind=job.actor_kind)
            counts = Counter(job.counts)
            counts.update(row.action for row in rows)
            job.counts = dict(counts)
            job.results = [*job.results, *(row.stored() for row in rows)]
            job.done += len(chunk)
            job.claimed_until = claim_until(timezone.now())
            job.save(update_fields=["counts", "results", "done", "claimed_until"])
            if job.done >= len(job.items) and not job.messages and not job.unread:
                _finish(job, status=ImportStatus.DONE)  # the last chunk: no run just to say so
                return False
            return True
    except MemoryPaused:
        pass  # this chunk was rolled back; what earlier chunks wrote stays
    with transaction.atomic():
        job = _lock(job_id)
        if job is not None and job.claim == claim:
            error = f"Stopped after {job.done} of {job.total}: {PAUSED_MESSAGE}"
            _finish(job, status=ImportStatus.FAILED, error=error)
    return False


def _hand_over(job_id: Any, claim: str) -> None:
    """This run used its time: free the claim and queue a continuation (a new task, so the work
    is not counted against the task's attempts). If that task is lost, the reaper re-queues."""
    with transaction.atomic():
        job = _lock(job_id)
        if job is None or job.claim != claim:
            return
        job.claim, job.claimed_until = "", claim_until(timezone.now())
        job.save(update_fields=["claim", "claimed_until"])
        _queue(job.pk)


def run_budget() -> float:
    """Seconds one run writes before handing over: well inside the task timeout."""
    return float(settings.IMPORT_RUN_SECONDS) or task_timeout().total_seconds() / 4


def import_run(*, job_id: Any) -> ImportJob | None:
    """Write a job's statements (the task's body; idempotent), chunk by chunk, for `run_budget()`
    seconds; then hand over to a continuation task. On a failing model (or any error, or the task
    timeout) the job waits for a retry, re-raised so that django-q runs it again, until it has
    failed MAX_ATTEMPTS times; then it is failed with the reason, its pending statements kept
    for `import_retry`."""
    job, claim = _claim(job_id)
    if not claim:
        return job
    started = time.monotonic()
    try:
        while _read_window(job_id, claim) or _extract_window(job_id, claim) or _step(job_id, claim):
            if time.monotonic() - started > run_budget():
                _hand_over(job_id, claim)
                break
    except (Exception, TimeoutException) as exc:
        # The message of an arbitrary exception may quote the user's words: only its type is kept.
        logger.exception("import job %s failed", job_id)
        if _failed(job_id, claim, exc):
            if running_task():
                raise  # the broker runs the task again (after Q_RETRY)
            _queue(job_id)  # run in a request: the retry goes to the cluster
    return ImportJob.objects.filter(pk=job_id).first()


def _failed(job_id: Any, claim: str, exc: BaseException) -> bool:
    """Record a failed run; True if the job will be retried."""
    if isinstance(exc, LLMError):
        detail = exc.message
    elif isinstance(exc, TimeoutException):
        detail = f"it ran past the {int(task_timeout().total_seconds())} s task timeout"
    else:
        detail = f"unexpected {type(exc).__name__}"
    with transaction.atomic():
        current = _lock(job_id)
        if current is None or current.claim != claim:
            return False
        current.attempts += 1
        where = f"attempt {current.attempts}, after {current.done} of {current.total}"
        error = f"Import failed ({where}): {detail}."
        if current.attempts < MAX_ATTEMPTS:
            current.status, current.error = ImportStatus.QUEUED, error + " It will be retried."
            current.claim, current.claimed_until = "", None
            current.save(update_fields=["status", "error", "attempts", "claim", "claimed_until"])
            return True
        _finish(current, status=ImportStatus.FAILED, error=error)
        return False


def import_reap(*, now: datetime, limit: int = 200) -> tuple[int, int]:
    """(re-queued, failed): imports left `running` by a run that is gone (killed, or a lost
    continuation), and imports left `queued` whose task the broker lost (`leases.lost_jobs`), go
    back to the queue, or are failed once MAX_ATTEMPTS runs have died or tasks been lost."""
    requeued = failed = 0
    with transaction.atomic():
        queued = ImportJob.objects.filter(status=ImportStatus.QUEUED)
        for job in lost_jobs(queued, task=_TASK, now=now, limit=limit):
            job.attempts += 1
            if job.attempts >= MAX_ATTEMPTS:
                _finish(job, status=ImportStatus.FAILED, error=lost_error(job))
                failed += 1
                continue
            job.save(update_fields=["attempts"])
            _queue(job.pk)
            requeued += 1
        running = ImportJob.objects.select_for_update(skip_locked=True).filter(status=ImportStatus.RUNNING)
        for job in running.order_by("created_at")[:limit]:
            if not holder_gone(job.claim, job.claimed_until, now=now):
                continue
            if job.claim:  # a hand-over whose continuation was lost is no failed run
                job.attempts += 1
            if job.attempts >= MAX_ATTEMPTS:
                _finish(job, status=ImportStatus.FAILED, error=died_error(job))
                failed += 1
                continue
            job.status, job.claim, job.claimed_until = ImportStatus.QUEUED, "", None
            job.save(update_fields=["status", "attempts", "claim", "claimed_until"])
            _queue(job.pk)
            requeued += 1
    return requeued, failed


def import_retry(*, job: ImportJob) -> ImportJob:
    """Go on with a failed import where it stopped, its attempts counted afresh; `Conflict` for a
    job that is not failed."""
    with transaction.atomic():
        current = _lock(job.pk)
        if current is None or current.status != ImportStatus.FAILED:
            raise Conflict("Only a failed import can be retried.")
        guard_pause(current.namespace)
        current.status, current.attempts, current.finished_at = ImportStatus.QUEUED, 0, None
        current.error = f"Retried after {current.done} of {current.total}."
        current.save(update_fields=["status", "attempts", "error", "finished_at"])
        _queue(current.pk)
    return current
