"""A real HTTP server on the loopback that receives webhooks: it records each request (headers and
raw body) and answers with scripted status codes (200 once the script runs out); a step can also
hold the answer until the test releases it, to make two deliveries overlap on purpose."""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        receiver = self.server.receiver
        status, hold = receiver.next_step()
        receiver.record(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if hold is not None:
            hold.wait(timeout=10)
        answer = json.dumps({"ok": 200 <= status < 300}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, receiver: Receiver) -> None:
        self.receiver = receiver
        super().__init__(("127.0.0.1", 0), _Handler)


class Receiver:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self._script: deque[tuple[int, threading.Event | None]] = deque()
        self._lock = threading.Lock()
        self.arrived = threading.Event()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/hooks"

    def answer(self, *statuses: int, hold: threading.Event | None = None) -> None:
        """Answer the next requests with these statuses (then 200)."""
        with self._lock:
            self._script.extend((status, hold) for status in statuses)

    def next_step(self) -> tuple[int, threading.Event | None]:
        with self._lock:
            return self._script.popleft() if self._script else (200, None)

    def record(self, request: Received) -> None:
        with self._lock:
            self.received.append(request)
        self.arrived.set()

    def of_type(self, type: str) -> list[Received]:
        return [r for r in self.received if r.headers.get("webhook-event") == type]

    def start(self) -> Receiver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(autouse=True)
def _webhooks_on_the_loopback(settings: Any) -> None:
    """Test receivers listen on 127.0.0.1, whatever the checkout's .env says for development."""
    settings.WEBHOOK_ALLOW_LOOPBACK = True


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver().start()
    yield server
    server.stop()
