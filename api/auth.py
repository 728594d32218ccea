"""Who is calling: a tenant API key (`Authorization: Token mk_…`), a personal token (`pt_…`), or a session.

Tenant keys and personal tokens share mem0's `Token` header; the prefix tells them apart. Both are
stored as SHA-256 digests only.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from api.models import ApiKey, Tenant, UserToken
from api.rows import Columns, fetch_one
from api.services import KEY_PREFIX, USER_TOKEN_PREFIX, api_key_touch, hash_key, user_token_touch

_KEYWORDS = ("token", "bearer")


class TenantClient(AnonymousUser):
    """`request.user` of a tenant-key call. Deliberately not a Django user: any user-scoped query
    handed this object by mistake matches nothing. Tenant calls act through shadow users."""

    def __init__(self, key: ApiKey) -> None:
        super().__init__()
        self.key = key
        self.tenant: Tenant = key.tenant

    def __str__(self) -> str:
        return f"tenant {self.tenant.slug} ({self.key.prefix})"


def _bearer(request: Request) -> str | None:
    parts = authentication.get_authorization_header(request).split()
    if len(parts) != 2 or parts[0].lower().decode(errors="replace") not in _KEYWORDS:
        return None
    try:
        return parts[1].decode()
    except UnicodeDecodeError:
        return None


_KEY, _TENANT = Columns(ApiKey, "k"), Columns(Tenant, "t")
# ApiKey.objects.select_related("tenant").filter(prefix=...), as text (api.rows).
_KEY_BY_PREFIX = (
    f"SELECT {_KEY.sql}, {_TENANT.sql} FROM {ApiKey._meta.db_table} k "  # noqa: S608  # names from the models
    f"JOIN {Tenant._meta.db_table} t ON t.id = k.tenant_id WHERE k.prefix = %s"
)


def _key_by_prefix(prefix: str) -> ApiKey | None:
    row = fetch_one(_KEY_BY_PREFIX, [prefix])
    if row is None:
        return None
    key: ApiKey = _KEY.instance(row)
    ApiKey.tenant.field.set_cached_value(key, _TENANT.instance(row, len(_KEY)))
    return key


def api_key_authenticate(raw: str) -> tuple[TenantClient, ApiKey]:
    """Tenant keys: `mk_<8 hex>_<secret>`, looked up by prefix, compared by SHA-256 in constant time."""
    key = _key_by_prefix(raw[:11])
    if key is None or not hmac.compare_digest(key.secret_hash, hash_key(raw)):
        raise exceptions.AuthenticationFailed("Invalid API key.")
    if key.revoked_at is not None:
        raise exceptions.AuthenticationFailed("This API key has been revoked.")
    api_key_touch(key=key)
    return TenantClient(key), key


def user_token_authenticate(raw: str) -> tuple[Any, UserToken]:
    """Personal tokens: `pt_<8 hex>_<secret>` looked up by prefix and compared by SHA-256 in constant
    time; a token from before hashing (40 hex characters) is found by its SHA-256."""
    digest = hash_key(raw)
    tokens = UserToken.objects.select_related("user")
    if raw.startswith(USER_TOKEN_PREFIX):
        token = tokens.filter(prefix=raw[: len(USER_TOKEN_PREFIX) + 8]).first()
    else:
        token = tokens.filter(secret_hash=digest).first()
    if token is None or not hmac.compare_digest(token.secret_hash, digest):
        raise exceptions.AuthenticationFailed("Invalid token.")
    if token.revoked_at is not None:
        raise exceptions.AuthenticationFailed("This token has been revoked.")
    if token.is_expired:
        raise exceptions.AuthenticationFailed("This token has expired.")
    if not token.user.is_active:
        raise exceptions.AuthenticationFailed("User inactive or deleted.")
    user_token_touch(token=token)
    return token.user, token


def credential_authenticate(raw: str) -> tuple[Any, ApiKey | UserToken]:
    """(user, credential) of a raw tenant key or personal token, for callers outside DRF (the MCP
    server); AuthenticationFailed with the API's own message when it is not valid."""
    if raw.startswith(KEY_PREFIX):
        return api_key_authenticate(raw)
    return user_token_authenticate(raw)


@dataclass(frozen=True)
class Caller:
    """Who calls, outside a DRF request: the `user` and `auth` a request would carry (a
    `TenantClient` and its `ApiKey`, a person and their `UserToken`, or a person and None when a
    local command acts for them). The API's selectors read only these two attributes."""

    user: Any
    auth: ApiKey | UserToken | None


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """Tenant keys (`api_key_authenticate`)."""

    def authenticate(self, request: Request) -> tuple[TenantClient, ApiKey] | None:
        raw = _bearer(request)
        if raw is None or not raw.startswith(KEY_PREFIX):
            return None
        return api_key_authenticate(raw)

    def authenticate_header(self, request: Request) -> str:
        return 'Token realm="api"'


class UserTokenAuthentication(authentication.BaseAuthentication):
    """Personal tokens (`user_token_authenticate`); `mk_` keys are left to `ApiKeyAuthentication`."""

    def authenticate(self, request: Request) -> tuple[Any, UserToken] | None:
        raw = _bearer(request)
        if raw is None or raw.startswith(KEY_PREFIX):
            return None
        return user_token_authenticate(raw)

    def authenticate_header(self, request: Request) -> str:
        return 'Token realm="api"'


def tenant_of(request: Request | Caller) -> Tenant | None:
    return request.auth.tenant if isinstance(request.auth, ApiKey) else None
