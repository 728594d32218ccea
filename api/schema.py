"""OpenAPI description of the tenant-key and personal-token authentications (drf-spectacular extensions)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.ApiKeyAuthentication"
    name = "tenantKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A tenant API key: `Token mk_…` (the header mem0's client sends). "
            "Personal tokens use the same header with `Token pt_…` instead.",
        }


class UserTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.UserTokenAuthentication"
    name = "personalToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "A personal token: `Token pt_…` (issued by `manage.py issue_user_token`, "
            "shown once); it reaches only its owner's memories.",
        }
