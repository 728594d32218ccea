"""`config.request_threads`: Django's ASGI handler keeps its request threads between requests,
still one request per thread at a time, and never hands on a thread whose work outlived its
request. Driven in this process through the ASGI interface, as the server calls it."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from config.asgi import RequestTimeout
from config.request_threads import ThreadKeepingASGIHandler
from tests.serving import thread_urls


@pytest.fixture
def handler(settings) -> ThreadKeepingASGIHandler:
    settings.ROOT_URLCONF = "tests.serving.thread_urls"
    settings.ALLOWED_HOSTS = ["testserver"]
    # The sync middleware before the async one (axes), as in the site, and one that notes its thread.
    settings.MIDDLEWARE = ["tests.serving.thread_urls.RecordThread", *settings.MIDDLEWARE]
    thread_urls.release.clear()
    thread_urls.pair.reset()
    return ThreadKeepingASGIHandler()


async def _call(app: Any, path: str) -> list[dict[str, Any]]:
    """GET `path` of the ASGI `app`; the messages it sent. The client never goes away."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }  # fmt: skip
    sent: list[dict[str, Any]] = []
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


async def _get(app: Any, path: str) -> tuple[int, dict[str, Any]]:
    sent = await _call(app, path)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body)


def _run(coroutine: Any) -> Any:
    # On a thread of its own: Playwright's tests leave an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.mark.django_db
def test_requests_one_after_another_share_a_thread_and_a_request_keeps_to_one(handler):
    async def three() -> list[tuple[int, dict[str, Any]]]:
        return [await _get(handler, "/thread/") for _ in range(3)]

    answers = _run(three())

    assert [status for status, _ in answers] == [200, 200, 200]
    assert len({body["thread"] for _, body in answers}) == 1
    assert all(body["middleware"] == body["thread"] for _, body in answers)


@pytest.mark.django_db
def test_the_middleware_and_the_view_run_in_one_call_with_no_trip_to_the_event_loop(handler):
    """The chain is the sync one WSGI builds: the view is called by `_get_response` inside the
    middleware's own calls, not resumed from the event loop (asgiref's AsyncToSync) midway."""
    status, body = _run(_get(handler, "/stack/"))

    assert status == 200
    assert "BaseHandler._get_response" in body["stack"] and "RecordThread.__call__" in body["stack"]
    assert "AxesMiddleware.__call__" in body["stack"]  # django-axes, run sync too
    assert not [name for name in body["stack"] if name.startswith("AsyncToSync")]


@pytest.mark.django_db(transaction=True)
def test_requests_at_the_same_time_each_have_a_thread(handler):
    """Each view waits for the other at a barrier: on one shared thread they would never meet."""

    async def one_then_two() -> list[tuple[int, dict[str, Any]]]:
        kept = await _get(handler, "/thread/")  # leaves one idle thread to take
        return [kept, *await asyncio.gather(_get(handler, "/paired/"), _get(handler, "/paired/"))]

    (_, kept), (first, a), (second, b) = _run(one_then_two())

    assert (first, second) == (200, 200)
    assert a["thread"] != b["thread"] and kept["thread"] in (a["thread"], b["thread"])


@pytest.mark.django_db(transaction=True)
def test_a_thread_still_busy_after_its_request_is_not_handed_on(handler):
    """A request cut by the timeout leaves its view running; the next request gets another thread
    at once, and the busy one ends when its view does."""
    app = RequestTimeout(handler, 1.0)

    async def cut_then_next() -> tuple[int, tuple[int, dict[str, Any]]]:
        cut = await _call(app, "/held/")  # answered 504 while the view waits
        following = await asyncio.wait_for(_get(app, "/thread/"), timeout=5)
        waiting.extend(t for t in threading.enumerate() if t.ident in thread_urls.held)
        thread_urls.release.set()
        return cut[0]["status"], following

    thread_urls.held.clear()
    waiting: list[threading.Thread] = []
    try:
        status, (next_status, body) = _run(cut_then_next())
    finally:
        thread_urls.release.set()

    assert status == 504 and next_status == 200
    assert len(waiting) == 1  # the cut request's view was still running when the next one came
    assert body["thread"] != waiting[0].ident
    waiting[0].join(timeout=10)
    assert not waiting[0].is_alive()  # given up, not kept: it ended with its view
