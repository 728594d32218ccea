"""The MCP server over streamable HTTP, as the ASGI app `config.asgi` mounts at `/mcp/`.

Stateless, with JSON answers: each POST carries its own credentials and is answered in full, so any
web worker can serve any call (no session pinned to one process) and the request timeout of
`config.asgi` applies as to the REST API. Host and Origin are checked against ALLOWED_HOSTS and
CSRF_TRUSTED_ORIGINS (DNS-rebinding protection), as Django checks its own requests.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecuritySettings

from api.mcp.callers import token_check
from api.mcp.operations import VIA_HTTP
from api.mcp.server import build_server

PATH = "/mcp/"


class CredentialVerifier:
    """The SDK's token verifier over our tenant keys (`mk_…`) and personal tokens (`pt_…`)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        return await sync_to_async(token_check, thread_sensitive=False)(token)


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
    return server.streamable_http_app(
        streamable_http_path=PATH,
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(),
    )
