"""How one MCP tool call runs: in a worker thread, over fresh database connections, as Django runs a
request: the caller authenticated and its scope checked, rate-limited as a REST request of the same
credential, and a refusal answered with the REST API's error body."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from typing import Any

from asgiref.sync import sync_to_async
from django.db import close_old_connections
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent
from rest_framework import exceptions

from api.errors import error_body
from api.mcp.callers import caller_of
from api.permissions import scope_allowed
from api.throttling import refusal
from config.outage import MESSAGE as UNAVAILABLE_MESSAGE
from config.outage import is_database_unavailable, retry_after

logger = logging.getLogger(__name__)


def unavailable_body() -> dict[str, Any]:
    """A tool's answer while the database cannot be reached: the REST API's 503 body, its status,
    and `retry_after` (the seconds REST's `Retry-After` says)."""
    return {
        "detail": UNAVAILABLE_MESSAGE,
        "code": "service_unavailable",
        "errors": {},
        "status": 503,
        "retry_after": int(retry_after()),
    }


def _access_token(ctx: Context | None) -> AccessToken | None:
    """The token of the HTTP request this call came in (None on stdio). The request travels with
    the message; the SDK's context variable is the fallback."""
    request = ctx.request_context.request if ctx is not None else None
    user = getattr(request, "scope", {}).get("user") if request is not None else None
    if isinstance(user, AuthenticatedUser):
        return user.access_token
    return get_access_token()


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _call(token: AccessToken | None, scope: str, operation: Callable[..., dict[str, Any]], **kw: Any) -> Any:
    """Run one operation as Django runs a request: fresh database connections around it, the caller
    authenticated and its scope checked first; a refusal becomes the API's error body."""
    close_old_connections()
    try:
        caller = caller_of(token)
        scope_allowed(user=caller.user, auth=caller.auth, scope=scope)
        # Over HTTP a tool call counts as a REST request of the same credential; the stdio server
        # is a local process acting for one person, as `manage.py` commands do, and is not limited.
        if token is not None and (wait := refusal(user=caller.user, auth=caller.auth)) is not None:
            raise exceptions.Throttled(wait)
        return json.loads(as_json(operation(caller, **kw)))  # dates and ids as the API writes them
    except Exception as exc:
        answer = error_body(exc)
        if answer is not None:
            body = answer[1] | {"status": answer[0]}
            wait = getattr(exc, "wait", None)  # DRF's Throttled sets it; the stubs do not say so
            if isinstance(exc, exceptions.Throttled) and wait is not None:
                # What REST says in its Retry-After header, which a tool result has no place for.
                body["retry_after"] = math.ceil(wait)
            return body
        if is_database_unavailable(exc):
            logger.warning("database unavailable for the MCP tool %s: %s", operation.__name__, exc)
            return unavailable_body()
        raise  # a bug: the SDK logs it and tells the client only that the tool failed
    finally:
        close_old_connections()


async def run(ctx: Context | None, scope: str, operation: Callable[..., dict[str, Any]], **kw: Any) -> Any:
    # Not thread_sensitive: outside Django's request handler that would put every call of the
    # process on one thread.
    return await sync_to_async(_call, thread_sensitive=False)(_access_token(ctx), scope, operation, **kw)


async def run_tool(
    ctx: Context, scope: str, operation: Callable[..., dict[str, Any]], **kw: Any
) -> CallToolResult:
    result = await run(ctx, scope, operation, **kw)
    failed = "status" in result and "detail" in result
    return CallToolResult(
        content=[TextContent(type="text", text=as_json(result))], structured_content=result, is_error=failed
    )
