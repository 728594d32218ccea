"""What the OpenAPI schema says beyond each view: the tenant-key and personal-token security schemes
(drf-spectacular extensions, registered when the app is ready) and the error responses every
operation lists."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


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


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    code = serializers.CharField()
    # Stub gap (typeddjango/djangorestframework-stubs#78): DRF pops declared fields off the class,
    # but the stubs still type the name as Serializer.errors.
    errors = serializers.DictField(help_text="Field errors: {field: [message, …]}; batch items by index.")  # type: ignore[assignment]


_ERROR_TEXT = {
    400: "Invalid input (field errors in `errors`), or a body that is not JSON.",
    401: "No credentials, or an invalid or revoked key.",
    403: "The key lacks the scope, or the endpoint is not for this kind of caller.",
    404: "Not found — or not yours: both are answered alike.",
    409: "Conflicts with the current state (e.g. memory paused).",
    413: "Body over 2 MB, or a batch over its limit.",
    415: "Not JSON: send Content-Type: application/json.",
    429: "Rate limit exceeded; see the Retry-After header.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error responses of an operation: `codes`, and those every operation can give."""
    wanted = sorted({401, 403, 429, *codes})
    return {code: OpenApiResponse(ErrorSerializer, description=_ERROR_TEXT[code]) for code in wanted}
