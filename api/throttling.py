"""Rate limits per tenant key and per person, from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
(`api_key`, `api_user`). A 429 carries `Retry-After`. Counters live in Django's cache: with
several workers, configure a shared cache (Redis) or each worker counts on its own."""

from __future__ import annotations

from typing import Any, cast

from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from api.models import ApiKey


class _SettingsRateThrottle(SimpleRateThrottle):
    def get_rate(self) -> str | None:
        # DRF binds THROTTLE_RATES at import; read it per request so settings changes apply.
        # The stubs type the rates as numbers; DRF's are "N/period" strings.
        rates = cast("dict[str, str | None]", api_settings.DEFAULT_THROTTLE_RATES)
        return rates.get(self.scope) if self.scope is not None else None


class ApiKeyThrottle(_SettingsRateThrottle):
    scope = "api_key"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if isinstance(request.auth, ApiKey):
            return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
        return None


class ApiUserThrottle(_SettingsRateThrottle):
    scope = "api_user"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if isinstance(request.auth, ApiKey) or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
