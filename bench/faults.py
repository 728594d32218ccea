"""Faults injected from outside, on the production servers, with the figures an operator checks.

A private embedded PostgreSQL (a temporary data folder), the production web server (2 workers)
and django-q2 clusters on the ORM broker, all on the loopback; every request goes through the
public HTTP surfaces. Four parts:

1. `jobs`: extraction jobs (offline rules) and a large import are queued; the cluster is killed
   with `kill -9` while the import is mid-way and extractions are queued or running; a new
   cluster starts. Prints each job's end (done / failed / still running) and whether anything
   was written twice.
2. `race`: recall (4 clients) and erase-all released together by a barrier, `--rounds` times.
   Prints the answers by status: no 5xx is the pass mark.
3. `outage`: REST (GET /api/v1/memories/), mem0 (POST /v3/memories/), MCP (a new session's
   `initialize`) and a page (/me/) polled while the database is stopped for 6 s and started
   again. Prints each surface's answers during the outage (503 with Retry-After is the mark).
4. `spray`: one password tried across 23 accounts, four rounds, from one address with a
   rotating X-Forwarded-For. Prints when the answers turned to 429.

`python -m bench faults [--jobs 20] [--import-lines 1000] [--rounds 10] [--parts jobs,race,outage,spray]`
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from bench.serving import Child, _production_env, start_web

ROOT = Path(__file__).resolve().parent.parent
DB = "faults"
PASSWORD = "faults-bench-password-1"  # noqa: S105 - a throwaway account of a throwaway database
SPRAYED = "Summer2026!"


def _request(port: int, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    """(status, headers, body); status 0 for a refused or reset connection."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        payload = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        conn.request(method, path, body=payload, headers=sent)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    except OSError:
        return 0, {}, b""
    finally:
        conn.close()


def _token(key: str) -> dict[str, str]:
    return {"Authorization": f"Token {key}"}


def _login(port: int, username: str, password: str, extra: dict[str, str] | None = None) -> tuple[int, str]:
    """(status, session id) of one sign-in through the real form (302 and a session: signed in)."""
    status, headers, page = _request(port, "GET", "/accounts/login/", headers=extra)
    if status != 200:
        return status, ""
    csrf = SimpleCookie(headers.get("set-cookie", ""))["csrftoken"].value
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()  # type: ignore[union-attr]
    body = f"username={username}&password={password}&csrfmiddlewaretoken={token}".encode()
    status, headers, _ = _request(port, "POST", "/accounts/login/", body, {
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={csrf}",
        "Referer": f"http://127.0.0.1:{port}/accounts/login/", **(extra or {})})  # fmt: skip
    cookie = SimpleCookie(headers.get("set-cookie", ""))
    return status, cookie["sessionid"].value if "sessionid" in cookie else ""


@dataclass
class World:
    token: str  # the person's API token
    key: str  # a tenant key, for mem0
    accounts: list[str] = field(default_factory=list)


def _setup(pgdata: Path) -> World:
    """Django in this process on the private server, migrated; a person, a tenant, 23 accounts."""
    os.environ.update(
        EMBEDDED_PGDATA=str(pgdata), EMBEDDED_DB_NAME=DB, DJANGO_SETTINGS_MODULE="config.settings"
    )
    os.environ.setdefault("DEBUG", "true")  # only for this process's development secret key
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from api.services import api_key_issue, tenant_create, user_token_issue

    call_command("migrate", verbosity=0, interactive=False)
    users = get_user_model().objects
    person = users.create_user("demo", password=PASSWORD)
    tenant = tenant_create(name="Faults", slug="faults", created_by=person)
    world = World(
        user_token_issue(user=person).key, api_key_issue(tenant=tenant, scopes=["read", "write"])[1]
    )
    for n in range(23):
        world.accounts.append(users.create_user(f"member{n:02d}", password=f"pw-{uuid.uuid4().hex}").username)
    return world


def _cluster(env: dict[str, str], log: Path) -> Child:
    return Child([sys.executable, str(ROOT / "manage.py"), "qcluster"], env, log)


def _wait(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


# --- 1. jobs -------------------------------------------------------------------------------------


def _extractions(port: int, token: str, numbers: range) -> list[int]:
    ids = []
    for n in numbers:
        body = {"conversation": f"faults-{n}",
                "messages": [{"role": "user", "content": f"I work as a baker number {n}."}]}  # fmt: skip
        status, _, raw = _request(port, "POST", "/api/v1/extractions/", body, _token(token))
        if status == 202:
            ids.append(json.loads(raw)["id"])
    return ids


def jobs(port: int, world: World, env: dict[str, str], logs: Path, count: int, lines: int) -> bool:
    from memory_core.models import ExtractionJob, ImportJob, MemoryEntry

    data = "\n".join(f"- Has planted tree number {n} in the garden" for n in range(1, lines + 1))
    status, _, raw = _request(
        port, "POST", "/api/v1/imports/", {"format": "text", "data": data}, _token(world.token)
    )
    if status != 202:
        sys.exit(f"faults: the import was not queued ({status}): {raw[:300]!r}")
    import_id = json.loads(raw)["id"]
    ids = _extractions(port, world.token, range(count // 2))
    first = _cluster(env, logs / "cluster-1.log")
    _wait(lambda: ImportJob.objects.get(pk=import_id).done > 0, 300)
    ids += _extractions(port, world.token, range(count // 2, count))
    doomed = first.pids()
    os.kill(first.proc.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    at_kill = ImportJob.objects.get(pk=import_id)
    states = Counter(ExtractionJob.objects.filter(pk__in=ids).values_list("status", flat=True))
    _wait(lambda: not any(Path(f"/proc/{pid}").exists() for pid in doomed), 10)
    first.proc.wait()
    second = _cluster(env, logs / "cluster-2.log")
    try:
        _wait(lambda: ImportJob.objects.get(pk=import_id).done > at_kill.done, 120)
        resumed = time.monotonic() - killed_at
        settled = _wait(
            lambda: (
                not ExtractionJob.objects.filter(pk__in=ids, status__in=["queued", "running"]).exists()
                and ImportJob.objects.get(pk=import_id).status in ("done", "failed")
            ),
            600,
        )
        recovered = time.monotonic() - killed_at
    finally:
        second.stop()
    job = ImportJob.objects.get(pk=import_id)
    ends = Counter(ExtractionJob.objects.filter(pk__in=ids).values_list("status", flat=True))
    written = Counter(
        MemoryEntry.objects.filter(source_conversation__startswith="faults-").values_list(
            "source_conversation", flat=True
        )
    )
    twice = sum(1 for n in written.values() if n > 1)
    lines_seen = Counter(row["line"] for row in job.results)
    print(f"jobs: killed the cluster (kill -9) with the import at {at_kill.done}/{at_kill.total} "
          f"and extractions {dict(states)}; a new cluster went on after {resumed:.1f} s (its start "
          f"included) and finished in {recovered:.1f} s")  # fmt: skip
    once = sum(1 for n in written.values() if n == 1)
    print(f"  extractions: {len(ids)} queued -> {dict(ends)}; written once: {once}, "
          f"twice or more: {twice}")  # fmt: skip
    print(f"  import: {job.status} {job.done}/{job.total}, lines written twice: "
          f"{sum(1 for n in lines_seen.values() if n > 1)}, error: {job.error or '-'}")  # fmt: skip
    running = (
        ExtractionJob.objects.filter(status="running").count()
        + ImportJob.objects.filter(status="running").count()
    )
    print(f"  jobs left running: {running}")
    return settled and not twice and running == 0 and set(ends) == {"done"} and job.status == "done"


# --- 2. recall racing erase-all ------------------------------------------------------------------


def race(port: int, world: World, rounds: int) -> bool:
    answers: dict[str, Counter[int]] = {"recall": Counter(), "erase-all": Counter()}
    lock = threading.Lock()
    headers = _token(world.token)
    for r in range(rounds):
        memories = [{"content": f"The user's lucky number in round {r} is {n}."} for n in range(10)]
        _request(port, "POST", "/api/v1/memories/", {"memories": memories}, headers)
        barrier = threading.Barrier(5)

        def recall(barrier: threading.Barrier = barrier, r: int = r) -> None:
            barrier.wait()
            for _ in range(5):
                status, _, _ = _request(
                    port, "POST", "/api/v1/recall/", {"query": f"lucky number round {r}"}, headers
                )
                with lock:
                    answers["recall"][status] += 1

        def erase(barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            status, _, _ = _request(port, "POST", "/api/v1/memories/erase-all/", {"confirm": True}, headers)
            with lock:
                answers["erase-all"][status] += 1

        threads = [threading.Thread(target=recall) for _ in range(4)] + [threading.Thread(target=erase)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    failures = sum(
        n for counts in answers.values() for status, n in counts.items() if status >= 500 or status == 0
    )
    print(f"race: {rounds} rounds of 4 recall clients x 5 and one erase-all, released by a barrier")
    for kind, counts in answers.items():
        print(f"  {kind}: {dict(sorted(counts.items()))}")
    print(f"  5xx (or dropped): {failures}")
    return failures == 0


# --- 3. the database stops -----------------------------------------------------------------------


def _surfaces(port: int, world: World, session: str) -> dict[str, Callable[[], tuple[int, dict[str, str]]]]:
    mcp_init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "1"}}}  # fmt: skip

    def call(
        method: str, path: str, body: Any, headers: dict[str, str]
    ) -> Callable[[], tuple[int, dict[str, str]]]:
        return lambda: _request(port, method, path, body, headers)[:2]

    return {
        "REST": call("GET", "/api/v1/memories/", None, {**_token(world.token), "Accept": "application/json"}),
        "mem0": call("POST", "/v3/memories/", {"filters": {"user_id": "u1"}}, _token(world.key)),
        "MCP": call(
            "POST",
            "/mcp/",
            mcp_init,
            {"Authorization": f"Bearer {world.token}", "Accept": "application/json, text/event-stream"},
        ),
        "page": call("GET", "/me/", None, {"Cookie": f"sessionid={session}", "Accept": "text/html"}),
    }


def _start_server(pgdata: Path) -> None:
    """Start the stopped server from another process (this one keeps its own handle of it)."""
    code = "import sys; from config import embedded_postgres as e; e.ensure_server(sys.argv[1], sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(pgdata), DB], cwd=ROOT, check=True, capture_output=True)


def outage(port: int, world: World, pgdata: Path, session: str) -> bool:
    from django.db import connections

    from config import embedded_postgres

    surfaces = _surfaces(port, world, session)
    seen: list[tuple[float, str, int, bool]] = []
    lock, stop = threading.Lock(), threading.Event()

    def poll(name: str, call: Callable[[], tuple[int, dict[str, str]]]) -> None:
        while not stop.is_set():
            asked = time.monotonic()  # when it was asked: a request under way at the stop may still pass
            status, headers = call()
            with lock:
                seen.append((asked, name, status, "retry-after" in headers))
            time.sleep(0.05)

    threads = [threading.Thread(target=poll, args=item) for item in surfaces.items()]
    for thread in threads:
        thread.start()
    time.sleep(2)
    connections.close_all()
    embedded_postgres.stop_server(pgdata)
    stopped = time.monotonic()
    time.sleep(6)
    restarted = time.monotonic()  # from here on it may be back at any moment
    _start_server(pgdata)
    time.sleep(8)
    stop.set()
    for thread in threads:
        thread.join()
    print("outage: the database stopped for 6 s under REST, mem0, MCP and page load (4 pollers)")
    good = True
    for name in surfaces:
        during = [
            (status, retry)
            for at, who, status, retry in seen
            if who == name and stopped + 0.5 < at < restarted
        ]
        after = [status for at, who, status, _ in seen if who == name and at > restarted + 5]
        counts = Counter(status for status, _ in during)
        with_retry = sum(1 for status, retry in during if status == 503 and retry)
        print(f"  {name:5}: during {dict(sorted(counts.items()))} ({with_retry} with Retry-After); "
              f"after: {dict(sorted(Counter(after).items()))}")  # fmt: skip
        good = good and bool(during) and set(counts) == {503} and with_retry == len(during)
    return good


# --- 4. spraying one password --------------------------------------------------------------------


def spray(port: int, world: World) -> bool:
    answers = []
    for round_ in range(4):
        for n, name in enumerate(world.accounts):
            forwarded = {"X-Forwarded-For": f"198.51.100.{(round_ * 23 + n) % 250 + 1}"}
            answers.append(_login(port, name, SPRAYED, forwarded)[0])
    first = next((i for i, status in enumerate(answers) if status == 429), None)
    right = _login(port, "demo", PASSWORD)[0]
    print("spray: one password across 23 accounts, 4 rounds, one address, rotating X-Forwarded-For")
    print(f"  answers: {dict(sorted(Counter(answers).items()))}; first 429 at attempt "
          f"{'-' if first is None else first + 1} of {len(answers)}; the right password of another "
          f"account from that address then: {right}")  # fmt: skip
    return first is not None and all(status == 429 for status in answers[first:])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench faults")
    parser.add_argument("--jobs", type=int, default=20, help="extraction jobs")
    parser.add_argument("--import-lines", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10, help="recall/erase-all races")
    parser.add_argument("--parts", default="jobs,race,outage,spray", help="which parts, in this order")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    if os.environ.get("DATABASE_URL"):
        sys.exit("faults: unset DATABASE_URL; the bench starts its own embedded server.")
    from config import embedded_postgres

    logs = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    pgdata = logs / "pg"
    world = _setup(pgdata)
    env = _production_env(EMBEDDED_PGDATA=str(pgdata), EMBEDDED_DB_NAME=DB, Q_CLUSTER_NAME="faults",
                          Q_WORKERS="2", Q_LEASE_SECONDS="3", API_RATE_PER_USER="100000000/min",
                          DATABASE_RETRY_AFTER_SECONDS="4")  # fmt: skip
    web, port = start_web(env, 2, logs / "web.log")
    results = {}
    try:
        _, session = _login(port, "demo", PASSWORD)
        if "jobs" in parts:
            results["jobs"] = jobs(port, world, env, logs, args.jobs, args.import_lines)
        if "race" in parts:
            results["race"] = race(port, world, args.rounds)
        if "outage" in parts:
            results["outage"] = outage(port, world, pgdata, session)
        if "spray" in parts:
            results["spray"] = spray(port, world)
    finally:
        web.stop()
        embedded_postgres.stop_server(pgdata)
    print("faults: " + ", ".join(f"{name} {'ok' if ok else 'FAILED'}" for name, ok in results.items())
          + f" (logs in {logs})")  # fmt: skip
    if not all(results.values()):
        sys.exit(1)
