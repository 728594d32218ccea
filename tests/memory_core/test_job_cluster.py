"""django-q2 end to end: a real `manage.py qcluster` process runs a task from the ORM and the Redis
broker; plus the job helpers (enqueue after commit, schedules idempotent by name)."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django_q.brokers import Broker, get_broker
from django_q.conf import Conf
from django_q.models import Schedule, Task
from django_q.tasks import async_task

from memory_core import jobs
from memory_core.schedules import install_schedules

REDIS_URL = "redis://127.0.0.1:6379/9"
RESULT_TIMEOUT_S = 30.0


def _cluster_env(name: str, redis_url: str | None) -> dict[str, str]:
    """Environment for a qcluster on the production settings, reading and writing the test database."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "true",
        "Q_CLUSTER_NAME": name,
        "Q_WORKERS": "1",
        "Q_SYNC": "false",
        "PYTHONUNBUFFERED": "1",
    }
    db = connection.settings_dict
    if db["ENGINE"] == "config.embedded_postgres":
        env["EMBEDDED_DB_NAME"] = db["NAME"]
        env["EMBEDDED_PGDATA"] = str(db["PGDATA"])
    else:
        url = urlsplit(env["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(url._replace(path="/" + db["NAME"]))
    if redis_url:
        env["REDIS_URL"] = redis_url
    else:
        env.pop("REDIS_URL", None)
    return env


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the cluster and its workers
            proc.wait()


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Callable[[str | None], Broker]]:
    """Start a qcluster subprocess on a fresh queue; return a broker of this process for that queue.

    django_q.conf.Conf is computed once at import from the test settings (ORM broker, name "memory"),
    so the test process is pointed at the same broker, queue and signing salt (`PREFIX` = name) by
    patching Conf's attributes; get_broker() and the package signing read them at call time.
    """
    procs: list[subprocess.Popen[bytes]] = []

    def start(redis_url: str | None) -> Broker:
        name = f"test-{uuid.uuid4().hex[:12]}"
        monkeypatch.setattr(Conf, "PREFIX", name)
        monkeypatch.setattr(Conf, "CLUSTER_NAME", name)
        monkeypatch.setattr(Conf, "ORM", None if redis_url else "default")
        monkeypatch.setattr(Conf, "REDIS", redis_url or {})
        log = (tmp_path / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "qcluster"],
            cwd=settings.BASE_DIR,
            env=_cluster_env(name, redis_url),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        procs.append(proc)
        return get_broker()

    yield start
    for proc in procs:
        _stop(proc)


def _wait_for_task(task_id: str, log_dir: Path) -> Task:
    deadline = time.monotonic() + RESULT_TIMEOUT_S
    while time.monotonic() < deadline:
        task = Task.objects.filter(id=task_id).first()
        if task is not None:
            return task
        time.sleep(0.2)
    logs = "\n".join(p.read_text(errors="replace")[-3000:] for p in log_dir.glob("*.log"))
    pytest.fail(f"no result for task {task_id} within {RESULT_TIMEOUT_S:.0f}s; cluster log:\n{logs}")


@pytest.mark.django_db(transaction=True)
def test_it_runs_a_task_in_a_cluster_process_on_the_orm_broker(cluster, tmp_path):
    broker = cluster(None)
    assert broker.info() == "ORM default"

    task_id = async_task("memory_core.tasks.ping", "abc", sync=False, broker=broker)

    task = _wait_for_task(task_id, tmp_path)
    assert task.success
    assert task.result == "pong:abc"
    assert broker.queue_size() == 0


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_it_runs_a_task_in_a_cluster_process_on_the_redis_broker(cluster, tmp_path):
    broker = cluster(REDIS_URL)
    assert broker.ping()
    assert broker.info().startswith("Redis")
    try:
        task_id = async_task("memory_core.tasks.ping", "abc", sync=False, broker=broker)

        task = _wait_for_task(task_id, tmp_path)
        assert task.success
        assert task.result == "pong:abc"
        assert broker.queue_size() == 0
    finally:
        broker.delete_queue()


def test_it_enqueues_only_when_the_transaction_commits(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            jobs.enqueue("memory_core.tasks.ping", "later", task_name="ping-later", group="health")
            assert not Task.objects.exists()
        assert not Task.objects.exists()  # committed, but the callbacks have not run yet

    assert len(callbacks) == 1
    task = Task.objects.get(name="ping-later")
    assert (task.result, task.group, task.success) == ("pong:later", "health", True)


def test_it_never_enqueues_when_the_transaction_rolls_back(db, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        jobs.enqueue("memory_core.tasks.ping", "lost")
        raise RuntimeError("rollback")

    assert callbacks == []
    assert not Task.objects.exists()


def test_it_refuses_task_kwargs_that_django_q_would_swallow(db):
    with pytest.raises(ValueError, match="timeout"):
        jobs.enqueue("memory_core.tasks.ping", token="x", timeout=5)


def test_it_keeps_one_schedule_per_name(db):
    jobs.ensure_schedule("memory-decay", "memory_core.tasks.ping", minutes=5, kwargs={"token": "d"})
    jobs.ensure_schedule("memory-decay", "memory_core.tasks.ping", minutes=10, kwargs={"token": "e"})

    schedule = Schedule.objects.get(name="memory-decay")
    assert (schedule.schedule_type, schedule.minutes, schedule.repeats) == (Schedule.MINUTES, 10, -1)
    assert ast.literal_eval(schedule.kwargs) == {"token": "e"}


def test_it_installs_the_registry_idempotently(db):
    registry = [("health-ping", "memory_core.tasks.ping", 15)]

    first = install_schedules(registry)
    second = install_schedules(registry)

    assert [created for _, created in first] == [True]
    assert [created for _, created in second] == [False]
    assert Schedule.objects.filter(name="health-ping").count() == 1


def test_setup_schedules_command_installs_every_schedule_once(db, capsys):
    call_command("setup_schedules")
    call_command("setup_schedules")

    out = capsys.readouterr().out
    assert "memory-forgetting" in out and "chat-idle-sweep" in out
    assert Schedule.objects.filter(name="memory-forgetting").count() == 1
    assert Schedule.objects.filter(name="chat-idle-sweep").count() == 1
