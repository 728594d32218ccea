"""The production web server under slow clients: two connections that trickle their headers hold
no worker (uvicorn reads requests on an event loop), and no request, not even the first one of a
worker respawned after a crash, waits for the embedding model (warmed up before the port opens)."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest

from api.services import user_token_issue
from tests.serving.processes import WebServer, descendants, request, running

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_SECONDS = 8.0
# A blocked worker or a lazily loaded model costs 8+ s; a busy shared CI machine can add about a second
# to an ordinary recall. The bound sits between the two.
ANSWER_WITHIN = 3.0


def _trickle(port: int, stop: threading.Event) -> None:
    """A slowloris client: a request line, then one header byte every half second, never finishing."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        while not stop.wait(0.5):
            try:
                sock.sendall(b"a")
            except OSError:
                return


def _recall(port: int, token: str) -> tuple[int, float]:
    body = json.dumps({"query": "what do I like to drink?", "limit": 5}).encode()
    headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
    started = time.perf_counter()
    status, _ = request(port, "POST", "/api/v1/recall/", body=body, headers=headers, timeout=30)
    return status, time.perf_counter() - started


def _recalls_during(port: int, token: str, seconds: float) -> list[tuple[int, float]]:
    answers = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answers.append(_recall(port, token))
        time.sleep(0.2)
    return answers


def test_it_answers_a_third_client_at_once_while_two_clients_trickle_headers(make_user, tmp_path):
    token = user_token_issue(user=make_user("alice")).key
    server = WebServer(tmp_path / "web.log", workers=2)
    with running(server):
        server.wait_ready()
        # The first recalls reach fresh workers: the model was loaded once, before they forked.
        first = [_recall(server.port, token) for _ in range(4)]
        assert [status for status, _ in first] == [200] * 4, server.tail()
        assert max(seconds for _, seconds in first) < ANSWER_WITHIN, first

        stop = threading.Event()
        slow = [threading.Thread(target=_trickle, args=(server.port, stop)) for _ in range(2)]
        for thread in slow:
            thread.start()
        try:
            time.sleep(0.5)  # both slow connections are open and mid-headers
            answers = _recalls_during(server.port, token, SLOW_SECONDS)
        finally:
            stop.set()
            for thread in slow:
                thread.join()

    assert len(answers) >= 5
    assert {status for status, _ in answers} == {200}
    assert max(seconds for _, seconds in answers) < ANSWER_WITHIN, answers


def test_a_worker_respawned_after_a_crash_answers_at_once(make_user, tmp_path):
    token = user_token_issue(user=make_user("alice")).key
    server = WebServer(tmp_path / "web.log", workers=1)
    with running(server):
        server.wait_ready()
        assert _recall(server.port, token)[0] == 200
        [worker] = descendants(server.pid)

        os.kill(worker, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and descendants(server.pid) in ([], [worker]):
            time.sleep(0.05)
        respawned = time.monotonic()
        # The new worker forks from the warm master: it accepts at once, model included.
        status, seconds = None, None
        while time.monotonic() - respawned < 5:
            try:
                status, seconds = _recall(server.port, token)
                break
            except OSError:
                time.sleep(0.05)
        answered_after = time.monotonic() - respawned

    assert descendants(server.pid) != [worker]
    assert status == 200, server.tail()
    assert answered_after < ANSWER_WITHIN and seconds is not None and seconds < ANSWER_WITHIN
