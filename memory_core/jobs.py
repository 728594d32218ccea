"""Background work through django-q2: enqueue after commit, and schedules kept idempotent by name."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django_q.models import Schedule
from django_q.tasks import async_task

from memory_core import prepared

# async_task() takes these out of **kwargs as its own options (even when q_options is given), so a
# task keyword argument with one of these names would silently never reach the task.
_RESERVED_KWARGS = frozenset(
    {
        "hook",
        "group",
        "save",
        "sync",
        "cached",
        "ack_failure",
        "iter_count",
        "iter_cached",
        "chain",
        "broker",
        "cluster",
        "timeout",
        "q_options",
        "task_name",
    }
)


def enqueue(
    func_path: str,
    *args: Any,
    task_name: str | None = None,
    group: str | None = None,
    q_options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Queue `func_path(*args, **kwargs)` once the current transaction commits.

    Outside a transaction Django runs the callback at once; on rollback the task is never queued,
    so a task never sees data that was not committed. Pass ids, not model instances.
    """
    clashing = _RESERVED_KWARGS.intersection(kwargs)
    if clashing:
        raise ValueError(f"task keyword arguments clash with django-q options: {sorted(clashing)}")
    options = dict(q_options or {})
    if task_name:
        options["task_name"] = task_name
    if group:
        options["group"] = group

    def _send() -> None:
        async_task(func_path, *args, q_options=options, **kwargs)

    transaction.on_commit(_send)


def ensure_schedule(
    name: str, func_path: str, *, minutes: int, kwargs: dict[str, Any] | None = None
) -> Schedule:
    """Create or update the repeating schedule called `name`; running it again changes nothing more.

    An existing schedule keeps its `next_run`, so re-installing does not trigger an extra run.
    """
    schedule, _ = Schedule.objects.update_or_create(
        name=name,
        defaults={
            "func": func_path,
            # The scheduler reads this field back with ast.literal_eval.
            "kwargs": repr(kwargs) if kwargs else None,
            "schedule_type": Schedule.MINUTES,
            "minutes": minutes,
            "repeats": -1,
        },
    )
    return schedule


def _waiting(name: str) -> Any:
    """The one-off schedule `name` not yet turned into a task, as `QuerySet.first` asks for it
    (compiled once: `prepared`; every deferred write asks)."""
    return Schedule.objects.filter(name=name).exclude(repeats=0)[:1]


def one_off_soon(*, name: str, func: str, seconds: float) -> Schedule:
    """A task soon, shared by everyone who asks before it runs: a burst costs one run.

    A one-off django-q schedule is the debounce: the cluster's scheduler turns it into a task at
    `next_run` and deletes it, so the next request after that asks for a new one. Rows, not timers,
    so it holds across processes and with synchronous test tasks alike."""
    waiting = prepared.run("one-off waiting", _waiting, [name])
    if waiting:
        return waiting[0]
    return Schedule.objects.create(
        name=name,
        func=func,
        schedule_type=Schedule.ONCE,
        repeats=-1,  # a one-off schedule with repeats < 0 is deleted once its task is created
        next_run=timezone.now() + timedelta(seconds=seconds),
    )


@dataclass
class JobReport:
    """What one run of a bounded job did: its counts (a subclass's fields), its time, and whether it
    stopped at its bound with more waiting. A drain adds its runs up (`add`)."""

    more: bool = False
    seconds: float = 0.0

    def add(self, run: JobReport) -> None:
        for field in fields(self):
            if field.name != "more":
                setattr(self, field.name, getattr(self, field.name) + getattr(run, field.name))

    def as_dict(self) -> dict[str, object]:
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in asdict(self).items()}
