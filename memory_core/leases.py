"""Who runs a job: a claim naming the django-q2 task and cluster that run it, and its latest end.

A job (extraction, import) is `running` under one claim. Another run may take it over only when
the claim's holder is gone: its end (`claimed_until`: the task timeout, after which django-q2 has
killed the run) has passed; or the same task is handed out again (the broker does that only once
the earlier run is over: its cluster died, or it failed and was released for a retry); or the
broker says the holder's cluster no longer holds that task. A live run keeps its job, so two runs
never write one job, and a re-run after a crash runs instead of deferring to a dead claim.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings

from config.brokers import claim_held, running_task

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
