"""A large import is answered at once: the request reads its input without checking each statement
for secrets (the slow part), keeps it sealed, and the job reads it again a window at a time,
checking as a small import's request does. Whoever imports the same input, small or large, gets
the same statements, outcomes and reasons; no secret of it rests in clear meanwhile."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from memory_core.imports.intake import WINDOW
from memory_core.models import ImportJob, MemoryEntry
from memory_core.scan import scan_database

URL = "/api/v1/imports/"
CANARY = "Tr0ub4dor-93xq"


def _text() -> tuple[str, int]:
    """A pasted list over two reading windows: a title, a line with a secret in the second window,
    a line said twice across the windows, a rule, separators and a closing line."""
    # Dated, so that each statement's `valid_from` is the same whenever it is written.
    lines = [f"- 2024-03-{n % 28 + 1:02d}: Has sailed to island number {n}" for n in range(1, WINDOW + 31)]
    lines[WINDOW + 5] = f"- 2024-05-01: My bank password is {CANARY}"
    lines[WINDOW + 20] = lines[2]  # the same statement again, a window later
    lines[40] = "- 2024-05-02: Refund tickets no longer need manager approval"
    text = "\n".join(["Saved memories", "", *lines[:60], "---", *lines[60:], "", "---"])
    return text + "\nLet me know if you'd like me to update or forget anything.\n", len(lines)


def _mem0() -> tuple[list[dict[str, Any]], int]:
    rows: list[dict[str, Any]] = [{"memory": f"Owns teapot number {n}"} for n in range(1, 13)]
    rows[4] = {"memory": f"My bank password is {CANARY}", "metadata": {"note": f"pin {CANARY}"}}
    rows[9] = {"memory": "Owns teapot number 2"}  # no id: known by its text, as the first one
    for n, row in enumerate(rows):
        row["created_at"] = f"2024-07-{n + 1:02d}T08:30:00Z"
    return rows, len(rows)


def _transcript() -> tuple[list[dict[str, Any]], int]:
    said = ["I live in Lisbon.", f"My bank password is {CANARY}.", "I moved to Porto.", "I keep bees."]
    messages = [
        {"role": role, "content": text if role == "user" else "Noted.", "created_at": f"2025-0{n}-10T09:00Z"}
        for n, text in enumerate(said, start=1)
        for role in ("user", "assistant")
    ]
    return messages, len(messages)


INPUTS: dict[str, Callable[[], tuple[Any, int]]] = {"text": _text, "mem0": _mem0, "transcript": _transcript}


def _run_queued(capture: Callable[..., Any], queued: list[Callable[[], None]]) -> int:
    """Run what the cluster would, each queued task and what it queues in turn; after each run,
    the secret is in no column of any table (a statement waiting to be written is redacted)."""
    ran = 0
    while queued:
        callback = queued.pop(0)
        with capture() as more:
            callback()
        assert scan_database(CANARY) == {}
        queued.extend(more)
        ran += 1
    return ran


def _seen(job: dict[str, Any]) -> tuple[Any, ...]:
    rows = [(row["line"], row["action"], row["reason"], row["valid_from"]) for row in job["results"]]
    return job["status"], job["total"], job["done"], job["counts"], job["error"], rows


@pytest.mark.parametrize("format", list(INPUTS))
def test_a_large_import_is_read_by_its_job_as_a_small_one_is_by_its_request(
    owner_client, other_client, settings, django_capture_on_commit_callbacks, format
):
    data, count = INPUTS[format]()

    settings.IMPORT_JOB_THRESHOLD = 1000
    small = owner_client.post(URL, {"format": format, "data": data}, format="json")
    assert small.status_code == 201 and small.json()["unread"] == 0  # read during the request

    settings.IMPORT_JOB_THRESHOLD = 5
    settings.IMPORT_RUN_SECONDS = 1e-6  # a run reads one window, or writes one chunk, and hands over
    with django_capture_on_commit_callbacks() as queued:
        large = other_client.post(URL, {"format": format, "data": data}, format="json")
    assert large.status_code == 202
    queued_job = large.json()
    assert (queued_job["status"], queued_job["done"], queued_job["unread"]) == ("queued", 0, count)
    assert scan_database(CANARY) == {}  # the waiting input is sealed
    assert len(ImportJob.objects.get(pk=queued_job["id"]).pending) > 0

    assert _run_queued(django_capture_on_commit_callbacks, queued) > 2  # read, then written, in steps

    done = other_client.get(f"{URL}{queued_job['id']}/").json()
    assert done["unread"] == 0 and done["status"] == "done"
    assert _seen(done) == _seen(small.json())
    if format != "transcript":  # a transcript's secret is redacted before the extractor reads it
        assert any(row["reason"] == "contains a secret (password)" for row in done["results"])
    assert ImportJob.objects.get(pk=queued_job["id"]).pending == ""  # read: nothing sealed is kept
    owner_entries = MemoryEntry.objects.filter(namespace__owner__username="alice")
    other_entries = MemoryEntry.objects.filter(namespace__owner__username="bob")
    assert sorted(owner_entries.values_list("content", "status")) == sorted(
        other_entries.values_list("content", "status")
    )
    assert scan_database(CANARY) == {}


def test_the_request_of_a_large_import_is_answered_at_once(
    owner_client, settings, django_capture_on_commit_callbacks
):
    settings.IMPORT_RUN_SECONDS = 1e-6  # a run reads one window, then hands over
    lines = 3000
    data = "\n".join(f"- Has read book number {n} of the library on the hill" for n in range(1, lines + 1))

    started = time.monotonic()
    with django_capture_on_commit_callbacks() as queued:
        response = owner_client.post(URL, {"format": "text", "data": data}, format="json")
    took = time.monotonic() - started

    assert response.status_code == 202, response.content
    job = response.json()
    assert (job["status"], job["total"], job["unread"]) == ("queued", lines, lines)
    # Checking 3,000 statements for secrets takes about a minute on this machine (docs/api.md).
    assert took < 5, f"the request took {took:.1f} s"

    with django_capture_on_commit_callbacks() as more:
        queued[0]()  # the job's first run: it reads a window, checking each statement, then hands over
    shown = owner_client.get(f"{URL}{job['id']}/").json()
    assert shown["status"] == "running" and lines - WINDOW >= shown["unread"] > 0 and shown["done"] == 0
    assert len(more) == 1  # its continuation
    # (Not "one window of checking costs more than the whole request did": two timings compared on a
    # loaded machine failed a clean-clone CI run at 0.56 s against 0.77 s. That the request checked
    # nothing is what the job's state above says: queued with every line unread, then a window read.)
