"""`config.asgi.RequestTimeout`: an answer that has not started in time becomes a 504; an answer
that started (a streamed chat reply) is left to finish."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from config.asgi import RequestTimeout

SCOPE = {"type": "http", "method": "GET", "path": "/", "headers": []}


async def _receive() -> dict[str, Any]:
    await asyncio.sleep(3600)
    return {"type": "http.disconnect"}


def _serve(app: Any, seconds: float) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    # On a thread of its own: Playwright's tests leave an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, RequestTimeout(app, seconds)(SCOPE, _receive, send)).result()
    return sent


def test_a_stuck_request_gets_a_504():
    finished = []

    async def stuck(scope: Any, receive: Any, send: Any) -> None:
        await asyncio.sleep(5)
        finished.append(True)

    sent = _serve(stuck, 0.2)

    assert sent[0]["status"] == 504
    assert json.loads(sent[1]["body"])["code"] == "timeout"
    assert not finished  # the app was cancelled, and nothing it sends later reaches the client


def test_a_streamed_answer_that_started_in_time_finishes():
    async def streaming(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for part in (b"one ", b"two ", b"three"):
            await asyncio.sleep(0.15)
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    sent = _serve(streaming, 0.2)

    assert sent[0]["status"] == 200
    assert b"".join(m.get("body", b"") for m in sent[1:]) == b"one two three"


def test_a_quick_answer_passes_through():
    async def quick(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 201, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    assert [m.get("status") for m in _serve(quick, 0.2)] == [201, None]
