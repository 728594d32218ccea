"""The MCP server over streamable HTTP, as the ASGI app `config.asgi` mounts at `/mcp/`.

Stateless, with JSON answers: each POST carries its own credentials and is answered in full, so any
web worker can serve any call (no session pinned to one process) and the request timeout of
`config.asgi` applies as to the REST API. Host and Origin are checked against ALLOWED_HOSTS and
CSRF_TRUSTED_ORIGINS (DNS-rebinding protection), as Django checks its own requests.
"""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent

from api.mcp.callers import token_check
from api.mcp.calls import unavailable_body
from api.mcp.operations import VIA_HTTP
from api.mcp.server import build_server
from config.outage import is_database_unavailable, retry_after

logger = logging.getLogger(__name__)

PATH = "/mcp/"
# A JSON-RPC error code of the implementation-defined server range: "service unavailable".
UNAVAILABLE = -32000
_MAX_BODY = 2 * 1024 * 1024  # what is read of a request answered without the SDK


@dataclass(frozen=True)
class _Checked:
    token: str
    access: AccessToken | None


# The credential `OutageGuard` checked for this request, handed to the SDK's verifier (the same
# task runs both), so each request costs one credential lookup.
_checked: ContextVar[_Checked | None] = ContextVar("mcp_checked_credential", default=None)


class CredentialVerifier:
    """The SDK's token verifier over our tenant keys (`mk_…`) and personal tokens (`pt_…`)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        checked = _checked.get()
        if checked is not None and checked.token == token:
            return checked.access
        return await sync_to_async(token_check, thread_sensitive=False)(token)


def _bearer(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            text = value.decode("latin-1")
            return text[7:] if text[:7].lower() == "bearer " else None
    return None


class OutageGuard:
    """ASGI middleware before the SDK: checks the request's credential, and while the database
    cannot be reached (so the credential cannot be checked) answers as the REST API's 503 does,
    in MCP's terms, instead of the SDK's 500: a tool call gets an error result whose body is the
    API's 503 body with `retry_after`; any other request an HTTP 503 with `Retry-After` and a
    JSON-RPC error carrying that body. Nothing runs without a checked credential."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        token = _bearer(scope) if scope["type"] == "http" else None
        if token is None:
            await self.app(scope, receive, send)
            return
        try:
            access = await sync_to_async(token_check, thread_sensitive=False)(token)
        except Exception as exc:
            if not is_database_unavailable(exc):
                raise
            logger.warning("database unavailable for MCP %s: %s", scope.get("method"), exc)
            await _unavailable(receive, send)
            return
        reset = _checked.set(_Checked(token, access))
        try:
            await self.app(scope, receive, send)
        finally:
            _checked.reset(reset)


async def _body(receive: Any) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if not message.get("more_body") or size > _MAX_BODY:
            break
    return b"".join(chunks)


async def _unavailable(receive: Any, send: Any) -> None:
    try:
        message = json.loads(await _body(receive))
    except ValueError:
        message = None
    request = message if isinstance(message, dict) else {}
    body = unavailable_body()
    if request.get("method") == "tools/call" and "id" in request:
        # What the tool itself answers when the database fails under it (api.mcp.calls).
        result = CallToolResult(
            content=[TextContent(type="text", text=json.dumps(body))], structured_content=body, is_error=True
        ).model_dump(by_alias=True, mode="json", exclude_none=True)
        answer, status = {"jsonrpc": "2.0", "id": request["id"], "result": result}, 200
    else:
        error = {"code": UNAVAILABLE, "message": body["detail"], "data": body}
        answer, status = {"jsonrpc": "2.0", "id": request.get("id"), "error": error}, 503
    content = json.dumps(answer).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(content)).encode()),
        (b"retry-after", retry_after().encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


def transport_security() -> TransportSecuritySettings:
    """ALLOWED_HOSTS in the SDK's terms: each host, with or without a port. `*` turns the check off,
    as it does Django's; `.example.com` allows example.com only (the SDK has no subdomain wildcard:
    list the subdomains that serve MCP)."""
    hosts: list[str] = []
    for host in settings.ALLOWED_HOSTS:
        if host == "*":
            return TransportSecuritySettings(enable_dns_rebinding_protection=False)
        name = host.lstrip(".")
        hosts += [name, f"{name}:*"]
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    origins += list(settings.CSRF_TRUSTED_ORIGINS)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def asgi_app() -> Any:
    """The Starlette app serving `PATH`; its lifespan runs the SDK's session manager."""
    server = build_server(via=VIA_HTTP, token_verifier=CredentialVerifier())
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
    )
    return OutageGuard(app)
