"""Example payloads of the webhook operations, as the OpenAPI docs show them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

_ENDPOINT = {
    "id": "0b7f2c3e-5a1d-4f6e-8c9b-2d3e4f5a6b7c",
    "url": "https://hooks.example.com/memory",
    "description": "CRM sync",
    "events": ["memory.added", "memory.corrected", "memory.erased"],
    "enabled": True,
    "consecutive_failures": 0,
    "disabled_at": None,
    "disabled_reason": "",
    "created_at": "2026-07-03T12:00:00Z",
    "updated_at": "2026-07-03T12:00:00Z",
}
_SECRET = "whsec_3q2-7wEvz0Y9kQ1b5d8eXhJmA4sT6uVpLrN0oCiWgHs"  # noqa: S105 (made up)
_DELIVERY: dict[str, Any] = {
    "id": "9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b",
    "event": {
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "type": "memory.added",
        "created_at": "2026-07-03T12:01:00Z",
    },
    "status": "succeeded",
    "attempts": 3,
    "next_attempt_at": None,
    "last_status_code": 200,
    "last_error": "",
    "delivered_at": "2026-07-03T12:04:02Z",
    "replay_of": None,
    "created_at": "2026-07-03T12:01:00Z",
    "payload": {
        "id": "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
        "type": "memory.added",
        "created_at": "2026-07-03T12:01:00Z",
        "data": {
            "user_id": "customer-42",
            "memory": {
                "id": "6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11",
                "content": "The user is severely allergic to peanuts.",
            },
            "reason": "",
        },
    },
    "attempt_log": [
        {
            "number": 1,
            "status_code": 503,
            "error": "HTTP 503 Service Unavailable",
            "duration_ms": 41,
            "succeeded": False,
            "at": "2026-07-03T12:01:00Z",
        },
        {
            "number": 2,
            "status_code": None,
            "error": "No answer within 10 s.",
            "duration_ms": 10004,
            "succeeded": False,
            "at": "2026-07-03T12:02:01Z",
        },
        {
            "number": 3,
            "status_code": 200,
            "error": "",
            "duration_ms": 38,
            "succeeded": True,
            "at": "2026-07-03T12:04:02Z",
        },
    ],
}
_PAGE = {"count": 1, "next": None, "previous": None}

WEBHOOKS_LIST = [OpenApiExample("Endpoints", value={**_PAGE, "results": [_ENDPOINT]}, response_only=True)]
WEBHOOKS_CREATE = [
    OpenApiExample(
        "Register",
        value={"url": _ENDPOINT["url"], "events": _ENDPOINT["events"], "description": "CRM sync"},
        request_only=True,
    ),
    OpenApiExample(
        "Registered (secret shown once)", value={**_ENDPOINT, "secret": _SECRET}, response_only=True
    ),
]
WEBHOOKS_RETRIEVE = [OpenApiExample("Endpoint", value=_ENDPOINT, response_only=True)]
WEBHOOKS_UPDATE = [
    OpenApiExample("Re-enable", value={"enabled": True}, request_only=True),
    OpenApiExample("Enabled", value=_ENDPOINT, response_only=True),
]
WEBHOOKS_ROTATE = [OpenApiExample("New secret", value={**_ENDPOINT, "secret": _SECRET}, response_only=True)]
WEBHOOKS_DELIVERIES = [
    OpenApiExample("Deliveries", value={**_PAGE, "results": [_DELIVERY]}, response_only=True)
]
WEBHOOKS_REPLAY = [
    OpenApiExample(
        "Replayed",
        value={
            **_DELIVERY,
            "id": "5c4b3a29-1807-4f6e-8d5c-4b3a29180706",
            "attempts": 1,
            "replay_of": _DELIVERY["id"],
            "attempt_log": _DELIVERY["attempt_log"][2:],
        },
        response_only=True,
        status_codes=["202"],
    )
]
WEBHOOKS_PING = [
    OpenApiExample(
        "Ping sent",
        value={
            **_DELIVERY,
            "event": {**_DELIVERY["event"], "type": "webhook.ping"},
            "attempts": 1,
            "payload": {"type": "webhook.ping", "data": {"message": "Ping from the memory service."}},
            "attempt_log": _DELIVERY["attempt_log"][2:],
        },
        response_only=True,
        status_codes=["202"],
    )
]
