"""The context-vector job (`memory_core.context_vectors`) against a user's correction or erasure
of the entry it is completing, each in its own thread and connection, committed.

The job holds no lock while the model embeds; its conditional UPDATE skips a row a write holds
(SKIP LOCKED) and stores nothing on a row that changed or went: the user's write wins, and
nothing of an erased text comes back through the job."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Schedule
from django_q.scheduler import scheduler

from memory_core import context_vectors, erasure, lifecycle, pipeline_batch
from memory_core.context_vectors import waiting
from memory_core.models import MemoryEntry, MemoryStatus
from memory_core.scan import scan_database
from memory_core.tasks import run_context_vectors
from tests.api.test_deferred_context import entry, recalled
from tests.concurrency_helpers import in_thread
from tests.context_turns import ANSWER, QUESTION, TURNS, one_by_one
from tests.erasure_helpers import canary

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def deferred(settings):
    settings.CONTEXT_VECTOR = "deferred"  # the default, whatever a developer's `.env` says


WAIT = 60  # seconds a thread waits for the other before the test fails


def held_open(monkeypatch, module: Any, name: str) -> tuple[threading.Barrier, threading.Event]:
    """Pause `module.name` (a step inside the user's write transaction, its row locks taken), the
    first time it runs, until the job is at its UPDATE (`at_store`) and that UPDATE has run
    (`stored`)."""
    at_store, stored = threading.Barrier(2, timeout=WAIT), threading.Event()
    original = getattr(module, name)

    def paused(*args: Any, **kwargs: Any) -> Any:
        if not stored.is_set():  # the first call only
            at_store.wait()
            assert stored.wait(WAIT)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, paused)
    store = context_vectors._store

    def job_store(*args: Any, **kwargs: Any) -> int:
        at_store.wait()  # the user's transaction holds its locks now
        try:
            return store(*args, **kwargs)
        finally:
            stored.set()

    monkeypatch.setattr(context_vectors, "_store", job_store)
    return at_store, stored


def test_the_jobs_update_overlapping_a_correction_of_the_same_entry(key_client, monkeypatch):
    one_by_one(key_client, "u1", TURNS[:2])
    old = entry(key_client, "u1", ANSWER)
    assert old.context_pending
    correction = "Porto, no question - the food alone is worth it!"
    held_open(monkeypatch, lifecycle, "announce_corrected")  # the correction's last step

    address = f"/api/v1/memories/{old.pk}/?user_id=u1"
    thread, seen = in_thread(lambda: key_client.patch(address, {"content": correction}, format="json"))
    report = run_context_vectors()  # its UPDATE runs while the correction holds the row
    thread.join(WAIT)
    monkeypatch.undo()

    assert "error" not in seen and seen["result"].status_code == 200, seen
    assert (report["stored"], report["left"]) == (0, 1)  # skipped, not waited for, not overwritten
    old.refresh_from_db()
    assert old.status == MemoryStatus.SUPERSEDED and old.context_pending
    # The next run completes the old version as it now is; the correction stays in force.
    assert run_context_vectors()["stored"] == 1
    old.refresh_from_db()
    assert old.status == MemoryStatus.SUPERSEDED and not old.context_pending
    assert str(old.superseded_by_id) == seen["result"].json()["id"]
    contents = [item["entry"]["content"] for item in recalled(key_client, "u1")]
    assert correction in contents and ANSWER not in contents


@pytest.mark.parametrize("when", ["overlapping", "between"])
def test_erasures_during_a_run_leave_nothing(key_client, monkeypatch, when):
    marker, other = canary(), canary("Kilimanjaro")
    said, answer_text = f"My gym is {marker} Fitness.", f"Noted, and {other} Park is next to it."
    one_by_one(
        key_client,
        "u1",
        [
            {"role": "user", "content": said},
            {"role": "assistant", "content": answer_text},
            {"role": "user", "content": "Thanks, that is all for today."},
            {"role": "user", "content": QUESTION},
        ],
    )
    first, answer = entry(key_client, "u1", said), entry(key_client, "u1", answer_text)
    last = entry(key_client, "u1", "Thanks, that is all for today.")
    assert answer.context_pending and last.context_pending
    assert marker in answer.search_context and other in last.search_context

    def erase_both() -> None:
        # The turn the answer is read with, then the answer (the last turn's context) itself.
        for pk in (first.pk, answer.pk):
            response = key_client.delete(f"/api/v1/memories/{pk}/?user_id=u1")
            assert response.status_code == 204, response.content

    if when == "overlapping":  # the erasure holds its locks while the job stores
        held_open(monkeypatch, erasure, "announce_erased")
        thread, seen = in_thread(erase_both)
        report = run_context_vectors()
        thread.join(WAIT)
    else:  # the erasure commits while the model embeds, before the job stores
        store = context_vectors._store

        def erased_meanwhile(*args: Any, **kwargs: Any) -> int:
            worker, result = in_thread(erase_both)
            worker.join(WAIT)
            seen.update(result)
            return store(*args, **kwargs)

        seen: dict[str, Any] = {}
        monkeypatch.setattr(context_vectors, "_store", erased_meanwhile)
        report = run_context_vectors()
    monkeypatch.undo()

    assert "error" not in seen, seen
    # Overlapping, the first erasure holds the answer (skipped) while the last turn takes its
    # vector, which the second erasure then scrubs with its context; in between, only the
    # question's turn is still as it was read.
    assert report["embedded"] == 3
    assert report["stored"] == (2 if when == "overlapping" else 1)
    assert not MemoryEntry.objects.filter(pk__in=[first.pk, answer.pk]).exists()
    last.refresh_from_db()
    assert (last.search_context, last.context_pending) == ("", False)
    assert list(last.context_embedding) == list(last.embedding)
    assert scan_database(marker) == {} and scan_database(other) == {}
    assert run_context_vectors()["embedded"] == 0  # nothing of theirs waits


def test_a_write_that_finds_the_run_asked_for_holds_it_until_its_commit(key_client, monkeypatch):
    """The commit asks for no run when one is already asked for (`context_vectors.run_held`): the
    write holds that schedule, so the cluster's scheduler turns it into a task only after the
    write's commit, and the task completes the new entry too. Nothing is left waiting unasked."""
    one_by_one(key_client, "u1", TURNS[:2])  # the answer waits for its context vector: a run is asked
    assert Schedule.objects.filter(name=context_vectors.SOON_SCHEDULE).update(
        next_run=timezone.now() - timedelta(seconds=1)  # and due
    )
    inside, go = threading.Event(), threading.Event()
    original = pipeline_batch.entities_after_write  # mem0's add of turns: a batch

    def paused(*args: Any, **kwargs: Any) -> Any:  # in the write's transaction, its rows inserted
        inside.set()
        assert go.wait(WAIT)
        return original(*args, **kwargs)

    monkeypatch.setattr(pipeline_batch, "entities_after_write", paused)
    writer, written = in_thread(lambda: one_by_one(key_client, "u1", TURNS[2:3]))
    assert inside.wait(WAIT)
    scheduler_thread, scheduled = in_thread(scheduler)  # tasks are synchronous in tests: it runs the job
    blocked = waits_for_a_lock()
    go.set()
    writer.join(WAIT)
    scheduler_thread.join(WAIT)

    assert "error" not in written and "error" not in scheduled, (written, scheduled)
    assert blocked  # the scheduler waited for the write
    assert waiting() == 0 and not Schedule.objects.filter(name=context_vectors.SOON_SCHEDULE).exists()
    assert not entry(key_client, "u1", TURNS[2]["content"]).context_pending


def waits_for_a_lock(seconds: float = 10) -> bool:
    """Whether another session of this database is waiting for a row lock (polled)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
        time.sleep(0.05)
    return False
