"""Example payloads of the mem0-compatible operations, as the OpenAPI docs show them.

One list per operation, named after its operation id (`MEM0_ADD` for `mem0_add`).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

_M0 = {
    "id": "6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11",
    "memory": "The user is vegetarian.",
    "user_id": "alice",
    "agent_id": None,
    "app_id": None,
    "run_id": None,
    "hash": "3b0f4b1c9d1a7e3c5a2e1f0d9c8b7a6e",
    "metadata": {"source": "chat"},
    "categories": ["preference"],
    "immutable": False,
    "expiration_date": None,
    "created_at": "2026-07-03T12:00:00+00:00",
    "updated_at": "2026-07-03T12:00:00+00:00",
    "type": "semantic",
    "status": "active",
}


MEM0_PING = [
    OpenApiExample(
        "Pong",
        value={"status": "ok", "org_id": "acme", "project_id": "acme", "user_email": "ops@acme.test"},
        response_only=True,
    )
]

MEM0_ADD = [
    OpenApiExample(
        "Messages",
        value={"messages": [{"role": "user", "content": "I'm vegetarian."}], "user_id": "alice"},
        request_only=True,
    ),
    OpenApiExample(
        "Queued",
        value={
            "message": "Memory processing has been queued for background execution",
            "status": "PENDING",
            "event_id": "17",
        },
        response_only=True,
    ),
]

MEM0_EVENT = [
    OpenApiExample(
        "Done",
        value={
            "id": "17",
            "event_type": "ADD",
            "status": "SUCCEEDED",
            "results": [{"id": _M0["id"], "memory": _M0["memory"], "event": "ADD"}],
            "created_at": "2026-07-03T12:00:00+00:00",
            "completed_at": "2026-07-03T12:00:02+00:00",
        },
        response_only=True,
    )
]

MEM0_SEARCH = [
    OpenApiExample(
        "Search",
        value={"query": "What do I eat?", "filters": {"user_id": "alice"}, "top_k": 5},
        request_only=True,
    ),
    OpenApiExample("Results", value={"results": [{**_M0, "score": 0.64}]}, response_only=True),
]

MEM0_GET_ALL = [
    OpenApiExample("Filters", value={"filters": {"user_id": "alice"}}, request_only=True),
    OpenApiExample(
        "Page",
        value={"count": 1, "next": None, "previous": None, "results": [_M0]},
        response_only=True,
    ),
]

MEM0_GET = [OpenApiExample("Memory", value=_M0, response_only=True)]

MEM0_UPDATE = [OpenApiExample("Update", value={"text": "The user is vegan."}, request_only=True)]

MEM0_DELETE = [
    OpenApiExample("Deleted", value={"message": "Memory deleted successfully!"}, response_only=True)
]

MEM0_HISTORY = [
    OpenApiExample(
        "History",
        value=[
            {
                "id": "12",
                "memory_id": _M0["id"],
                "old_memory": None,
                "new_memory": _M0["memory"],
                "event": "ADD",
                "user_id": "alice",
                "metadata": None,
                "created_at": "2026-07-03T12:00:00+00:00",
                "updated_at": "2026-07-03T12:00:00+00:00",
            }
        ],
        response_only=True,
    )
]

MEM0_DELETE_ALL = [
    OpenApiExample("Deleted", value={"message": "Memories deleted successfully!"}, response_only=True)
]

MEM0_USERS = [
    OpenApiExample(
        "Entities",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    "id": "alice",
                    "name": "alice",
                    "type": "user",
                    "total_memories": 3,
                    "owner": "acme",
                    "organization": "acme",
                    "metadata": {},
                    "created_at": "2026-07-03T12:00:00+00:00",
                    "updated_at": "2026-07-03T12:00:00+00:00",
                }
            ],
        },
        response_only=True,
    )
]

MEM0_DELETE_USER = [
    OpenApiExample("Deleted", value={"message": "Entity deleted successfully."}, response_only=True)
]

MEM0_BATCH_UPDATE = [
    OpenApiExample(
        "Correct two memories",
        value={
            "memories": [
                {"memory_id": _M0["id"], "text": "The user is vegan."},
                {
                    "memory_id": "0c4b7e1d-5a2f-4f55-8d0e-2a9b6c3d4e5f",
                    "text": "The user lives in Porto.",
                    "metadata": {"source": "form"},
                },
            ]
        },
        request_only=True,
    ),
    OpenApiExample(
        "Updated",
        value={
            "message": "Successfully updated 1 memories",
            "results": [
                {
                    "memory_id": _M0["id"],
                    "id": "9d2e4f60-3b1a-4c7d-8e9f-0a1b2c3d4e5f",
                    "memory": "The user is vegan.",
                }
            ],
        },
        response_only=True,
    ),
]

MEM0_BATCH_DELETE = [
    OpenApiExample("Erase two", value={"memories": [{"memory_id": _M0["id"]}]}, request_only=True),
    OpenApiExample("Erased", value={"message": "Successfully deleted 1 memories"}, response_only=True),
]

MEM0_EXPORT_CREATE = [
    OpenApiExample(
        "Export a user's travel memories",
        value={
            "schema": "memory-export-v1",
            "filters": {"AND": [{"user_id": "alice"}, {"categories": {"in": ["event"]}}]},
        },
        request_only=True,
    ),
    OpenApiExample(
        "Requested",
        value={"message": "Memory export request received.", "id": "eyJ0Ijo…", "status": "SUCCEEDED"},
        response_only=True,
    ),
]

MEM0_EXPORT_GET = [
    OpenApiExample("By id", value={"memory_export_id": "eyJ0Ijo…"}, request_only=True),
    OpenApiExample(
        "By filters",
        value={"filters": {"AND": [{"user_id": "alice"}, {"created_at": {"gte": "2026-07-01"}}]}},
        request_only=True,
    ),
]

MEM0_FEEDBACK = [
    OpenApiExample(
        "Not relevant",
        value={"memory_id": _M0["id"], "feedback": "NEGATIVE", "feedback_reason": "Not relevant any more."},
        request_only=True,
    )
]

MEM0_PROJECT = [
    OpenApiExample(
        "Categories",
        value={"custom_categories": [{"profile": "Who the user is: name, job, where they live."}]},
        response_only=True,
    )
]
