"""Bad input on every write: a clear 4xx with a JSON `detail`, and the database unchanged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from api.models import TenantNamespace, TenantUser
from chat.models import Conversation, Message
from memory_core.models import (
    ExtractionJob,
    FlaggedWrite,
    ImportJob,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    Namespace,
)
from tests.api.conftest import client_with
from tests.api.world import World

TABLES = [
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    FlaggedWrite,
    ExtractionJob,
    ImportJob,
    Namespace,
    TenantUser,
    TenantNamespace,
    Conversation,
    Message,
]
OK_ITEM = {"content": "The user likes green tea."}
NEW = {"user_id": "brand-new-user"}  # a first write for an unknown user must not leave the user behind
U1 = {"user_id": "u1"}
RAW = object()  # marker: the body is sent as it is


def _memories(n: int) -> list[dict[str, str]]:
    return [{"content": f"Statement number {i}."} for i in range(n)]


def _deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"categories": "event"}
    for _ in range(levels):
        node = {"NOT": node}
    return node


# (id, method, path (with {memory}, {conversation}, {pending}), body, content type, expected status)
CASES: list[tuple[str, str, str, Any, str, int]] = [
    # --- POST /api/v1/memories/
    ("create-empty", "post", "/api/v1/memories/", {}, "json", 400),
    ("create-no-content", "post", "/api/v1/memories/", NEW, "json", 400),
    ("create-no-user", "post", "/api/v1/memories/", OK_ITEM, "json", 400),
    ("create-both-ids", "post", "/api/v1/memories/", {**OK_ITEM, **NEW, "agent_id": "bot"}, "json", 400),
    ("create-bad-user-id", "post", "/api/v1/memories/", {**OK_ITEM, "user_id": "has space"}, "json", 400),
    ("create-content-int", "post", "/api/v1/memories/", {**NEW, "content": 123}, "json", 400),
    ("create-content-list", "post", "/api/v1/memories/", {**NEW, "content": ["a"]}, "json", 400),
    ("create-content-blank", "post", "/api/v1/memories/", {**NEW, "content": "   "}, "json", 400),
    ("create-content-nul", "post", "/api/v1/memories/", {**NEW, "content": "a\u0000b"}, "json", 400),
    ("create-content-2001", "post", "/api/v1/memories/", {**NEW, "content": "x" * 2001}, "json", 400),
    ("create-type-unknown", "post", "/api/v1/memories/", {**NEW, **OK_ITEM, "type": "dream"}, "json", 400),
    (
        "create-importance-str",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "importance": "high"},
        "json",
        400,
    ),
    (
        "create-importance-big",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "importance": 1.5},
        "json",
        400,
    ),
    ("create-pinned-str", "post", "/api/v1/memories/", {**NEW, **OK_ITEM, "pinned": "yes"}, "json", 400),
    (
        "create-category",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "category": "Not A Slug!"},
        "json",
        400,
    ),
    (
        "create-date-words",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "valid_from": "yesterday"},
        "json",
        400,
    ),
    (
        "create-date-feb30",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "valid_from": "2026-02-30T00:00:00Z"},
        "json",
        400,
    ),
    (
        "create-window-reversed",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "valid_from": "2026-06-02T00:00:00Z", "valid_to": "2026-06-01T00:00:00Z"},
        "json",
        400,
    ),
    (
        "create-valid-to-past",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "valid_to": "2001-01-01T00:00:00Z"},
        "json",
        400,
    ),
    ("create-metadata-str", "post", "/api/v1/memories/", {**NEW, **OK_ITEM, "metadata": "x"}, "json", 400),
    (
        "create-metadata-big",
        "post",
        "/api/v1/memories/",
        {**NEW, **OK_ITEM, "metadata": {"blob": "x" * 20_000}},
        "json",
        400,
    ),
    ("batch-empty", "post", "/api/v1/memories/", {**NEW, "memories": []}, "json", 400),
    ("batch-not-list", "post", "/api/v1/memories/", {**NEW, "memories": "x"}, "json", 400),
    (
        "batch-one-bad",
        "post",
        "/api/v1/memories/",
        {**NEW, "memories": [*_memories(3), {"content": "x" * 2001}]},
        "json",
        400,
    ),
    (
        "batch-bad-enum",
        "post",
        "/api/v1/memories/",
        {**U1, "memories": [*_memories(2), {"content": "ok", "type": "dream"}]},
        "json",
        400,
    ),
    ("batch-1001", "post", "/api/v1/memories/", {**NEW, "memories": _memories(1001)}, "json", 413),
    ("create-array-body", "post", "/api/v1/memories/", [OK_ITEM], "json", 400),
    ("create-not-json", "post", "/api/v1/memories/", "this is not json", "raw-json", 400),
    ("create-truncated-json", "post", "/api/v1/memories/", '{"content": "x', "raw-json", 400),
    # Deeper than Python's JSON parser recurses: a clear 400, not a RecursionError.
    ("create-deep-json", "post", "/api/v1/memories/", "[" * 50_000 + "]" * 50_000, "raw-json", 400),
    (
        "recall-deep-json",
        "post",
        "/api/v1/recall/",
        '{"query": ' + "[" * 5000 + "]" * 5000 + "}",
        "raw-json",
        400,
    ),
    (
        "mem0-add-deep-json",
        "post",
        "/v3/memories/add/",
        '{"messages": ' + "[" * 9000 + "]" * 9000 + "}",
        "raw-json",
        400,
    ),
    (
        "create-nan",
        "post",
        "/api/v1/memories/",
        '{"user_id": "u1", "content": "x", "importance": NaN}',
        "raw-json",
        400,
    ),
    ("create-form", "post", "/api/v1/memories/", "content=hello&user_id=u1", "form", 415),
    ("create-text", "post", "/api/v1/memories/", "hello", "text", 415),
    (
        "create-2mb",
        "post",
        "/api/v1/memories/",
        {**NEW, "memories": [{"content": "x" * 2000}] * 1100},
        "json",
        413,
    ),
    # --- PATCH /api/v1/memories/{id}/
    ("correct-empty", "patch", "/api/v1/memories/{memory}/", {}, "json", 400),
    ("correct-int", "patch", "/api/v1/memories/{memory}/", {"content": 5}, "json", 400),
    ("correct-2001", "patch", "/api/v1/memories/{memory}/", {"content": "x" * 2001}, "json", 400),
    ("correct-same", "patch", "/api/v1/memories/{memory}/", {"content": "{secret}"}, "json", 400),
    (
        "correct-secret",
        "patch",
        "/api/v1/memories/{memory}/",
        {"content": "My password is hunter2hunter2"},
        "json",
        400,
    ),
    ("correct-not-json", "patch", "/api/v1/memories/{memory}/", "{nope", "raw-json", 400),
    ("correct-bad-id", "patch", "/api/v1/memories/not-a-uuid/", {"content": "ok"}, "json", 404),
    # --- erase-all
    ("erase-all-no-confirm", "post", "/api/v1/memories/erase-all/", U1, "json", 400),
    ("erase-all-confirm-str", "post", "/api/v1/memories/erase-all/", {**U1, "confirm": "true"}, "json", 400),
    ("erase-all-confirm-false", "post", "/api/v1/memories/erase-all/", {**U1, "confirm": False}, "json", 400),
    ("erase-all-not-json", "post", "/api/v1/memories/erase-all/", "confirm", "raw-json", 400),
    # --- recall
    ("recall-no-query", "post", "/api/v1/recall/", U1, "json", 400),
    ("recall-limit-str", "post", "/api/v1/recall/", {**U1, "query": "x", "limit": "5"}, "json", 400),
    ("recall-limit-0", "post", "/api/v1/recall/", {**U1, "query": "x", "limit": 0}, "json", 400),
    ("recall-limit-big", "post", "/api/v1/recall/", {**U1, "query": "x", "limit": 100_000}, "json", 400),
    ("recall-budget-neg", "post", "/api/v1/recall/", {**U1, "query": "x", "budget_tokens": -1}, "json", 400),
    ("recall-at-words", "post", "/api/v1/recall/", {**U1, "query": "x", "at": "last tuesday"}, "json", 400),
    ("recall-types-enum", "post", "/api/v1/recall/", {**U1, "query": "x", "types": ["dream"]}, "json", 400),
    ("recall-types-str", "post", "/api/v1/recall/", {**U1, "query": "x", "types": "semantic"}, "json", 400),
    # --- conversations
    ("conv-no-user", "post", "/api/v1/conversations/", {"title": "x"}, "json", 400),
    ("conv-agent", "post", "/api/v1/conversations/", {"agent_id": "support"}, "json", 400),
    ("conv-user-int", "post", "/api/v1/conversations/", {"user_id": 5}, "json", 400),
    ("conv-incognito-str", "post", "/api/v1/conversations/", {**NEW, "incognito": "no"}, "json", 400),
    ("conv-title-long", "post", "/api/v1/conversations/", {**NEW, "title": "t" * 201}, "json", 400),
    ("msg-empty", "post", "/api/v1/conversations/{conversation}/messages/", {}, "json", 400),
    ("msg-blank", "post", "/api/v1/conversations/{conversation}/messages/", {"content": ""}, "json", 400),
    ("msg-int", "post", "/api/v1/conversations/{conversation}/messages/", {"content": 7}, "json", 400),
    (
        "msg-long",
        "post",
        "/api/v1/conversations/{conversation}/messages/",
        {"content": "x" * 8001},
        "json",
        400,
    ),
    ("msg-not-json", "post", "/api/v1/conversations/{conversation}/messages/", "hi", "raw-json", 400),
    ("msg-bad-conv", "post", "/api/v1/conversations/nope/messages/", {"content": "hi"}, "json", 404),
    # --- extractions
    ("extract-empty", "post", "/api/v1/extractions/", {}, "json", 400),
    ("extract-no-messages", "post", "/api/v1/extractions/", {**NEW, "messages": []}, "json", 400),
    (
        "extract-role",
        "post",
        "/api/v1/extractions/",
        {**NEW, "messages": [{"role": "robot", "content": "hi"}]},
        "json",
        400,
    ),
    (
        "extract-no-content",
        "post",
        "/api/v1/extractions/",
        {**NEW, "messages": [{"role": "user"}]},
        "json",
        400,
    ),
    (
        "extract-date",
        "post",
        "/api/v1/extractions/",
        {**NEW, "messages": [{"role": "user", "content": "hi", "created_at": "soon"}]},
        "json",
        400,
    ),
    (
        "extract-501",
        "post",
        "/api/v1/extractions/",
        {**NEW, "messages": [{"role": "user", "content": "hi"}] * 501},
        "json",
        413,
    ),
    # --- moderation
    (
        "approve-content-int",
        "post",
        "/api/v1/moderation/procedures/{pending}/approve/",
        {"content": 5},
        "json",
        400,
    ),
    (
        "approve-path-for-tenant",
        "post",
        "/api/v1/moderation/procedures/{pending}/approve/",
        {"namespace_path": "org/acme-ops"},
        "json",
        400,
    ),
    (
        "approve-unknown-agent",
        "post",
        "/api/v1/moderation/procedures/{pending}/approve/",
        {"agent_id": "nobody"},
        "json",
        400,
    ),
    ("reject-no-reason", "post", "/api/v1/moderation/procedures/{pending}/reject/", {}, "json", 400),
    (
        "reject-blank-reason",
        "post",
        "/api/v1/moderation/procedures/{pending}/reject/",
        {"reason": ""},
        "json",
        400,
    ),
    # --- imports (tests/api/test_imports.py has each format's own refusals)
    ("imports-not-json", "post", "/api/v1/imports/", '{"format": "text"', "raw-json", 400),
    ("imports-no-format", "post", "/api/v1/imports/", {**NEW, "data": "Likes tea"}, "json", 400),
    (
        "imports-unknown-format",
        "post",
        "/api/v1/imports/",
        {**NEW, "format": "csv", "data": "a"},
        "json",
        400,
    ),
    ("imports-no-data", "post", "/api/v1/imports/", {**NEW, "format": "text"}, "json", 400),
    (
        "imports-bad-json-file",
        "post",
        "/api/v1/imports/",
        {**NEW, "format": "mem0", "data": '[{"memory": '},
        "json",
        400,
    ),
    (
        "imports-empty-paste",
        "post",
        "/api/v1/imports/",
        {**NEW, "format": "text", "data": "\n \n"},
        "json",
        400,
    ),
    (
        "imports-dry-run-str",
        "post",
        "/api/v1/imports/",
        {**NEW, "format": "text", "data": "Likes tea", "dry_run": "perhaps"},
        "json",
        400,
    ),
    ("imports-get-bad-id", "get", "/api/v1/imports/12/", None, "json", 404),
    # --- mem0
    ("mem0-add-empty", "post", "/v3/memories/add/", {}, "json", 400),
    (
        "mem0-add-no-entity",
        "post",
        "/v3/memories/add/",
        {"messages": [{"role": "user", "content": "hi"}]},
        "json",
        400,
    ),
    ("mem0-add-messages-str", "post", "/v3/memories/add/", {**NEW, "messages": "hi"}, "json", 400),
    (
        "mem0-add-infer-str",
        "post",
        "/v3/memories/add/",
        {**NEW, "messages": [{"role": "user", "content": "hi"}], "infer": "no"},
        "json",
        400,
    ),
    (
        "mem0-add-long",
        "post",
        "/v3/memories/add/",
        {**NEW, "messages": [{"role": "user", "content": "x" * 2001}], "infer": False},
        "json",
        400,
    ),
    (
        "mem0-add-expiry",
        "post",
        "/v3/memories/add/",
        {**NEW, "messages": [{"role": "user", "content": "hi"}], "expiration_date": "2026-13-01"},
        "json",
        400,
    ),
    (
        "mem0-add-run-only",
        "post",
        "/v3/memories/add/",
        {"run_id": "r1", "messages": [{"role": "user", "content": "hi"}]},
        "json",
        400,
    ),
    ("mem0-add-not-json", "post", "/v3/memories/add/", "[", "raw-json", 400),
    ("mem0-search-empty", "post", "/v3/memories/search/", {}, "json", 400),
    ("mem0-search-no-filters", "post", "/v3/memories/search/", {"query": "x"}, "json", 400),
    (
        "mem0-search-top-k",
        "post",
        "/v3/memories/search/",
        {"query": "x", "filters": U1, "top_k": 0},
        "json",
        400,
    ),
    ("mem0-search-filters-str", "post", "/v3/memories/search/", {"query": "x", "filters": "u1"}, "json", 400),
    ("mem0-get-all-no-entity", "post", "/v3/memories/", {}, "json", 400),
    ("mem0-get-all-page", "post", "/v3/memories/?page=0", {"filters": U1}, "json", 400),
    ("mem0-update-empty", "put", "/v1/memories/{memory}/", {}, "json", 400),
    ("mem0-update-int", "put", "/v1/memories/{memory}/", {"text": 5}, "json", 400),
    ("mem0-update-metadata-only", "put", "/v1/memories/{memory}/", {"metadata": {"a": 1}}, "json", 400),
    ("mem0-delete-all-no-entity", "delete", "/v1/memories/", None, "json", 400),
    ("mem0-delete-user-type", "delete", "/v2/entities/app/u1/", None, "json", 400),
    # --- mem0: filters, options, batch, exports, feedback
    (
        "mem0-filter-op",
        "post",
        "/v3/memories/",
        {"filters": {"AND": [U1, {"created_at": {"after": 1}}]}},
        "json",
        400,
    ),
    (
        "mem0-filter-field",
        "post",
        "/v3/memories/",
        {"filters": {"AND": [U1, {"colour": "red"}]}},
        "json",
        400,
    ),
    (
        "mem0-filter-date",
        "post",
        "/v3/memories/",
        {"filters": {**U1, "updated_at": {"gt": "soon"}}},
        "json",
        400,
    ),
    (
        "mem0-filter-or-users",
        "post",
        "/v3/memories/",
        {"filters": {"OR": [U1, {"user_id": "u2"}]}},
        "json",
        400,
    ),
    ("mem0-filter-and-not-list", "post", "/v3/memories/", {"filters": {"AND": U1}}, "json", 400),
    ("mem0-filter-deep", "post", "/v3/memories/", {"filters": {"AND": [U1, _deep(10)]}}, "json", 400),
    ("mem0-get-all-unknown", "post", "/v3/memories/", {"filters": U1, "sort": "asc"}, "json", 400),
    (
        "mem0-search-rerank-off",
        "post",
        "/v3/memories/search/",
        {"query": "x", "filters": U1, "rerank": False},
        "json",
        400,
    ),
    (
        "mem0-search-bad-field",
        "post",
        "/v3/memories/search/",
        {"query": "x", "filters": U1, "fields": ["x"]},
        "json",
        400,
    ),
    (
        "mem0-delete-all-bad-op",
        "delete",
        "/v1/memories/?filters=%7B%22AND%22%3A+%5B%7B%22user_id%22%3A+%22u1%22%7D%2C+%7B%22categories%22%3A+%7B%22like%22%3A+%22x%22%7D%7D%5D%7D",
        None,
        "json",
        400,
    ),
    ("mem0-delete-all-unknown", "delete", "/v1/memories/?user_id=u1&cascade=1", None, "json", 400),
    ("mem0-batch-update-empty", "put", "/v1/batch/", {"memories": []}, "json", 400),
    (
        "mem0-batch-update-1001",
        "put",
        "/v1/batch/",
        {"memories": [{"memory_id": "x", "text": "y"}] * 1001},
        "json",
        413,
    ),
    (
        "mem0-batch-update-secret",
        "put",
        "/v1/batch/",
        {"memories": [{"memory_id": "{memory}", "text": "My password is hunter2!"}]},
        "json",
        400,
    ),
    (
        "mem0-batch-update-unknown-id",
        "put",
        "/v1/batch/",
        {"memories": [{"memory_id": "{pending}", "text": "ok"}, {"memory_id": "0", "text": "y"}]},
        "json",
        404,
    ),
    (
        "mem0-batch-delete-twice",
        "delete",
        "/v1/batch/",
        {"memories": [{"memory_id": "{memory}"}, {"memory_id": "{memory}"}]},
        "json",
        400,
    ),
    (
        "mem0-batch-delete-unknown-id",
        "delete",
        "/v1/batch/",
        {"memories": [{"memory_id": "{memory}"}, {"memory_id": "0"}]},
        "json",
        404,
    ),
    (
        "mem0-export-schema",
        "post",
        "/v1/exports/",
        {"schema": {"type": "object"}, "filters": U1},
        "json",
        400,
    ),
    ("mem0-export-bad-id", "post", "/v1/exports/get/", {"memory_export_id": "forged"}, "json", 404),
    (
        "mem0-feedback-value",
        "post",
        "/v1/feedback/",
        {"memory_id": "{memory}", "feedback": "MEH"},
        "json",
        400,
    ),
    (
        "mem0-feedback-reason-long",
        "post",
        "/v1/feedback/",
        {"memory_id": "{memory}", "feedback": "POSITIVE", "feedback_reason": "x" * 1001},
        "json",
        400,
    ),
]


def _snapshot(world: World) -> dict[str, Any]:
    counts = {model.__name__: model.objects.count() for model in TABLES}
    counts["users"] = get_user_model().objects.count()
    side = world.sides["tenant"]
    counts["memory"] = list(MemoryEntry.objects.filter(pk=side.memory.pk).values_list("content", "status"))
    counts["pending"] = list(MemoryEntry.objects.filter(pk=side.pending.pk).values_list("status", flat=True))
    return counts


@pytest.mark.parametrize(
    ("method", "path", "body", "kind", "status"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_it_refuses_bad_input_and_changes_nothing(
    db, world: World, method: str, path: str, body: Any, kind: str, status: int
) -> None:
    side = world.sides["tenant"]
    url = path.format(memory=side.memory.pk, conversation=side.conversation.pk, pending=side.pending.pk)
    if isinstance(body, dict) and body.get("content") == "{secret}":
        body = {"content": side.secret}
    if isinstance(body, dict) and "{" in json.dumps(body):  # ids of the world's objects in the body
        text = (
            json.dumps(body)
            .replace("{memory}", str(side.memory.pk))
            .replace("{pending}", str(side.pending.pk))
        )
        body = json.loads(text)
    client = client_with(world.keys["all"])
    before = _snapshot(world)

    if kind == "json":
        response = getattr(client, method)(url, body, format="json")
    else:
        content_type = {
            "raw-json": "application/json",
            "form": "application/x-www-form-urlencoded",
            "text": "text/plain",
        }[kind]
        response = getattr(client, method)(url, body, content_type=content_type)

    assert response.status_code == status, response.content[:500]
    payload = response.json()
    assert isinstance(payload["detail"], str) and payload["detail"]
    assert _snapshot(world) == before


def test_it_names_each_bad_field_of_a_batch(db, world: World) -> None:
    body = {**NEW, "memories": [*_memories(2), {"content": 1}, {"content": "ok", "importance": 3}]}
    response = client_with(world.keys["all"]).post("/api/v1/memories/", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {
        "memories": {
            "2": {"content": ["Must be a string."]},
            "3": {"importance": ["Ensure this value is less than or equal to 1."]},
        }
    }


def test_it_refuses_a_declared_oversized_body_before_reading_it(db, world: World) -> None:
    client = client_with(world.keys["all"])
    body = json.dumps({**NEW, "content": "x"})
    response = client.post(
        "/api/v1/memories/", body, content_type="application/json", CONTENT_LENGTH="3000000"
    )
    assert response.status_code == 413
