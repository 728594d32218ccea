"""A real HTTP server speaking the OpenAI protocol with scripted answers, for tests.

The real `openai` client talks to it over a socket, so retries, timeouts, streaming and parsing
are exercised exactly as in production. Answers come from a FIFO script; when it is empty, chat
answers "ok" and embeddings are deterministic vectors of the requested dimension.

    server.reply_json({"facts": []})
    server.status(429, headers={"retry-after-ms": "10"})
    server.delay(1.5)              # longer than the client's timeout
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import json
import math
import random
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

DEFAULT_TEXT = "ok"
DEFAULT_DIMENSIONS = 384


class RecordedRequest(NamedTuple):
    path: str
    body: Any
    headers: dict[str, str]


@dataclasses.dataclass(frozen=True)
class Step:
    """One scripted answer. `content` answers chat, `vectors` embeddings; `status` != 200 is an error."""

    content: str | None = None
    chunks: tuple[str, ...] | None = None
    vectors: tuple[tuple[float, ...], ...] | None = None
    status: int = 200
    body: Any = None
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    out_of_order: bool = False
    # Sent as it is with HTTP 200 (a proxy's HTML page, a truncated body): not the protocol.
    raw_body: str | None = None


def reply_text(text: str) -> Step:
    return Step(content=text)


def reply_stream(chunks: list[str]) -> Step:
    """Streams exactly these deltas; a non-streaming request gets them joined."""
    return Step(content="".join(chunks), chunks=tuple(chunks))


def reply_json(obj: Any) -> Step:
    return Step(content=json.dumps(obj))


def reply_raw(content: str) -> Step:
    return Step(content=content)


def status(code: int, body: Any = None, headers: dict[str, str] | None = None) -> Step:
    if body is None:
        body = {"error": {"message": f"Scripted HTTP {code}", "type": "scripted_error", "code": None}}
    return Step(status=code, body=body, headers=tuple((headers or {}).items()))


def raw_body(text: str) -> Step:
    return Step(raw_body=text)


def delay(seconds: float, then: Step | None = None) -> Step:
    return dataclasses.replace(then or reply_text(DEFAULT_TEXT), delay=seconds)


def embedding(vectors: list[list[float]], *, out_of_order: bool = False) -> Step:
    """`out_of_order` lists the items last-first (each keeps its `index`), as the protocol allows."""
    frozen = tuple(tuple(float(x) for x in vector) for vector in vectors)
    return Step(vectors=frozen, out_of_order=out_of_order)


def deterministic_vector(text: str, dimensions: int = DEFAULT_DIMENSIONS) -> list[float]:
    """A unit vector seeded by the text, rounded to float32 so base64 round-trips compare equal."""
    rng = random.Random(hashlib.sha256(text.encode()).digest())
    raw = [rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [_float32(x / norm) for x in raw]


def _float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Do not wait for handlers still sleeping in a scripted delay when the test is over.
    block_on_close = False

    def __init__(self, owner: ScriptedOpenAIServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        # Kept-alive connections would otherwise hold handler threads open after stop().
        with self.connections_lock:
            connections = list(self.connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


class ScriptedOpenAIServer:
    """Serves POST /v1/chat/completions (plain and SSE) and POST /v1/embeddings."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._script: deque[Step] = deque()
        self._lock = threading.Lock()
        # With the script empty: a stand-in model's answers instead of "ok" and hashed vectors
        # (e.g. a multilingual embedding model's, a translator's); see embed_with / answer_with.
        self.embedder: Callable[[str, int], list[float]] | None = None
        self.answerer: Callable[[list[dict[str, Any]]], str] | None = None
        self._httpd = _Server(self)
        # A short poll interval keeps stop() (and so each test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="openai-server",
            daemon=True,
        )

    @property
    def base_url(self) -> str:
        port = self._httpd.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def start(self) -> ScriptedOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- the script -------------------------------------------------------------------------

    def enqueue(self, *steps: Step, times: int = 1) -> ScriptedOpenAIServer:
        with self._lock:
            for _ in range(times):
                self._script.extend(steps)
        return self

    def reply_text(self, text: str, *, times: int = 1) -> ScriptedOpenAIServer:
        return self.enqueue(reply_text(text), times=times)

    def reply_stream(self, chunks: list[str], *, times: int = 1) -> ScriptedOpenAIServer:
        return self.enqueue(reply_stream(chunks), times=times)

    def reply_json(self, obj: Any, *, times: int = 1) -> ScriptedOpenAIServer:
        return self.enqueue(reply_json(obj), times=times)

    def reply_raw(self, content: str, *, times: int = 1) -> ScriptedOpenAIServer:
        return self.enqueue(reply_raw(content), times=times)

    def status(
        self, code: int, body: Any = None, headers: dict[str, str] | None = None, *, times: int = 1
    ) -> ScriptedOpenAIServer:
        return self.enqueue(status(code, body, headers), times=times)

    def raw_body(self, text: str, *, times: int = 1) -> ScriptedOpenAIServer:
        return self.enqueue(raw_body(text), times=times)

    def delay(self, seconds: float, then: Step | None = None, *, times: int = 1) -> ScriptedOpenAIServer:
        return self.enqueue(delay(seconds, then), times=times)

    def embedding(
        self, vectors: list[list[float]], *, out_of_order: bool = False, times: int = 1
    ) -> ScriptedOpenAIServer:
        return self.enqueue(embedding(vectors, out_of_order=out_of_order), times=times)

    def embed_with(self, embedder: Callable[[str, int], list[float]]) -> ScriptedOpenAIServer:
        """Unscripted embeddings come from `embedder(text, dimensions)`."""
        self.embedder = embedder
        return self

    def answer_with(self, answerer: Callable[[list[dict[str, Any]]], str]) -> ScriptedOpenAIServer:
        """Unscripted chat answers come from `answerer(messages)`."""
        self.answerer = answerer
        return self

    @property
    def pending(self) -> int:
        """Scripted steps not yet consumed."""
        with self._lock:
            return len(self._script)

    def requests_to(self, path_suffix: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith(path_suffix)]

    def _next(self, request: RecordedRequest) -> Step | None:
        # Recorded on arrival, so a request the client gave up on (timeout) still counts.
        with self._lock:
            self.requests.append(request)
            return self._script.popleft() if self._script else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        headers = {key.lower(): value for key, value in self.headers.items()}
        step = self.server.owner._next(RecordedRequest(self.path, body, headers))
        try:
            self._answer(step, body if isinstance(body, dict) else {})
        except OSError:
            # The client timed out and hung up during a scripted delay: expected.
            self.close_connection = True

    def _answer(self, step: Step | None, body: dict[str, Any]) -> None:
        if step is not None and step.delay:
            time.sleep(step.delay)
        if step is not None and step.status != 200:
            self._send_json(step.status, step.body, dict(step.headers))
            return
        if step is not None and step.raw_body is not None:
            self._send_json(200, step.raw_body)
            return
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            self._chat(step, body)
        elif path.endswith("/embeddings"):
            self._embeddings(step, body)
        else:
            self._send_json(404, {"error": {"message": f"No route for {self.path}", "type": "not_found"}})

    def _chat(self, step: Step | None, body: dict[str, Any]) -> None:
        if step is not None and step.content is None:
            self._send_json(400, {"error": {"message": "Script mismatch: chat got a non-chat step"}})
            return
        answerer = self.server.owner.answerer
        if step is None:
            content = answerer(body.get("messages", [])) if answerer else DEFAULT_TEXT
        else:
            content = step.content or ""
        model = body.get("model") or "scripted-model"
        ident = f"chatcmpl-{len(self.server.owner.requests)}"
        created = int(time.time())
        prompt_tokens = len(json.dumps(body.get("messages", [])).split())
        completion_tokens = len(content.split())
        if body.get("stream"):
            chunks = list(step.chunks) if step and step.chunks else re.findall(r"\S+\s*|\s+", content)
            self._send_stream(ident, created, model, chunks)
            return
        self._send_json(
            200,
            {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )

    def _send_stream(self, ident: str, created: int, model: str, chunks: list[str]) -> None:
        def event(delta: dict[str, Any], finish_reason: str | None) -> bytes:
            chunk = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            }
            return f"data: {json.dumps(chunk)}\n\n".encode()

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        # No Content-Length: the stream ends when the connection closes.
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(event({"role": "assistant", "content": ""}, None))
        for piece in chunks:
            self.wfile.write(event({"content": piece}, None))
            self.wfile.flush()
        self.wfile.write(event({}, "stop"))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _embeddings(self, step: Step | None, body: dict[str, Any]) -> None:
        if step is not None and step.vectors is None:
            mismatch = "Script mismatch: embeddings got a non-embedding step"
            self._send_json(400, {"error": {"message": mismatch}})
            return
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        dimensions = int(body.get("dimensions") or DEFAULT_DIMENSIONS)
        if step is not None and step.vectors is not None:
            vectors = [list(vector) for vector in step.vectors]
        else:
            embed = self.server.owner.embedder or deterministic_vector
            vectors = [[_float32(x) for x in embed(str(text), dimensions)] for text in inputs]
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {
                "object": "embedding",
                "index": index,
                # The openai package asks for base64 (little-endian float32) unless told otherwise.
                "embedding": base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
                if as_base64
                else vector,
            }
            for index, vector in enumerate(vectors)
        ]
        if step is not None and step.out_of_order:
            data.reverse()
        tokens = sum(len(str(text).split()) for text in inputs)
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model") or "scripted-embedding",
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _send_json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        raw = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(raw)
        self.wfile.flush()
