"""The database stops under load: clients get 503 with Retry-After (JSON from the API, a page for
people, an error result or JSON-RPC error from MCP), never a 500, and the same web server processes
answer again once it is back."""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path

import anyio
import httpx

from config.embedded_postgres import ensure_server, stop_server
from tests.serving.processes import ROOT, WebServer, descendants, production_env, running

DB = "memory"
PASSWORD = "outage-test-password-1"


@dataclass
class Answer:
    at: float
    kind: str
    status: int
    retry_after: str | None
    content_type: str
    body: bytes


@dataclass
class Load:
    answers: list[Answer] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, env=env, capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return done.stdout.decode()


def _sign_in(port: int) -> str:
    """The session cookie of the demo user, through the real login form."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/accounts/login/")
    page = conn.getresponse()
    csrf_cookie = SimpleCookie(page.getheader("Set-Cookie"))["csrftoken"].value
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.read()).group(1).decode()
    body = f"username=demo&password={PASSWORD}&csrfmiddlewaretoken={token}".encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={csrf_cookie}",
               "Referer": f"http://127.0.0.1:{port}/accounts/login/"}  # fmt: skip
    conn.request("POST", "/accounts/login/", body=body, headers=headers)
    answer = conn.getresponse()
    answer.read()
    assert answer.status == 302, answer.status
    return SimpleCookie(answer.getheader("Set-Cookie"))["sessionid"].value


def _client(port: int, kind: str, headers: dict[str, str], load: Load, started: float) -> None:
    path = "/api/v1/memories/" if kind == "api" else "/me/"
    while not load.stop.is_set():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            answer = Answer(time.monotonic() - started, kind, response.status,
                            response.getheader("Retry-After"), response.getheader("Content-Type") or "",
                            response.read())  # fmt: skip
            with load.lock:
                load.answers.append(answer)
        except OSError as exc:
            with load.lock:
                load.errors.append(f"{kind}: {exc!r}")
        finally:
            conn.close()
        time.sleep(0.05)


def test_it_answers_503_while_the_database_is_down_and_recovers_by_itself(tmp_path: Path):
    pgdata = tmp_path / "pg"
    # These pages never embed; the clients poll faster than a person's rate limit allows, and this
    # test is about outages, not limits (tests/api/test_limits.py has those).
    env = production_env(EMBEDDED_PGDATA=str(pgdata), EMBEDDED_DB_NAME=DB, DEMO_PASSWORD=PASSWORD,
                         EMBEDDING_BACKEND="openai", API_RATE_PER_USER="100000/min")  # fmt: skip
    _manage(env, "migrate", "--noinput")
    _manage(env, "ensure_demo_user")
    token = _manage(env, "issue_user_token", "demo").strip()
    server = WebServer(tmp_path / "web.log", workers=2, env=env)
    load = Load()
    try:
        with running(server):
            server.wait_ready()
            session = _sign_in(server.port)
            processes = sorted([server.pid, *descendants(server.pid)])
            started = time.monotonic()
            clients = [
                threading.Thread(target=_client, args=(server.port, kind, headers, load, started))
                for kind, headers in [
                    ("api", {"Authorization": f"Token {token}", "Accept": "application/json"}),
                    ("api", {"Authorization": f"Token {token}", "Accept": "application/json"}),
                    ("page", {"Cookie": f"sessionid={session}", "Accept": "text/html"}),
                    ("page", {"Cookie": f"sessionid={session}", "Accept": "text/html"}),
                ]
            ]
            for thread in clients:
                thread.start()
            time.sleep(2)
            stopping_at = time.monotonic() - started
            assert stop_server(pgdata)
            stopped_at = time.monotonic() - started
            time.sleep(6)
            ensure_server(pgdata, DB)
            restarted_at = time.monotonic() - started
            # Recovered: every client's last answers are 200 again.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                time.sleep(1)
                with load.lock:
                    recent = [a for a in load.answers if a.at > time.monotonic() - started - 2]
                if (
                    recent
                    and all(a.status == 200 for a in recent)
                    and {a.kind for a in recent} == {"api", "page"}
                ):
                    break
            load.stop.set()
            for thread in clients:
                thread.join()
            assert sorted([server.pid, *descendants(server.pid)]) == processes  # nothing restarted
            log = server.tail(20000)
    finally:
        load.stop.set()
        stop_server(pgdata)

    answers = load.answers
    assert not load.errors, load.errors[:5]
    assert {a.status for a in answers} <= {200, 503}, sorted({a.status for a in answers})
    assert "Traceback" not in log, log[-3000:]
    before = [a for a in answers if a.at < stopping_at]
    during = [a for a in answers if stopped_at + 0.5 < a.at < restarted_at]
    after = [a for a in answers if a.at > restarted_at]
    assert before and all(a.status == 200 for a in before)
    unavailable = [a for a in during if a.status == 503]
    assert {a.kind for a in unavailable} == {"api", "page"}, [(a.kind, a.status) for a in during]
    for answer in unavailable:
        assert answer.retry_after and int(answer.retry_after) > 0
        if answer.kind == "api":
            assert answer.content_type == "application/json"
            assert b'"code":"service_unavailable"' in answer.body.replace(b" ", b"")
        else:
            assert answer.content_type.startswith("text/html")
            assert b"Back in a moment" in answer.body
    assert after and after[-1].status == 200
    assert all(a.status == 200 for a in after if a.at > after[-1].at - 2)


# --- MCP: the same outage through the MCP client --------------------------------------------------


@dataclass
class McpAnswer:
    at: float
    kind: str  # "tool": a tool call of an open session; "initialize": a new session's first request
    failed: bool  # an error result (tool), or an HTTP error (initialize)
    status: int | None  # the body's status (tool) or the HTTP status (initialize)
    body: dict
    retry_after: str | None = None


def _mcp_tool_calls(url: str, token: str, load: Load, answers: list[McpAnswer], started: float) -> None:
    """One MCP session, opened while the database is up, calling a tool until stopped."""
    from tests.api import mcp_helpers as m

    async def scenario() -> None:
        async with m.http_client(url, token) as client:
            while not load.stop.is_set():
                try:
                    failed, body = await m.call(client, "memory_list", limit=5)
                except Exception as exc:  # an SDK error: a 500, or anything not an MCP answer
                    with load.lock:
                        load.errors.append(f"tool: {exc!r}")
                else:
                    with load.lock:
                        answers.append(McpAnswer(time.monotonic() - started, "tool", failed,
                                                 body.get("status") if failed else 200, body))  # fmt: skip
                await anyio.sleep(0.05)

    anyio.run(scenario)


def _mcp_initializations(url: str, token: str, load: Load, answers: list[McpAnswer], started: float) -> None:
    """New sessions, each `initialize` a fresh POST: what a client connecting during the outage sees."""
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    while not load.stop.is_set():
        try:
            response = httpx.post(url, json=message, headers=headers, timeout=30)
        except httpx.HTTPError as exc:
            with load.lock:
                load.errors.append(f"initialize: {exc!r}")
        else:
            status = response.status_code
            answer = McpAnswer(time.monotonic() - started, "initialize", status >= 400, status,
                               response.json(), response.headers.get("Retry-After"))  # fmt: skip
            with load.lock:
                answers.append(answer)
        time.sleep(0.05)


def test_mcp_answers_its_503_while_the_database_is_down_and_recovers(tmp_path: Path):
    pgdata = tmp_path / "pg"
    env = production_env(EMBEDDED_PGDATA=str(pgdata), EMBEDDED_DB_NAME=DB, DEMO_PASSWORD=PASSWORD,
                         EMBEDDING_BACKEND="openai", API_RATE_PER_USER="100000/min",
                         DATABASE_RETRY_AFTER_SECONDS="4")  # fmt: skip
    _manage(env, "migrate", "--noinput")
    _manage(env, "ensure_demo_user")
    token = _manage(env, "issue_user_token", "demo").strip()
    server = WebServer(tmp_path / "web.log", workers=2, env=env)
    load, answers = Load(), []
    try:
        with running(server):
            server.wait_ready()
            url = f"http://127.0.0.1:{server.port}/mcp/"
            started = time.monotonic()
            clients = [
                threading.Thread(target=target, args=(url, token, load, answers, started))
                for target in (_mcp_tool_calls, _mcp_tool_calls, _mcp_initializations)
            ]
            for thread in clients:
                thread.start()
            time.sleep(3)
            stopping_at = time.monotonic() - started
            assert stop_server(pgdata)
            stopped_at = time.monotonic() - started
            time.sleep(6)
            ensure_server(pgdata, DB)
            restarted_at = time.monotonic() - started
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                time.sleep(1)
                with load.lock:
                    recent = [a for a in answers if a.at > time.monotonic() - started - 2]
                if (
                    recent
                    and not any(a.failed for a in recent)
                    and {a.kind for a in recent}
                    == {
                        "tool",
                        "initialize",
                    }
                ):
                    break
            load.stop.set()
            for thread in clients:
                thread.join()
            log = server.tail(20000)
    finally:
        load.stop.set()
        stop_server(pgdata)

    assert not load.errors, load.errors[:5]
    assert "Traceback" not in log, log[-3000:]
    assert {a.status for a in answers} <= {200, 503}, sorted({a.status for a in answers})
    before = [a for a in answers if a.at < stopping_at]
    during = [a for a in answers if stopped_at + 0.5 < a.at < restarted_at]
    assert before and not any(a.failed for a in before)
    unavailable = [a for a in during if a.failed]
    assert {a.kind for a in unavailable} == {"tool", "initialize"}, [(a.kind, a.status) for a in during]
    for answer in unavailable:
        # The REST API's 503 body, as MCP carries it: a tool's error result, or a JSON-RPC error.
        body = answer.body if answer.kind == "tool" else answer.body["error"]["data"]
        assert body["code"] == "service_unavailable" and body["status"] == 503, answer
        assert body["retry_after"] == 4 and body["detail"].startswith("The service is temporarily")
        if answer.kind == "initialize":
            assert answer.retry_after == "4" and answer.body["id"] == 1
    after = [a for a in answers if a.at > restarted_at]
    assert after and not after[-1].failed
