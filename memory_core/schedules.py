"""The repeating jobs of the memory system, installed idempotently by `manage.py setup_schedules`."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django_q.models import Schedule

from memory_core.jobs import ensure_schedule

# (name, func_path, minutes). The name is the identity: renaming an entry creates a new schedule
# and leaves the old one behind, to be deleted in the admin.
ScheduleSpec = tuple[str, str, int]

SCHEDULES: list[ScheduleSpec] = [
    ("memory-forgetting", "memory_core.tasks.run_forgetting", 60),
    # Acts at night (ERASURE_REWRITE_HOUR) or when an erasure has waited too long; see compaction.
    ("erasure-rewrite", "memory_core.tasks.run_erasure_rewrite", 60),
    # Webhook deliveries whose backoff has run out (memory_core.webhooks.delivery).
    ("webhook-retries", "memory_core.tasks.run_webhook_retries", 1),
    # Jobs left `running` by a run that died (memory_core.leases): queued again, or failed.
    ("job-reaper", "memory_core.tasks.run_job_reaper", 1),
    # Context documents still to embed (memory_core.context_vectors): each write that leaves one
    # asks for a run soon; this catches what a lost task or a crash left waiting.
    ("context-vectors", "memory_core.tasks.run_context_vectors", 10),
]


def all_schedules() -> list[ScheduleSpec]:
    """The engine's schedules plus those the apps built on it declare in settings.EXTRA_SCHEDULES."""
    return SCHEDULES + [tuple(spec) for spec in getattr(settings, "EXTRA_SCHEDULES", [])]  # type: ignore[misc]


def install_schedules(registry: Iterable[ScheduleSpec] | None = None) -> list[tuple[Schedule, bool]]:
    """Create or update every schedule of `registry`; return each with True if it was created."""
    specs = list(registry) if registry is not None else all_schedules()
    with transaction.atomic():
        existing = set(
            Schedule.objects.filter(name__in=[name for name, _, _ in specs]).values_list("name", flat=True)
        )
        return [
            (ensure_schedule(name, func_path, minutes=minutes), name not in existing)
            for name, func_path, minutes in specs
        ]
