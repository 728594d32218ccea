"""A large import on real django-q2 clusters, its cluster killed with `kill -9` mid-way: the next
cluster goes on where it stopped, and every statement is written exactly once. Runs hand over to
their continuation every IMPORT_RUN_SECONDS, so none comes near the task timeout."""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import Task
from rest_framework.test import APIClient

from memory_core.models import ImportJob, MemoryEntry
from tests.openai_server import ScriptedOpenAIServer, deterministic_vector
from tests.serving.processes import SECRET, Cluster, descendants, pid_alive, production_env, running

LINES = 300
REDIS_URL = "redis://127.0.0.1:6379/9"

pytestmark = pytest.mark.django_db(transaction=True)


def _wait_for(predicate, timeout: float, what: str, clusters: list[Cluster]) -> None:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return
        time.sleep(0.1)
    logs = "\n".join(c.tail(3000) for c in clusters)
    pytest.fail(f"{what} did not happen within {timeout:.0f} s; cluster logs:\n{logs}")


def _job() -> ImportJob:
    return ImportJob.objects.get()  # read as the poll of the import's page does, without its throttle


def _slow_vector(text: str, dimensions: int) -> list[float]:
    time.sleep(0.01)  # a chunk of 25 takes a quarter second: a kill lands mid-import
    return deterministic_vector(text, dimensions)


@pytest.mark.parametrize(
    "redis_url", [None, pytest.param(REDIS_URL, marks=pytest.mark.redis)], ids=["orm", "redis"]
)
def test_a_killed_import_goes_on_where_it_stopped_and_writes_each_line_once(
    monkeypatch, tmp_path: Path, owner, redis_url
):
    name = f"imports-{uuid.uuid4().hex[:10]}"
    monkeypatch.setattr(Conf, "SECRET_KEY", SECRET)
    # This process is the web server: it seals a large import's input with the clusters' key.
    monkeypatch.setattr(settings, "SECRET_KEY", SECRET)
    monkeypatch.setattr(Conf, "PREFIX", name)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    monkeypatch.setattr(Conf, "ORM", None if redis_url else "default")
    monkeypatch.setattr(Conf, "REDIS", redis_url or {})
    monkeypatch.setattr(Conf, "SYNC", False)
    model = ScriptedOpenAIServer().embed_with(_slow_vector).start()
    env = production_env(
        Q_CLUSTER_NAME=name,
        Q_WORKERS="1",
        Q_LEASE_SECONDS="3",
        EMBEDDING_BACKEND="openai",
        OPENAI_API_KEY="test-key",
        OPENAI_BASE_URL=model.base_url,
        IMPORT_RUN_SECONDS="1",
    )
    if redis_url:
        env["REDIS_URL"] = redis_url
    client = APIClient()
    client.force_authenticate(owner)
    data = "\n".join(f"- Has played chess opening number {n}" for n in range(1, LINES + 1))
    first, second = (Cluster(tmp_path / f"{n}.log", env=env) for n in ("first", "second"))
    try:
        job = client.post("/api/v1/imports/", {"format": "text", "data": data}, format="json").json()
        assert (job["status"], job["total"]) == ("queued", LINES)
        url = f"/api/v1/imports/{job['id']}/"
        with running(first):
            _wait_for(lambda: _job().done >= 75, 90, "progress", [first])
            doomed = [first.pid, *descendants(first.pid)]
            os.kill(first.pid, signal.SIGKILL)
            _wait_for(lambda: not any(pid_alive(p) for p in doomed), 5, "the cluster's exit", [first])
        at_kill = client.get(url).json()
        with running(second):
            _wait_for(lambda: _job().status == "done", 120, "the import done", [second])
    finally:
        model.stop()
        if redis_url:
            get_broker().delete_queue()  # type: ignore[attr-defined]

    assert at_kill["status"] == "running" and 75 <= at_kill["done"] < LINES  # progress, mid-way
    shown = client.get(url).json()
    assert (shown["done"], shown["total"], shown["counts"], shown["error"]) == (
        LINES,
        LINES,
        {"added": LINES},
        "",
    )
    assert [row["line"] for row in shown["results"]] == list(range(1, LINES + 1))  # each line once
    assert MemoryEntry.objects.count() == LINES
    assert ImportJob.objects.get().attempts <= 1  # at most the killed run
    runs = Task.objects.filter(func="memory_core.tasks.import_job")
    assert runs.count() >= 3 and all(run.success for run in runs)  # slices, none past the timeout
