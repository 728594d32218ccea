"""JSON errors for every API failure: `{"detail": "...", "code": "...", "errors": {field: [...]}}`.

The engine's `MemoryServiceError` carries its own status (400, 403, 404, 409, 502 …); DRF's errors
keep theirs (401 with a challenge, 429 with `Retry-After`); a database outage is a 503 with
`Retry-After` (config.outage); anything unexpected is a logged 500 that says nothing about the internals.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from config.outage import MESSAGE as UNAVAILABLE_MESSAGE
from config.outage import is_database_unavailable, note_outage, retry_after
from memory_core.errors import MemoryServiceError

logger = logging.getLogger(__name__)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request is too large."
    default_code = "too_large"


def _flatten(errors: Any) -> Any:
    """DRF's error tree as plain JSON; a list serializer's per-item errors become {index: errors}
    with the valid items left out, so a 1,000-item batch reports only what is wrong."""
    if isinstance(errors, dict):
        return {str(key): _flatten(value) for key, value in errors.items()}
    if isinstance(errors, list):
        if errors and all(isinstance(item, dict) for item in errors):
            return {str(i): _flatten(item) for i, item in enumerate(errors) if item}
        return [_flatten(item) for item in errors]
    return str(errors)


def _body(detail: str, code: str, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"detail": detail, "code": code, "errors": errors or {}}


def _as_api_exception(exc: Exception) -> Exception:
    """Django's own errors as the DRF exceptions that describe them."""
    if isinstance(exc, RequestDataTooBig):
        return PayloadTooLarge()
    if isinstance(exc, Http404):
        return exceptions.NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    return exc


def _describe(exc: exceptions.APIException) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        if not isinstance(errors, dict):
            errors = {"non_field_errors": errors}
        return _body("Invalid input.", "invalid", errors)
    detail = exc.detail if isinstance(exc.detail, str) else _flatten(exc.detail)
    code = exc.get_codes() if isinstance(exc.detail, str) else exc.default_code
    if isinstance(exc, exceptions.ParseError):
        detail = f"The request body is not valid JSON ({detail})."
    if isinstance(exc, exceptions.UnsupportedMediaType):
        detail = f"{detail} Send JSON with 'Content-Type: application/json'."
    return _body(str(detail), str(code))


def error_body(exc: Exception) -> tuple[int, dict[str, Any]] | None:
    """(status, JSON body) the API answers a refusal with: the engine's errors and DRF's (bad input,
    credentials, scopes). None for anything else (a bug or an outage), which has no caller-facing
    message. The MCP tools answer refusals with the same body."""
    if isinstance(exc, MemoryServiceError):
        return exc.status_code, _body(exc.message, exc.code, exc.field_errors)
    exc = _as_api_exception(exc)
    if isinstance(exc, exceptions.APIException):
        return exc.status_code, _describe(exc)
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, MemoryServiceError):
        return Response(_body(exc.message, exc.code, exc.field_errors), status=exc.status_code)
    exc = _as_api_exception(exc)
    if is_database_unavailable(exc):
        # An outage, not a bug: 503 with Retry-After, and the broken connection dropped.
        note_outage(context["request"], exc)
        return Response(
            _body(UNAVAILABLE_MESSAGE, "service_unavailable"),
            status=503,
            headers={"Retry-After": retry_after()},
        )
    response = drf_exception_handler(exc, context)  # sets WWW-Authenticate and Retry-After
    if response is None:
        logger.exception("Unhandled error in %s", context.get("view").__class__.__name__, exc_info=exc)
        return Response(_body("Internal server error.", "server_error"), status=500)
    if isinstance(exc, exceptions.APIException):
        response.data = _describe(exc)
    return response
