"""The `job-reaper` schedule: jobs left `running` by a run that is gone are queued again (and, with
tasks run inline as in these tests, finished), a live run's job is left alone, and a job whose
every run died is failed with the reason; a job left `queued` whose task the broker lost is
queued again, or failed once its attempts are spent. Imports alike."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import Schedule
from rest_framework.test import APIClient

from memory_core.imports.pasted import parse_text
from memory_core.models import ExtractionJob, ImportJob, MemoryEntry
from memory_core.services import namespace_for_user
from memory_core.tasks import run_job_reaper

pytestmark = pytest.mark.django_db(transaction=True)  # the re-queued task runs after commit


def _stuck_extraction(owner, *, until: timedelta, attempts: int = 1) -> ExtractionJob:
    return ExtractionJob.objects.create(
        namespace=namespace_for_user(user=owner),
        idempotency_key=f"stuck-{until}",
        messages=[{"id": "u1", "role": "user", "content": "I live in Oslo.", "created_at": None}],
        status="running",
        attempts=attempts,
        claim="a-run-in-a-request|||",  # no broker claim to ask about: only its end counts
        claimed_until=timezone.now() + until,
    )


def test_setup_schedules_installs_the_reaper_every_minute():
    call_command("setup_schedules")
    schedule = Schedule.objects.get(name="job-reaper")
    assert (schedule.func, schedule.minutes) == ("memory_core.tasks.run_job_reaper", 1)


def test_a_job_whose_run_is_gone_is_queued_again_and_done_once(owner):
    job = _stuck_extraction(owner, until=-timedelta(seconds=1))

    counts = run_job_reaper()

    assert counts["extractions_requeued"] == 1
    job.refresh_from_db()
    assert (job.status, job.claim, job.attempts) == ("done", "", 2)
    assert list(MemoryEntry.objects.values_list("content", flat=True)) == ["The user lives in Oslo."]
    assert run_job_reaper()["extractions_requeued"] == 0  # nothing left to reap


def test_a_live_runs_job_is_left_alone(owner):
    job = _stuck_extraction(owner, until=timedelta(minutes=2))

    assert run_job_reaper()["extractions_requeued"] == 0

    job.refresh_from_db()
    assert (job.status, job.attempts) == ("running", 1)
    assert not MemoryEntry.objects.exists()


def test_a_job_whose_every_run_died_is_failed_with_the_reason(owner):
    job = _stuck_extraction(owner, until=-timedelta(seconds=1), attempts=3)

    assert run_job_reaper()["extractions_failed"] == 1

    job.refresh_from_db()
    assert job.status == "failed" and job.error.startswith("Extraction gave up after 3 attempts")
    assert not MemoryEntry.objects.exists()


def test_an_import_whose_run_is_gone_goes_on_where_it_stopped(owner):
    items = parse_text("\n".join(f"Has owned bicycle number {n}" for n in range(1, 31)))
    job = ImportJob.objects.create(
        namespace=namespace_for_user(user=owner),
        format="text",
        items=[item.as_json() for item in items],
        total=len(items),
        status="running",
        claim="a-killed-run|||",
        claimed_until=timezone.now() - timedelta(seconds=1),
    )

    assert run_job_reaper()["imports_requeued"] == 1

    job.refresh_from_db()
    assert (job.status, job.done, job.attempts) == ("done", 30, 1)
    assert MemoryEntry.objects.count() == 30


def test_a_queued_job_whose_task_was_lost_is_failed_once_its_attempts_are_spent(owner, monkeypatch):
    # The database broker, as a cluster uses it, holding nothing: both tasks are gone.
    monkeypatch.setattr(Conf, "ORM", "default")
    monkeypatch.setattr(Conf, "REDIS", {})
    monkeypatch.setattr(Conf, "SYNC", False)
    namespace = namespace_for_user(user=owner)
    long_ago = timezone.now() - timedelta(hours=1)
    extraction = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="lost",
        messages=[{"id": "u1", "role": "user", "content": "I live in Oslo.", "created_at": None}],
        attempts=2,
        queued_at=long_ago,
    )
    items = parse_text("Has owned bicycle number 1\nHas owned bicycle number 2")
    imported = ImportJob.objects.create(
        namespace=namespace,
        format="text",
        items=[item.as_json() for item in items],
        total=2,
        attempts=2,
        queued_at=long_ago,
    )
    fresh = ExtractionJob.objects.create(namespace=namespace, idempotency_key="just sent", messages=[])

    counts = run_job_reaper()

    assert counts == {
        "extractions_requeued": 0,
        "extractions_failed": 1,
        "imports_requeued": 0,
        "imports_failed": 1,
    }
    client = APIClient()
    client.force_authenticate(owner)
    shown = client.get(f"/api/v1/extractions/{extraction.pk}/").json()
    assert shown["status"] == "failed"
    assert shown["error"].startswith("Extraction gave up after 3 attempts: its queued task was lost")
    shown = client.get(f"/api/v1/imports/{imported.pk}/").json()
    assert shown["status"] == "failed"
    assert shown["error"].startswith("Stopped after 0 of 2, at attempt 3: its queued task was lost")
    fresh.refresh_from_db()
    assert (fresh.status, fresh.attempts) == ("queued", 0)  # sent within JOB_LOST_AFTER_SECONDS
    assert not MemoryEntry.objects.exists()
