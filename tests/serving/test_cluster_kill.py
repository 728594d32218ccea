"""A django-q2 cluster killed with `kill -9` mid-task: its workers die with it, and another cluster
runs the task again, once, within seconds (the lease of config.brokers), not after Q_RETRY."""

from __future__ import annotations

import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ, Task
from django_q.tasks import async_task

from tests.serving.processes import SECRET, Cluster, descendants, pid_alive, production_env, running

LEASE_SECONDS = 3
TASK_SECONDS = 3.0
REDIS_URL = "redis://127.0.0.1:6379/9"

pytestmark = pytest.mark.django_db(transaction=True)


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")[:-1] if path.exists() else []


def _wait_for(predicate, timeout: float, what: str, clusters: list[Cluster]) -> float:  # type: ignore[no-untyped-def]
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.1)
    logs = "\n".join(c.tail(3000) for c in clusters)
    pytest.fail(f"{what} did not happen within {timeout:.0f} s; cluster logs:\n{logs}")


def _kill_and_take_over(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, redis_url: str | None) -> None:
    name = f"kill-{uuid.uuid4().hex[:10]}"
    # Tasks are signed with SECRET_KEY: this process enqueues with the clusters' production key.
    monkeypatch.setattr(Conf, "SECRET_KEY", SECRET)
    monkeypatch.setattr(Conf, "PREFIX", name)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    monkeypatch.setattr(Conf, "ORM", None if redis_url else "default")
    monkeypatch.setattr(Conf, "REDIS", redis_url or {})
    broker = get_broker()
    env = production_env(Q_CLUSTER_NAME=name, Q_WORKERS="1", Q_LEASE_SECONDS=str(LEASE_SECONDS),
                         EMBEDDING_BACKEND="openai")  # fmt: skip
    if redis_url:
        env["REDIS_URL"] = redis_url
    clusters = [Cluster(tmp_path / f"cluster-{n}.log", env=env) for n in range(2)]
    marks = tmp_path / "marks.txt"
    try:
        with running(*clusters):
            # Both clusters up (each has its sentinel, pusher, monitor and worker) before the task.
            _wait_for(
                lambda: all(len(descendants(c.pid)) >= 4 for c in clusters), 60, "cluster start", clusters
            )
            task_id = async_task("tests.serving.tasks.mark_and_wait", str(marks), TASK_SECONDS,
                                 broker=broker, sync=False)  # fmt: skip
            _wait_for(lambda: len(_lines(marks)) == 1, 30, "the first run", clusters)
            first_pid = int(_lines(marks)[0].split()[1])
            [victim] = [c for c in clusters if first_pid in descendants(c.pid)]
            [survivor] = [c for c in clusters if c is not victim]
            victims = [victim.pid, *descendants(victim.pid)]

            os.kill(victim.pid, signal.SIGKILL)
            _wait_for(
                lambda: not any(pid_alive(pid) for pid in victims), 5, "the victim's processes exit", clusters
            )
            taken_over_after = _wait_for(lambda: len(_lines(marks)) >= 2, 30, "the take-over", clusters)
            _wait_for(lambda: Task.objects.filter(id=task_id).exists(), 30, "the result", clusters)
            time.sleep(2 * LEASE_SECONDS)  # time enough for a wrongful third run to show
            survivors = descendants(survivor.pid)
        assert not any(pid_alive(pid) for pid in survivors)  # a graceful stop takes its workers too
    finally:
        if redis_url:
            broker.delete_queue()

    assert _lines(marks)[0] == f"start {first_pid}"
    assert [line.split()[0] for line in _lines(marks)] == ["start", "start", "done"]
    assert int(_lines(marks)[1].split()[1]) in survivors
    assert taken_over_after < LEASE_SECONDS + 3  # seconds, not Q_RETRY's minutes
    task = Task.objects.get(id=task_id)
    assert (task.success, task.result, task.attempt_count) == (True, "done", 1)
    if not redis_url:
        assert not OrmQ.objects.filter(key__startswith=Conf.CLUSTER_NAME).exists()
    else:
        assert broker.queue_size() == 0 and broker.lock_size() == 0  # type: ignore[attr-defined]


def test_a_killed_clusters_task_runs_once_more_on_another_cluster_orm(monkeypatch, tmp_path):
    _kill_and_take_over(monkeypatch, tmp_path, None)


@pytest.mark.redis
def test_a_killed_clusters_task_runs_once_more_on_another_cluster_redis(monkeypatch, tmp_path):
    _kill_and_take_over(monkeypatch, tmp_path, REDIS_URL)


@pytest.mark.parametrize("whole_group", [False, True], ids=["to-qcluster", "to-the-process-group"])
def test_sigterm_stops_the_cluster_and_all_its_processes(tmp_path, whole_group):
    """SIGTERM to qcluster alone (systemd's KillMode=mixed) or to its whole process group (`timeout`,
    KillMode=control-group): it exits within seconds and leaves nothing behind."""
    env = production_env(
        Q_CLUSTER_NAME=f"term-{uuid.uuid4().hex[:10]}", Q_WORKERS="2", EMBEDDING_BACKEND="openai"
    )
    cluster = Cluster(tmp_path / "cluster.log", env=env)
    with running(cluster):
        _wait_for(lambda: len(descendants(cluster.pid)) >= 5, 60, "cluster start", [cluster])
        processes = [cluster.pid, *descendants(cluster.pid)]

        if whole_group:
            os.killpg(cluster.pid, signal.SIGTERM)
        else:
            os.kill(cluster.pid, signal.SIGTERM)
        _wait_for(lambda: not cluster.alive(), 20, "qcluster's exit", [cluster])

    assert not any(pid_alive(pid) for pid in processes)


@pytest.mark.parametrize(
    "redis_url", [None, pytest.param(REDIS_URL, marks=pytest.mark.redis)], ids=["orm", "redis"]
)
def test_a_failure_left_unacknowledged_is_retried_after_q_retry_up_to_max_attempts(
    monkeypatch, tmp_path, redis_url
):
    """Extraction enqueues with ack_failure=False so that a failure is retried: the lease must not
    keep such a task claimed for as long as its cluster lives."""
    name = f"retry-{uuid.uuid4().hex[:10]}"
    monkeypatch.setattr(Conf, "SECRET_KEY", SECRET)
    monkeypatch.setattr(Conf, "PREFIX", name)
    monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
    monkeypatch.setattr(Conf, "ORM", None if redis_url else "default")
    monkeypatch.setattr(Conf, "REDIS", redis_url or {})
    broker = get_broker()
    env = production_env(Q_CLUSTER_NAME=name, Q_WORKERS="1", Q_TIMEOUT="2", Q_RETRY="3", Q_MAX_ATTEMPTS="2",
                         EMBEDDING_BACKEND="openai")  # fmt: skip
    if redis_url:
        env["REDIS_URL"] = redis_url
    cluster = Cluster(tmp_path / "cluster.log", env=env)
    marks = tmp_path / "marks.txt"
    with running(cluster):
        _wait_for(lambda: len(descendants(cluster.pid)) >= 4, 60, "cluster start", [cluster])
        task_id = async_task("tests.serving.tasks.mark_and_fail", str(marks), broker=broker, sync=False,
                             ack_failure=False)  # fmt: skip
        _wait_for(lambda: len(_lines(marks)) == 1, 30, "the first run", [cluster])
        retried_after = _wait_for(lambda: len(_lines(marks)) == 2, 30, "the retry", [cluster])
        time.sleep(8)  # a third run would show by now

    assert len(_lines(marks)) == 2  # Q_MAX_ATTEMPTS
    assert retried_after > 2  # Q_RETRY after the failure, not at once
    task = Task.objects.get(id=task_id)
    assert (task.success, task.attempt_count) == (False, 2)
    if redis_url:
        assert broker.queue_size() == 0 and broker.lock_size() == 0  # type: ignore[attr-defined]
        broker.delete_queue()
    else:
        assert not OrmQ.objects.filter(key__startswith=name).exists()
