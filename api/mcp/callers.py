"""Who calls an MCP tool: the tenant key or personal token the SDK's token verifier accepted (HTTP),
or the user `manage.py mcp --user` acts for (stdio)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.db import close_old_connections
from mcp.server.auth.provider import AccessToken
from rest_framework import exceptions

from api.auth import Caller, TenantClient, credential_authenticate
from api.models import ApiKey, ApiScope, UserToken
from memory_core.moderation import is_operator

# Set once by the stdio command: the person every call of that process acts for.
stdio_caller: ContextVar[Caller | None] = ContextVar("stdio_caller", default=None)

_API_KEY, _USER_TOKEN = "api_key", "user_token"


def token_check(raw: str) -> AccessToken | None:
    """The SDK's view of a credential: its scopes (a tenant key's own; for a person what the REST API
    lets them do) and which row it is, so each tool call finds its caller. None when not valid."""
    close_old_connections()
    try:
        return _access_token(raw)
    finally:
        close_old_connections()


def _access_token(raw: str) -> AccessToken | None:
    try:
        user, credential = credential_authenticate(raw)
    except exceptions.AuthenticationFailed:
        return None
    if isinstance(credential, ApiKey):
        scopes, kind = list(credential.scopes), _API_KEY
    else:
        scopes = list(credential.scopes)
        scopes += [ApiScope.MODERATE] if is_operator(user) else []
        kind = _USER_TOKEN
    return AccessToken(
        token=raw,
        client_id=credential.prefix,
        scopes=[str(scope) for scope in scopes],
        subject=credential.prefix,
        claims={"credential": kind, "id": credential.pk},
    )


def caller_of(token: AccessToken | None) -> Caller:
    """The caller behind a verified token (read again: it may have been revoked since), else the
    stdio user. Without either, the call is not authenticated."""
    if token is None:
        caller = stdio_caller.get()
        if caller is None:
            raise exceptions.NotAuthenticated()
        return caller
    claims: dict[str, Any] = token.claims or {}
    pk = int(claims.get("id") or 0)
    if claims.get("credential") == _API_KEY:
        key = ApiKey.objects.select_related("tenant").filter(pk=pk, revoked_at=None).first()
        if key is not None:
            return Caller(user=TenantClient(key), auth=key)
    else:
        found = UserToken.objects.select_related("user").filter(pk=pk, revoked_at=None).first()
        if found is not None and found.is_expired:
            raise exceptions.AuthenticationFailed("This token has expired.")
        if found is not None and found.user.is_active:
            return Caller(user=found.user, auth=found)
    raise exceptions.AuthenticationFailed("This credential has been revoked.")
