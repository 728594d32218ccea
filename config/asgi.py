"""The ASGI application served by `config.server` (gunicorn + uvicorn workers): Django (its request
threads kept between requests, `config.request_threads`), and the MCP server at `/mcp/` (`api.mcp`),
whose lifespan (the SDK's session manager) is the site's.

Wrapped in `RequestTimeout`: a request that has not started its answer after
REQUEST_TIMEOUT_SECONDS gets a 504, so a stuck upstream (LLM, database lock) never holds a client
forever. A streamed answer that has started is left to finish.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import django
from django.conf import settings
from django.utils.module_loading import import_string

from config.request_threads import ThreadKeepingASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

Scope = dict[str, Any]
Message = dict[str, Any]


class RequestTimeout:
    """ASGI middleware: 504 when the app has not sent the response start within `seconds`."""

    def __init__(self, app: Any, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.seconds <= 0:
            await self.app(scope, receive, send)
            return
        started = asyncio.Event()
        timed_out = False

        async def guarded_send(message: Message) -> None:
            if timed_out:
                return  # the client already has its 504; the late answer is dropped
            if message["type"] == "http.response.start":
                started.set()
            await send(message)

        app = asyncio.ensure_future(self.app(scope, receive, guarded_send))
        first = asyncio.ensure_future(started.wait())
        await asyncio.wait({app, first}, timeout=self.seconds, return_when=asyncio.FIRST_COMPLETED)
        first.cancel()
        if not app.done() and not started.is_set():
            timed_out = True
            # Django finishes the view in its thread (threads cannot be interrupted); its answer is dropped.
            app.cancel()
            await self._timeout_response(scope, send)
            return
        await app

    async def _timeout_response(self, scope: Scope, send: Any) -> None:
        body = json.dumps(
            {"detail": f"The request took longer than {self.seconds:g} s.", "code": "timeout", "errors": {}}
        ).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 504, "headers": headers})
        await send({"type": "http.response.body", "body": body})


class Site:
    """ASGI routing by path prefix: `/mcp` and below to the MCP app, the rest to Django. Lifespan
    events go to the MCP app (Django has no lifespan handler)."""

    def __init__(self, django_app: Any, mcp_app: Any, prefix: str = "/mcp") -> None:
        self.django_app = django_app
        self.mcp_app = mcp_app
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] == "lifespan" or path == self.prefix or path.startswith(self.prefix + "/"):
            await self.mcp_app(scope, receive, send)
            return
        await self.django_app(scope, receive, send)


django.setup(set_prefix=False)  # as Django's get_asgi_application() does
django_application = ThreadKeepingASGIHandler()
# Named by a string, as ROOT_URLCONF names the routes: config stays below the apps it serves.
mcp_application = import_string("api.mcp.http.asgi_app")()
application = RequestTimeout(
    Site(django_application, mcp_application), float(settings.REQUEST_TIMEOUT_SECONDS)
)
