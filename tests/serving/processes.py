"""Real server processes for the serving tests: the production web server (gunicorn + uvicorn
workers, `config/gunicorn.py`) and `manage.py qcluster`, on the production settings with DEBUG off,
reading and writing the test database (or another embedded server's data folder)."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

ROOT = Path(settings.BASE_DIR)
SECRET = "serving-tests-" + "k3y-0f-f1fty-ch4racters-or-m0re-" * 2


def production_env(**extra: str) -> dict[str, str]:
    """Production settings (DEBUG off) on the test run's database, plain HTTP on the loopback."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_COOKIES": "false",
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": "WARNING",
        "ACCESS_LOG": "false",
    }
    env.pop("REDIS_URL", None)
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # tests/conftest.py's, for Playwright; not production's
    db = connection.settings_dict
    if db["ENGINE"] == "config.embedded_postgres":
        env["EMBEDDED_DB_NAME"] = db["NAME"]
        env["EMBEDDED_PGDATA"] = str(db["PGDATA"])
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(port: int, path: str, headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, Any]:
    """(status, response) of one request on a fresh connection; the response is read."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        response.body = response.read()  # type: ignore[attr-defined]
        return response.status, response
    finally:
        conn.close()


def request(port: int, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, Any]:  # fmt: skip
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        response.body = response.read()  # type: ignore[attr-defined]
        return response.status, response
    finally:
        conn.close()


class Process:
    """A child in its own session, started when a `running()` block enters (building one starts
    nothing, so a test can name a second cluster before the first is killed without both serving
    the queue from the start); stopping it stops everything it started."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.command, self.env, self.log = command, env, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if self.proc is not None:
            raise AssertionError(f"{self.command} was started already")
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        if self.proc is None:
            raise AssertionError(f"{self.command} is not started: enter running() first")
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout: float = 30) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        with suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything of ours left in the session

    def tail(self, chars: int = 4000) -> str:
        if not self.log.exists():
            return ""
        return self.log.read_text(errors="replace")[-chars:]


class WebServer(Process):
    def __init__(self, log: Path, *, workers: int = 1, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        env = {**(env or production_env()), "WEB_WORKERS": str(workers), "PORT": str(self.port)}
        env.pop("BIND", None)
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "python:config.gunicorn",
            "config.asgi:application",
        ]
        super().__init__(command, env, log)

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise AssertionError(f"the web server exited during start-up:\n{self.tail()}")
            try:
                get(self.port, "/healthz", timeout=5)
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"the web server did not answer within {timeout:.0f} s:\n{self.tail()}")


class Cluster(Process):
    def __init__(self, log: Path, *, env: dict[str, str]) -> None:
        super().__init__([sys.executable, str(ROOT / "manage.py"), "qcluster"], env, log)


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (read from /proc, children of each of its threads)."""
    found: list[int] = []
    stack = [pid]
    while stack:
        parent = stack.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                found.append(child)
                stack.append(child)
    return found


def pid_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@contextmanager
def running(*processes: Process) -> Iterator[None]:
    """Start `processes` (in this order) for the block, and stop them all when it ends."""
    try:
        for process in processes:
            process.start()
        yield
    finally:
        for process in processes:
            process.stop()
