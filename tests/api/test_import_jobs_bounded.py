"""Imports as bounded, resumable jobs through the REST API: a large dry run answers for its first
IMPORT_PREVIEW_MAX statements and says so; a job runs in time slices that each queue the next;
a job that cannot go on is failed with the reason, shows it, and a retry goes on where it stopped,
writing nothing twice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memory_core.imports.run import CHUNK
from memory_core.lifecycle import memory_pause
from memory_core.models import ImportJob, MemoryEntry
from tests.imports_helpers import row_counts

URL = "/api/v1/imports/"
LINES = 60


def _lines(count: int) -> str:
    return "\n".join(f"- Has climbed mountain number {n}" for n in range(1, count + 1))


def _run_queued(
    capture: Callable[..., Any], queued: list[Callable[[], None]], steps: int | None = None
) -> int:
    """Run what the cluster would: each queued task, and what it queues in turn; return how many
    ran. `steps` stops after that many (the rest stays queued, as in a broker)."""
    ran = 0
    while queued and (steps is None or ran < steps):
        callback = queued.pop(0)
        with capture() as more:
            callback()
        queued.extend(more)
        ran += 1
    return ran


def test_a_large_dry_run_previews_its_first_statements_and_says_so(owner_client, settings):
    settings.IMPORT_PREVIEW_MAX = 20
    before = row_counts()

    response = owner_client.post(URL, {"format": "text", "data": _lines(500), "dry_run": True}, format="json")

    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["bounded"], body["previewed"], body["total"]) == (True, 20, 500)
    assert [row["line"] for row in body["results"]] == list(range(1, 21))
    assert body["counts"] == {"added": 20}
    assert row_counts() == before  # a dry run writes nothing


@pytest.mark.parametrize("format", ["mem0", "transcript"])
def test_a_large_dry_run_of_json_is_bounded_alike(owner_client, settings, format):
    settings.IMPORT_PREVIEW_MAX = 20
    if format == "mem0":
        data: Any = [{"memory": f"Owns teapot number {n}"} for n in range(1, 121)]
    else:
        data = [{"role": "user", "content": f"I live in City{n}.", "created_at": "2025-01-10T09:00:00Z"}
                for n in range(1, 121)]  # fmt: skip

    body = owner_client.post(URL, {"format": format, "data": data, "dry_run": True}, format="json").json()

    assert (body["bounded"], body["previewed"], body["total"]) == (True, 20, 120)
    assert 0 < len(body["results"]) <= 20
    assert MemoryEntry.objects.count() == 0


def test_a_dry_run_past_the_item_limit_is_refused_like_the_import(owner_client, settings):
    settings.IMPORT_MAX_ITEMS = 100
    response = owner_client.post(URL, {"format": "text", "data": _lines(101), "dry_run": True}, format="json")
    assert response.status_code == 400 and "at most 100" in response.json()["detail"]


def test_a_small_dry_run_is_whole(owner_client):
    body = owner_client.post(
        URL, {"format": "text", "data": _lines(3), "dry_run": True}, format="json"
    ).json()
    assert (body["bounded"], body["previewed"], body["total"]) == (False, 3, 3)


def test_a_job_runs_in_slices_each_queuing_the_next(
    owner_client, settings, django_capture_on_commit_callbacks
):
    settings.IMPORT_JOB_THRESHOLD = 10
    settings.IMPORT_RUN_SECONDS = 1e-6  # one chunk per run
    with django_capture_on_commit_callbacks() as queued:
        job = owner_client.post(URL, {"format": "text", "data": _lines(LINES)}, format="json").json()
    assert (job["status"], job["done"], job["total"], job["unread"]) == ("queued", 0, LINES, LINES)

    assert _run_queued(django_capture_on_commit_callbacks, queued, steps=1) == 1
    shown = owner_client.get(f"{URL}{job['id']}/").json()
    assert (shown["status"], shown["done"], shown["unread"]) == ("running", 0, 0)  # read and checked
    assert _run_queued(django_capture_on_commit_callbacks, queued, steps=1) == 1
    shown = owner_client.get(f"{URL}{job['id']}/").json()
    assert (shown["status"], shown["done"], shown["total"]) == ("running", CHUNK, LINES)  # progress
    assert len(queued) == 1  # its continuation

    assert _run_queued(django_capture_on_commit_callbacks, queued) == LINES // CHUNK - 1  # the last finishes
    shown = owner_client.get(f"{URL}{job['id']}/").json()
    assert (shown["status"], shown["done"], shown["error"]) == ("done", LINES, "")
    assert ImportJob.objects.get().attempts == 0  # handing over is no failed attempt


def test_a_stopped_job_says_why_and_a_retry_goes_on_where_it_stopped(
    owner, owner_client, other_client, settings, django_capture_on_commit_callbacks
):
    settings.IMPORT_JOB_THRESHOLD = 10
    settings.IMPORT_RUN_SECONDS = 1e-6
    with django_capture_on_commit_callbacks() as queued:
        job = owner_client.post(URL, {"format": "text", "data": _lines(LINES)}, format="json").json()
    _run_queued(django_capture_on_commit_callbacks, queued, steps=2)  # read, then one chunk written
    memory_pause(actor=owner, paused=True)
    _run_queued(django_capture_on_commit_callbacks, queued)

    shown = owner_client.get(f"{URL}{job['id']}/").json()
    assert (shown["status"], shown["done"]) == ("failed", CHUNK)
    assert shown["error"].startswith(f"Stopped after {CHUNK} of 60:") and "paused" in shown["error"]
    assert owner_client.post(f"{URL}{job['id']}/retry/").status_code == 409  # still paused
    assert other_client.post(f"{URL}{job['id']}/retry/").status_code == 404

    memory_pause(actor=owner, paused=False)
    with django_capture_on_commit_callbacks() as queued:
        retried = owner_client.post(f"{URL}{job['id']}/retry/")
    assert retried.status_code == 202 and retried.json()["status"] == "queued"
    _run_queued(django_capture_on_commit_callbacks, queued)

    shown = owner_client.get(f"{URL}{job['id']}/").json()
    assert (shown["status"], shown["done"], shown["error"]) == ("done", LINES, "")
    assert [row["line"] for row in shown["results"]] == list(range(1, LINES + 1))  # each line once
    assert MemoryEntry.objects.count() == LINES
    assert owner_client.post(f"{URL}{job['id']}/retry/").status_code == 409  # done: nothing to retry


@pytest.mark.parametrize("bad", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_retrying_what_does_not_exist_is_not_found(owner_client, bad):
    response = owner_client.post(f"{URL}{bad}/retry/")
    assert response.status_code == 404 and response.json()["detail"]
