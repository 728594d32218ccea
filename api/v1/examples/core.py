"""Example payloads of the memories, recall, erasures, conversations, extractions and moderation
operations of `/api/v1/`, as the OpenAPI docs show them.

One list per operation, named after its operation id (`MEMORIES_CREATE` for `memories_create`).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

_MEMORY_EXAMPLE = {
    "id": "6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11",
    "namespace": "user/t.acme.3f9a1c2b7d4e5f6a7b8c",
    "type": "semantic",
    "category": "safety",
    "key": "health.allergy.peanut",
    "content": "The user is severely allergic to peanuts.",
    "status": "active",
    "importance": 0.95,
    "confidence": 1.0,
    "pinned": True,
    "evidence_count": 1,
    "source": {
        "kind": "api_import",
        "conversation": "",
        "message_ids": [],
        "extractor": "",
        "is_inference": False,
    },
    "valid_from": "2026-06-29T10:00:00Z",
    "valid_to": None,
    "recorded_at": "2026-06-29T10:00:00Z",
    "expires_at": None,
    "supersedes": None,
    "superseded_by": None,
    "access_count": 3,
    "last_accessed_at": "2026-07-01T08:12:00Z",
    "metadata": {"source": "onboarding_form"},
    "created_at": "2026-06-29T10:00:00Z",
    "updated_at": "2026-07-01T08:12:00Z",
}
_CREATE_ONE = {
    "user_id": "customer-42",
    "content": "The user is severely allergic to peanuts.",
    "category": "safety",
    "key": "health.allergy.peanut",
    "importance": 0.95,
    "pinned": True,
    "metadata": {"source": "onboarding_form"},
}


_RECEIPT = {
    "id": 7,
    "scope": "all",
    "via": "api",
    "requested_by": None,
    "api_key": "mk_1a2b3c4d",
    "at": "2026-07-03T12:00:00Z",
    "counts": {
        "entries": 12,
        "evidence": 15,
        "history": 31,
        "recalls": 4,
        "flags": 0,
        "jobs": 2,
        "conversations": 3,
        "messages": 40,
    },
    "vacuumed_at": None,
    "rewritten_at": None,
}

_CONVERSATION = {
    "id": "0d3f6a0e-8f1b-4b7e-a2c4-5e6f7a8b9c0d",
    "title": "Snacks",
    "incognito": False,
    "closed_at": None,
    "created_at": "2026-07-03T12:00:00Z",
    "last_activity_at": "2026-07-03T12:01:00Z",
}
_MESSAGE = {
    "id": 41,
    "role": "user",
    "content": "Can you suggest a snack?",
    "status": "complete",
    "offline": False,
    "created_at": "2026-07-03T12:01:00Z",
}
_JOB = {
    "id": 17,
    "status": "queued",
    "trigger": "api",
    "conversation": "ticket-9",
    "result": {},
    "error": "",
    "extractor": "",
    "created_at": "2026-07-03T12:02:00Z",
    "finished_at": None,
}


MEMORIES_LIST = [
    OpenApiExample(
        "A page",
        value={"count": 1, "next": None, "previous": None, "results": [_MEMORY_EXAMPLE]},
        response_only=True,
    )
]

MEMORIES_CREATE = [
    OpenApiExample("One memory", value=_CREATE_ONE, request_only=True),
    OpenApiExample(
        "A batch",
        value={
            "user_id": "customer-42",
            "memories": [
                {"content": "The user lives in Shanghai.", "key": "home_city", "category": "profile"},
                {
                    "content": "On 2026-06-29 refund RF20260629001 was filed for order 88231.",
                    "type": "episodic",
                    "category": "event",
                    "valid_from": "2026-06-29T09:30:00+08:00",
                },
            ],
        },
        request_only=True,
    ),
    OpenApiExample(
        "Added",
        value={
            "action": "added",
            "reason": "",
            "flagged": False,
            "entry": _MEMORY_EXAMPLE,
            "replaced": None,
        },
        response_only=True,
        status_codes=["201"],
    ),
    OpenApiExample(
        "Batch result",
        value={
            "counts": {"added": 1, "superseded": 1},
            "results": [
                {
                    "action": "superseded",
                    "reason": "",
                    "flagged": False,
                    "entry": _MEMORY_EXAMPLE,
                    "replaced": "0b7c8f2e-5a1d-4f3b-8c2e-9d1a7b6c5e4f",
                },
                {
                    "action": "added",
                    "reason": "",
                    "flagged": False,
                    "entry": _MEMORY_EXAMPLE,
                    "replaced": None,
                },
            ],
        },
        response_only=True,
        status_codes=["200"],
    ),
]

MEMORIES_SEARCH = [
    OpenApiExample(
        "Search",
        value={"user_id": "customer-42", "q": "RF20260629001", "limit": 20},
        request_only=True,
    ),
    OpenApiExample(
        "A page",
        value={"count": 1, "next": None, "previous": None, "results": [_MEMORY_EXAMPLE]},
        response_only=True,
    ),
]

MEMORIES_RETRIEVE = [OpenApiExample("A memory", value=_MEMORY_EXAMPLE, response_only=True)]

MEMORIES_CORRECT = [
    OpenApiExample(
        "Correction",
        value={
            "content": "The user is allergic to tree nuts, not peanuts.",
            "reason": "Typo in intake form",
        },
        request_only=True,
    ),
    OpenApiExample("New version", value=_MEMORY_EXAMPLE, response_only=True),
]

MEMORIES_ALWAYS_RECALL = [
    OpenApiExample("Don't always recall it", value={"always": False}, request_only=True),
    OpenApiExample("Always recall it", value={"always": True}, request_only=True),
    OpenApiExample(
        "No longer always recalled",
        value={
            **_MEMORY_EXAMPLE,
            "id": "9b2d4e6f-3a5c-4d7e-8f90-1a2b3c4d5e6f",
            "category": "general",
            "key": "",
            "content": "The user is vegetarian.",
            "importance": 0.8,
            "pinned": False,
            "metadata": {"always_recall": False},
        },
        response_only=True,
    ),
]

MEMORIES_HISTORY = [
    OpenApiExample(
        "History",
        value=[
            {
                "id": 1,
                "memory_id": _MEMORY_EXAMPLE["id"],
                "action": "created",
                "actor_kind": "api",
                "reason": "",
                "data": {"content": _MEMORY_EXAMPLE["content"], "status": "active"},
                "created_at": "2026-06-29T10:00:00Z",
            },
            {
                "id": 7,
                "memory_id": _MEMORY_EXAMPLE["id"],
                "action": "merged",
                "actor_kind": "extraction",
                "reason": "The same statement was observed again.",
                "data": {"evidence_count": 2},
                "created_at": "2026-07-02T16:40:00Z",
            },
        ],
        response_only=True,
    )
]

MEMORIES_ERASE_ALL = [
    OpenApiExample(
        "Request",
        value={"user_id": "customer-42", "confirm": True, "erase_sources": True},
        request_only=True,
    ),
    OpenApiExample(
        "Result",
        value={"erased": 12, "conversations": 3, "receipt": _RECEIPT},
        response_only=True,
    ),
]

MEMORIES_EXPORT = [
    OpenApiExample(
        "Export",
        value={
            "format": "memory-export-v1",
            "exported_at": "2026-07-03T12:00:00Z",
            "user": "t.acme.3f9a1c2b7d4e5f6a7b8c",
            "namespaces": [
                {
                    "path": "user/t.acme.3f9a1c2b7d4e5f6a7b8c",
                    "memory_paused": False,
                    "created_at": "2026-06-29T10:00:00Z",
                }
            ],
            "memories": [{"id": _MEMORY_EXAMPLE["id"], "content": _MEMORY_EXAMPLE["content"], "history": []}],
            "erased_history": [],
            "recall_log": [],
        },
        response_only=True,
    )
]

ERASURES_LIST = [
    OpenApiExample(
        "Receipts",
        value={"count": 1, "next": None, "previous": None, "results": [_RECEIPT]},
        response_only=True,
    )
]

RECALL = [
    OpenApiExample(
        "Request",
        value={
            "user_id": "customer-42",
            "query": "Can you suggest a snack?",
            "limit": 5,
            "budget_tokens": 300,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Result",
        value={
            "items": [
                {
                    "entry": _MEMORY_EXAMPLE,
                    "score": 0.71,
                    "breakdown": {
                        "similarity": 0.62,
                        "context": 0.62,
                        "keyword": 0.0,
                        "time": 0.0,
                        "names": 0.0,
                        "recency": 0.98,
                        "importance": 0.95,
                        "confidence": 1.0,
                    },
                    "reasons": ["pinned", "vector"],
                    "tokens": 23,
                }
            ],
            "prompt_block": "Background knowledge about the user …\n<memories>\n"
            "- [fact, dated 2026-06-29, "
            "source: imported] The user is severely allergic to peanuts.\n</memories>\n…",
            "tokens": 23,
            "turn_ref": "api:2f7c…",
        },
        response_only=True,
    ),
]

CONVERSATIONS_CREATE = [
    OpenApiExample("Request", value={"user_id": "customer-42", "title": "Snacks"}, request_only=True),
    OpenApiExample("Conversation", value=_CONVERSATION, response_only=True),
]

CONVERSATIONS_MESSAGES_LIST = [OpenApiExample("Messages", value=[_MESSAGE], response_only=True)]

CONVERSATIONS_MESSAGES_CREATE = [
    OpenApiExample("Request", value={"content": "Can you suggest a snack?"}, request_only=True),
    OpenApiExample(
        "Turn",
        value={
            "user_message": _MESSAGE,
            "reply": {
                **_MESSAGE,
                "id": 42,
                "role": "assistant",
                "content": "How about apple slices? (No peanuts — I remember your allergy.)",
            },
            "recalled_entry_ids": [_MEMORY_EXAMPLE["id"]],
        },
        response_only=True,
    ),
]

CONVERSATIONS_CLOSE = [
    OpenApiExample("Closed", value={"conversation": _CONVERSATION, "extraction": _JOB}, response_only=True)
]

EXTRACTIONS_CREATE = [
    OpenApiExample(
        "Transcript",
        value={
            "user_id": "customer-42",
            "conversation": "ticket-9",
            "messages": [
                {
                    "id": "m1",
                    "role": "user",
                    "content": "I moved to Shanghai last month.",
                    "created_at": "2026-07-03T12:00:00Z",
                },
                {"id": "m2", "role": "assistant", "content": "Noted!"},
            ],
        },
        request_only=True,
    ),
    OpenApiExample("Queued", value=_JOB, response_only=True, status_codes=["202"]),
]

EXTRACTIONS_RETRIEVE = [
    OpenApiExample(
        "Done",
        value={
            **_JOB,
            "status": "done",
            "extractor": "rule-based",
            "finished_at": "2026-07-03T12:02:05Z",
            "result": {
                "added": 1,
                "merged": 0,
                "superseded": 0,
                "ignored": 0,
                "pending_review": 0,
                "rejected": 0,
                "entries": [_MEMORY_EXAMPLE["id"]],
                "changed": [_MEMORY_EXAMPLE["id"]],
            },
        },
        response_only=True,
    )
]

EXTRACTIONS_RETRY = [
    OpenApiExample(
        "Queued again",
        value={**_JOB, "status": "queued", "error": "", "result": {}},
        response_only=True,
        status_codes=["202"],
    )
]

MODERATION_PENDING = [
    OpenApiExample(
        "Pending",
        value={
            "count": 1,
            "next": None,
            "previous": None,
            "results": [
                {
                    **_MEMORY_EXAMPLE,
                    "type": "procedural",
                    "category": "sop",
                    "status": "pending_review",
                    "content": "Refunds over 500 EUR need a supervisor's approval.",
                }
            ],
        },
        response_only=True,
    )
]

MODERATION_APPROVE = [
    OpenApiExample(
        "Approve into an agent",
        value={"agent_id": "support", "reason": "Matches policy 4.2"},
        request_only=True,
    ),
    OpenApiExample(
        "Active SOP",
        value={**_MEMORY_EXAMPLE, "type": "procedural", "category": "sop"},
        response_only=True,
    ),
]

MODERATION_REJECT = [
    OpenApiExample("Reject", value={"reason": "Would let tickets skip approval."}, request_only=True)
]
