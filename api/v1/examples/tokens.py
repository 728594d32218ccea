"""Example payloads of the personal tokens operations, as the OpenAPI docs show them."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

_TOKEN = {
    "id": 12,
    "name": "Claude Desktop on my laptop",
    "prefix": "pt_1a2b3c4d",
    "scopes": ["read", "write"],
    "created_at": "2026-07-03T12:00:00Z",
    "expires_at": "2026-10-01T12:00:00Z",
    "last_used_at": "2026-07-04T08:30:00Z",
    "revoked_at": None,
    "active": True,
}
_SECRET = "pt_1a2b3c4d_4sT6uVpLrN0oCiWgHs3q2-7wEvz0Y9kQ1b5d8eXhJmA"  # noqa: S105 (made up)

TOKENS_LIST = [OpenApiExample("Your tokens", value={"results": [_TOKEN]}, response_only=True)]
TOKENS_CREATE = [
    OpenApiExample(
        "A read and write token for three months",
        value={"name": _TOKEN["name"], "scopes": ["read", "write"], "expires_at": _TOKEN["expires_at"]},
        request_only=True,
    ),
    OpenApiExample(
        "Made: the secret, this once",
        value={**_TOKEN, "last_used_at": None, "token": _SECRET},
        response_only=True,
        status_codes=["201"],
    ),
]
