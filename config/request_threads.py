"""Django's ASGI handler, each request's Django work run in one go on a thread kept between requests.

Stock, Django runs a request's sync work (middleware, view, signals) on one thread of its own, new
for each request: started, and then joined by one more thread start on the event loop, each start
waiting until the system schedules the new thread. And it goes back and forth between that thread
and the event loop within the request: to the loop for django-axes' async middleware and the URL
resolution, back for CSRF's view check, the view, and the rendering, a wait on each side each time.
On a busy machine those cost a recall over HTTP about 4 and 2 ms at p50.

Here a request borrows an idle thread (or starts one) and gives it back when it ends, still one
request per thread at a time; and the middleware chain is built as under WSGI (every middleware
here can run sync) and called once on that thread. A thread whose work outlives its request (a
client that went away, a request cut by `config.asgi.RequestTimeout`: threads cannot be
interrupted) is not given back; it ends when that work does, middleware included, as under WSGI.

Nothing is kept per thread between requests: Django's connections, translations and URL prefixes
live in the request's context (asgiref's `Local`), not in the thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest
from django.http.response import HttpResponseBase

# Idle threads kept per process at most; more requests at once start more, which end afterwards.
MAX_IDLE_THREADS = 16


class RequestThread(ThreadPoolExecutor):
    """One thread, one call at a time, that knows whether a call is still pending."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="request")
        self._lock = threading.Lock()
        self._pending = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        with self._lock:
            self._pending += 1
        future.add_done_callback(self._done)  # called at once if the call is already over
        return future

    def _done(self, future: Future[Any]) -> None:
        with self._lock:
            self._pending -= 1

    @property
    def idle(self) -> bool:
        with self._lock:
            return self._pending == 0


class ThreadKeepingASGIHandler(ASGIHandler):
    """`ASGIHandler` whose requests run their middleware chain in one call on a kept `RequestThread`."""

    def __init__(self) -> None:
        super().__init__()
        self._idle: list[RequestThread] = []  # touched on the event loop only

    def load_middleware(self, is_async: bool = False) -> None:
        """The chain as WSGI builds it (sync middleware, `_get_response`), awaited as one call."""
        super().load_middleware(is_async=False)
        chain: Callable[[HttpRequest], HttpResponseBase] = self._middleware_chain  # type: ignore[has-type]
        self._middleware_chain = sync_to_async(chain, thread_sensitive=True)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        thread = self._idle.pop() if self._idle else RequestThread()
        try:
            async with ThreadSensitiveContext(executor=thread):
                await self.handle(scope, receive, send)
        finally:
            if thread.idle and len(self._idle) < MAX_IDLE_THREADS:
                self._idle.append(thread)
            else:
                thread.shutdown(wait=False)  # its thread ends once its last call has
