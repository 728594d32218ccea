"""Who is calling: a tenant API key (`Authorization: Token mk_…`), a personal DRF token, or a session.

Tenant keys and DRF user tokens share mem0's `Token` header; the `mk_` prefix tells them apart.
"""

from __future__ import annotations

import hmac
from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from api.models import ApiKey, Tenant
from api.services import KEY_PREFIX, api_key_touch, hash_key

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


class ApiKeyAuthentication(authentication.BaseAuthentication):
    """Tenant keys: `mk_<8 hex>_<secret>`, looked up by prefix, compared by SHA-256 in constant time."""

    def authenticate(self, request: Request) -> tuple[TenantClient, ApiKey] | None:
        raw = _bearer(request)
        if raw is None or not raw.startswith(KEY_PREFIX):
            return None
        key = ApiKey.objects.select_related("tenant").filter(prefix=raw[:11]).first()
        if key is None or not hmac.compare_digest(key.secret_hash, hash_key(raw)):
            raise exceptions.AuthenticationFailed("Invalid API key.")
        if key.revoked_at is not None:
            raise exceptions.AuthenticationFailed("This API key has been revoked.")
        api_key_touch(key=key)
        return TenantClient(key), key

    def authenticate_header(self, request: Request) -> str:
        return 'Token realm="api"'


class UserTokenAuthentication(authentication.TokenAuthentication):
    """DRF's personal tokens; leaves `mk_` keys (and `Bearer`) to `ApiKeyAuthentication`."""

    def authenticate(self, request: Request) -> Any:
        raw = _bearer(request)
        if raw is not None and raw.startswith(KEY_PREFIX):
            return None
        return super().authenticate(request)


def tenant_of(request: Request) -> Tenant | None:
    return request.auth.tenant if isinstance(request.auth, ApiKey) else None
