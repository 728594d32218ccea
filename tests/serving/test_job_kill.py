"""Extraction jobs on real django-q2 clusters, with faults from outside: a cluster killed with
`kill -9` while the model answers, runs that keep passing the task timeout, a job left `running`
by a cluster that never comes back. Each job ends `done` exactly once, or `failed` with its reason
(which the API shows, and a retry runs again) — never `running` for ever; a job whose queued
task the broker lost is queued again by the reaper."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.conf import Conf
from rest_framework.test import APIClient

from memory_core.extraction.jobs import extraction_enqueue
from memory_core.models import ExtractionJob, ImportJob, MemoryEntry
from memory_core.services import namespace_for_user
from memory_core.tasks import run_job_reaper
from tests.openai_server import ScriptedOpenAIServer
from tests.serving.processes import SECRET, Cluster, descendants, pid_alive, production_env, running

LEASE_SECONDS = 3
REDIS_URL = "redis://127.0.0.1:6379/9"
FACT = "The user keeps bees on the roof."
ANSWER = json.dumps(
    {
        "candidates": [
            {
                "content": FACT,
                "type": "semantic",
                "category": "profile",
                "importance": 0.7,
                "confidence": 0.95,
                "message_ids": ["u1"],
            }
        ]
    }
)

pytestmark = pytest.mark.django_db(transaction=True)
BROKERS = [None, pytest.param(REDIS_URL, marks=pytest.mark.redis)]
NOTHING_TO_REAP = dict.fromkeys(
    ["extractions_requeued", "extractions_failed", "imports_requeued", "imports_failed"], 0
)


def _wait_for(predicate: Callable[[], bool], timeout: float, what: str, clusters: list[Cluster]) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.1)
    logs = "\n".join(c.tail(3000) for c in clusters)
    pytest.fail(f"{what} did not happen within {timeout:.0f} s; cluster logs:\n{logs}")


class Model:
    """The language model: the first `stalls` chat calls hang (until `release`), the rest answer."""

    def __init__(self, stalls: int, hang_seconds: float = 60) -> None:
        self.server = ScriptedOpenAIServer()
        self.calls = 0
        self.stalls = stalls
        self.hang_seconds = hang_seconds
        self.released = threading.Event()
        self.server.answer_with(self._answer)

    def _answer(self, messages: list[dict[str, Any]]) -> str:
        self.calls += 1
        if self.calls <= self.stalls:
            self.released.wait(self.hang_seconds)
        return ANSWER


@pytest.fixture
def model_factory() -> Iterator[Callable[[int], Model]]:
    made: list[Model] = []

    def make(stalls: int, hang_seconds: float = 60) -> Model:
        model = Model(stalls, hang_seconds)
        model.server.start()
        made.append(model)
        return model

    yield make
    for model in made:
        model.released.set()
        model.server.stop()


def _queue_for(monkeypatch: pytest.MonkeyPatch, redis_url: str | None) -> str:
    """Point this process's django-q2 at a fresh queue the test's clusters serve."""
    name = f"jobs-{uuid.uuid4().hex[:10]}"
    monkeypatch.setattr(Conf, "SECRET_KEY", SECRET)  # tasks are signed with the clusters' key
    monkeypatch.setattr(settings, "SECRET_KEY", SECRET)  # and a large import's input sealed
    monkeypatch.setattr(Conf, "PREFIX", name)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    monkeypatch.setattr(Conf, "ORM", None if redis_url else "default")
    monkeypatch.setattr(Conf, "REDIS", redis_url or {})
    monkeypatch.setattr(Conf, "SYNC", False)
    return name


def _env(name: str, model: Model, redis_url: str | None, **extra: str) -> dict[str, str]:
    env = production_env(
        Q_CLUSTER_NAME=name,
        Q_WORKERS="1",
        Q_LEASE_SECONDS=str(LEASE_SECONDS),
        EMBEDDING_BACKEND="openai",
        OPENAI_API_KEY="test-key",
        OPENAI_BASE_URL=model.server.base_url,
        LLM_MAX_RETRIES="0",
        **extra,
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def _enqueue(owner: Any, conversation: str = "c1") -> ExtractionJob:
    job = extraction_enqueue(
        namespace=namespace_for_user(user=owner),
        source_conversation=conversation,
        messages=[{"id": "u1", "role": "user", "content": "I keep bees on my roof."}],
    )
    assert job is not None
    return job


def _status(job: ExtractionJob) -> str:
    job.refresh_from_db()
    return job.status


def _cleanup(redis_url: str | None) -> None:
    if redis_url:
        get_broker().delete_queue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("redis_url", BROKERS, ids=["orm", "redis"])
def test_a_job_whose_cluster_is_killed_mid_extraction_is_done_once_by_the_next(
    monkeypatch, tmp_path: Path, owner, model_factory, redis_url
):
    name = _queue_for(monkeypatch, redis_url)
    model = model_factory(stalls=1)
    env = _env(name, model, redis_url)
    first, second = (Cluster(tmp_path / f"{n}.log", env=env) for n in ("first", "second"))
    try:
        with running(first):
            _wait_for(lambda: len(descendants(first.pid)) >= 4, 60, "start", [first])
            job = _enqueue(owner)
            _wait_for(lambda: model.calls == 1, 30, "the model is asked", [first])
            assert _status(job) == "running"
            doomed = [first.pid, *descendants(first.pid)]

            os.kill(first.pid, signal.SIGKILL)
            _wait_for(lambda: not any(pid_alive(p) for p in doomed), 5, "the cluster's exit", [first])
            model.released.set()  # the dead worker's answer goes nowhere
            killed_at = time.monotonic()
        with running(second):
            _wait_for(lambda: _status(job) == "done", 60, "the job done by the new cluster", [second])
            took = time.monotonic() - killed_at
            time.sleep(2 * LEASE_SECONDS)  # time enough for a wrongful third run to show
    finally:
        _cleanup(redis_url)

    job.refresh_from_db()
    assert (job.status, job.attempts, job.error, job.claim) == ("done", 2, "", "")  # the killed run counts
    assert job.result["added"] == 1
    assert list(MemoryEntry.objects.values_list("content", flat=True)) == [FACT]  # written once
    assert model.calls == 2  # the killed run, and the one that took over: no third
    assert took < LEASE_SECONDS + 30  # a cluster's start and the lease, not the 120 s task timeout
    assert not ExtractionJob.objects.filter(status="running").exists()


@pytest.mark.parametrize("redis_url", BROKERS, ids=["orm", "redis"])
def test_a_job_that_keeps_passing_the_timeout_is_failed_with_the_reason_and_can_be_retried(
    monkeypatch, tmp_path: Path, owner, model_factory, redis_url
):
    name = _queue_for(monkeypatch, redis_url)
    model = model_factory(stalls=3, hang_seconds=30)  # longer than the task timeout, three times
    env = _env(name, model, redis_url, Q_TIMEOUT="3", Q_RETRY="4", Q_MAX_ATTEMPTS="3")
    cluster = Cluster(tmp_path / "cluster.log", env=env)
    try:
        with running(cluster):
            _wait_for(lambda: len(descendants(cluster.pid)) >= 4, 60, "start", [cluster])
            job = _enqueue(owner)
            _wait_for(lambda: model.calls == 3 and _status(job) == "failed", 60, "three timeouts", [cluster])
            time.sleep(5)  # a fourth run would show by now
            assert model.calls == 3

            client = APIClient()
            client.force_authenticate(owner)
            shown = client.get(f"/api/v1/extractions/{job.pk}/").json()
            assert shown["status"] == "failed"
            assert "ran past the 3 s task timeout" in shown["error"] and "attempt 3" in shown["error"]

            retried = client.post(f"/api/v1/extractions/{job.pk}/retry/")
            assert retried.status_code == 202 and retried.json()["status"] == "queued"
            _wait_for(lambda: _status(job) == "done", 30, "the retry", [cluster])
            again = client.post(f"/api/v1/extractions/{job.pk}/retry/")
    finally:
        _cleanup(redis_url)

    assert again.status_code == 409  # a done job is not run again
    assert list(MemoryEntry.objects.values_list("content", flat=True)) == [FACT]
    assert model.calls == 4


def test_the_reaper_requeues_a_job_whose_cluster_never_came_back(
    monkeypatch, tmp_path: Path, owner, model_factory
):
    name = _queue_for(monkeypatch, None)
    model = model_factory(stalls=1)
    env = _env(name, model, None)
    first = Cluster(tmp_path / "first.log", env=env)
    with running(first):
        _wait_for(lambda: len(descendants(first.pid)) >= 4, 60, "start", [first])
        job = _enqueue(owner)
        _wait_for(lambda: model.calls == 1, 30, "the model is asked", [first])
        os.kill(first.pid, signal.SIGKILL)
        model.released.set()
    # The broker's record of the task is gone too (say, a Redis that lost its data).
    get_broker().purge_queue()
    time.sleep(LEASE_SECONDS + 1)  # the dead cluster's lease runs out

    assert run_job_reaper()["extractions_requeued"] == 1  # its task is queued again
    job.refresh_from_db()
    assert (job.status, job.claim) == ("queued", "")
    second = Cluster(tmp_path / "second.log", env=env)
    with running(second):
        _wait_for(lambda: _status(job) == "done", 60, "the job done by a new cluster", [second])

    assert list(MemoryEntry.objects.values_list("content", flat=True)) == [FACT]
    assert run_job_reaper() == NOTHING_TO_REAP


def test_the_reaper_fails_a_job_whose_every_run_died(owner):
    """Three runs died (say, each one killed its worker): the job is failed, saying why."""
    job = ExtractionJob.objects.create(
        namespace=namespace_for_user(user=owner),
        idempotency_key="died",
        messages=[{"id": "u1", "role": "user", "content": "I keep bees.", "created_at": None}],
        status="running",
        attempts=3,
        claim="run3|task-3|12345|gone-cluster",  # a broker claim no live cluster holds
        claimed_until=timezone.now() + timedelta(minutes=5),  # its end has not come yet
    )

    assert run_job_reaper()["extractions_failed"] == 1

    job.refresh_from_db()
    assert job.status == "failed" and "gave up after 3 attempts" in job.error
    assert job.messages  # kept, so that a retry can run it


@pytest.mark.parametrize("redis_url", BROKERS, ids=["orm", "redis"])
def test_the_reaper_requeues_queued_jobs_whose_tasks_the_broker_lost(
    monkeypatch, tmp_path: Path, owner, model_factory, redis_url, settings
):
    name = _queue_for(monkeypatch, redis_url)
    model = model_factory(stalls=0)
    settings.IMPORT_JOB_THRESHOLD = 2  # so that three lines are a queued job
    settings.JOB_LOST_AFTER_SECONDS = 1
    client = APIClient()
    client.force_authenticate(owner)
    lines = ["Grows tomatoes on the balcony", "Speaks Portuguese at home", "Runs every Sunday morning"]
    try:
        # No cluster runs yet: both tasks wait in the broker, however long that takes.
        job = _enqueue(owner)
        imported = client.post(
            "/api/v1/imports/", {"format": "text", "data": "\n".join(lines)}, format="json"
        )
        assert imported.status_code == 202 and imported.json()["status"] == "queued"
        import_job = ImportJob.objects.get(pk=imported.json()["id"])
        time.sleep(1.5)
        assert run_job_reaper() == NOTHING_TO_REAP

        # The broker loses its data (a Redis restarted without persistence, a flushed queue).
        get_broker().delete_queue() if redis_url else get_broker().purge_queue()  # type: ignore[attr-defined]
        assert run_job_reaper() == {**NOTHING_TO_REAP, "extractions_requeued": 1, "imports_requeued": 1}
        job.refresh_from_db()
        import_job.refresh_from_db()
        assert (job.status, job.attempts, import_job.status, import_job.attempts) == (
            "queued",
            1,
            "queued",
            1,
        )
        assert job.error == "The task of attempt 1 was lost before it ran; queued again."
        assert run_job_reaper() == NOTHING_TO_REAP  # sent again just now: not lost

        cluster = Cluster(tmp_path / "cluster.log", env=_env(name, model, redis_url))
        with running(cluster):
            _wait_for(
                lambda: _status(job) == "done" and ImportJob.objects.get(pk=import_job.pk).status == "done",
                90,
                "both jobs done by the cluster",
                [cluster],
            )
            time.sleep(2 * LEASE_SECONDS)  # time enough for a wrongful second run to show
    finally:
        _cleanup(redis_url)

    job.refresh_from_db()
    assert (job.status, job.attempts, job.error) == ("done", 2, "")  # the lost task counts
    assert model.calls == 1
    shown = client.get(f"/api/v1/imports/{import_job.pk}/").json()
    assert (shown["status"], shown["done"], shown["counts"], shown["error"]) == ("done", 3, {"added": 3}, "")
    assert sorted(MemoryEntry.objects.values_list("content", flat=True)) == sorted([FACT, *lines])
    assert run_job_reaper() == NOTHING_TO_REAP
