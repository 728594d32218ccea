"""Who runs a job: a claim naming the django-q2 task and cluster that run it, and its latest end.

A job (extraction, import) is `running` under one claim. Another run may take it over only when
the claim's holder is gone: its end (`claimed_until`: the task timeout, after which django-q2 has
killed the run) has passed; or the same task is handed out again (the broker does that only once
the earlier run is over: its cluster died, or it failed and was released for a retry); or the
broker says the holder's cluster no longer holds that task. A live run keeps its job, so two runs
never write one job, and a re-run after a crash runs instead of deferring to a dead claim.

A job `queued` for longer than `lost_after()` whose task the broker no longer holds will never run
(`lost_jobs`): the reaper queues it again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from config.brokers import claim_held, running_task, tasks_held
from config.tuning import tuned

# A run is killed by django-q2 at Q_CLUSTER["timeout"]; the margin covers its guard's cycle.
_MARGIN = timedelta(seconds=15)


def task_timeout() -> timedelta:
    return timedelta(seconds=int(settings.Q_CLUSTER["timeout"]))


@dataclass(frozen=True)
class Holder:
    """One run of a job: a fresh token, and the task, broker claim and cluster it runs in (empty
    when it runs in a request or synchronously)."""

    token: str
    task: str = ""
    ack: str = ""
    owner: str = ""

    def encode(self) -> str:
        return "|".join((self.token, self.task, self.ack, self.owner))[:200]

    @classmethod
    def decode(cls, claim: str) -> Holder | None:
        parts = claim.split("|")
        if len(parts) != 4 or not parts[0]:
            return None
        return cls(*parts)


def this_run() -> Holder:
    """A new holder for the run about to start in this process."""
    task = running_task()
    return Holder(uuid.uuid4().hex, task.get("task", ""), task.get("ack", ""), task.get("owner", ""))


def claim_until(now: datetime) -> datetime:
    return now + task_timeout() + _MARGIN


def holder_gone(claim: str, until: datetime | None, *, now: datetime, me: Holder | None = None) -> bool:
    """Whether the run that holds `claim` is over, so that `me` (or the reaper) may take the job."""
    holder = Holder.decode(claim)
    if holder is None or until is None or until <= now:
        return True
    if me is not None and holder.task and holder.task == me.task and holder.token != me.token:
        return True  # our own task handed out again: the run that claimed it has ended
    return bool(holder.ack and holder.owner and not claim_held(holder.ack, holder.owner))


# A job queued this long whose task the broker no longer holds (flushed, restarted without its data,
# dropped after its attempts, a request that died before it ran its small import) is queued again
# by the `job-reaper` schedule: well past a busy queue's wait, well before a person gives up.
JOB_LOST_AFTER_SECONDS = 300


def lost_after() -> timedelta:
    return timedelta(seconds=max(1, int(tuned("JOB_LOST_AFTER_SECONDS", JOB_LOST_AFTER_SECONDS))))


def lost_jobs(queued: QuerySet[Any], *, task: str, now: datetime, limit: int) -> list[Any]:
    """The jobs of `queued` whose latest task (`task`, taking the job's id) was sent more than
    `lost_after()` ago and is no longer held by the broker, locked for the caller's transaction;
    [] when the broker cannot tell. The broker is read before any row is locked, and a job sent
    again since (its `queued_at` moved) is left out under the lock, so a job whose task is just
    being handed to a worker is never taken for lost."""
    stale = queued.filter(queued_at__lt=now - lost_after())
    if not stale.exists():
        return []
    held = tasks_held(task)
    if held is None:
        return []
    ids = []
    for value in held:
        try:
            ids.append(queued.model._meta.pk.to_python(value))
        except ValidationError:
            continue  # not a job id of this kind
    candidates = stale.exclude(pk__in=ids) if ids else stale
    return list(candidates.select_for_update(skip_locked=True).order_by("queued_at")[:limit])
