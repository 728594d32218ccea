"""Lossless round trips through REST imports (issue 31): the product's own export (mem0's
`create_memory_export`, our `memory-export-v1`) imported into a fresh user gives the same
memories — statement, type, category, key, windows, status, which version replaced which — and the
same point-in-time answers; a mem0 `get_all` (with `timestamp` and `created_at`) imports with its
dates, through the unmodified mem0 client; a broken export is refused with nothing written."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from api.services import api_key_issue, tenant_create
from memory_core.models import MemoryEntry

IMPORTS = "/api/v1/imports/"
FIELDS = ("content", "type", "category", "key", "status", "valid_from", "valid_to", "pinned")


def _add(client, user: str, content: str, **extra: Any) -> dict[str, Any]:
    response = client.post("/api/v1/memories/", {"user_id": user, "content": content, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _everything(client, user: str) -> list[dict[str, Any]]:
    statuses = "active,superseded,archived,expired,hidden,pending_review"
    rows = client.get("/api/v1/memories/", {"user_id": user, "status": statuses, "limit": 200}).json()[
        "results"
    ]
    return sorted(
        ({name: row[name] for name in FIELDS} for row in rows), key=lambda r: (r["content"], r["valid_from"])
    )


def _answer(client, user: str, query: str, at: str | None = None) -> str:
    body = {"user_id": user, "query": query, "limit": 1} | ({"at": at} if at else {})
    items = client.post("/api/v1/recall/", body, format="json").json()["items"]
    return items[0]["entry"]["content"] if items else ""


def _exported(client, user: str) -> dict[str, Any]:
    """Our export, asked for as mem0's `create_memory_export` asks (POST /v1/exports/, then get)."""
    made = client.post(
        "/v1/exports/", {"schema": "memory-export-v1", "filters": {"user_id": user}}, format="json"
    )
    assert made.status_code == 200, made.content
    got = client.post("/v1/exports/get/", {"memory_export_id": made.json()["id"]}, format="json")
    assert got.status_code == 200, got.content
    return got.json()


def test_our_export_imports_into_a_fresh_user_with_the_same_memories_and_answers(key_client):
    _add(key_client, "u1", "The user lives in Lyon.", key="home_city", valid_from="2020-01-01T00:00:00Z")
    _add(key_client, "u1", "The user lives in Paris.", key="home_city", valid_from="2024-01-01T00:00:00Z")
    _add(key_client, "u1", "The user is severely allergic to peanuts.", category="safety", pinned=True)
    _add(
        key_client,
        "u1",
        "The user ran the Lisbon marathon.",
        type="episodic",
        valid_from="2025-03-02T09:00:00Z",
    )
    dog = _add(key_client, "u1", "The user has a dog named Rex.")["entry"]["id"]
    fixed = key_client.patch(
        f"/api/v1/memories/{dog}/?user_id=u1", {"content": "The user has a dog named Max."}, format="json"
    )
    assert fixed.status_code == 200, fixed.content
    export = _exported(key_client, "u1")
    assert export["format"] == "memory-export-v1" and len(export["memories"]) == 6

    response = key_client.post(IMPORTS, {"format": "mem0", "data": export, "user_id": "u2"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["counts"] == {"added": 6}

    assert _everything(key_client, "u2") == _everything(key_client, "u1")
    lyon = MemoryEntry.objects.get(
        content="The user lives in Lyon.", namespace__tenant_link__external_id="u2"
    )
    assert lyon.status == "superseded" and lyon.superseded_by.content == "The user lives in Paris."
    original = MemoryEntry.objects.get(
        content="The user lives in Lyon.", namespace__tenant_link__external_id="u1"
    )
    assert lyon.metadata["source"]["source_kind"] == "api_import"  # where it first came from
    assert lyon.metadata["recorded_at"] == original.recorded_at.isoformat()
    rex = MemoryEntry.objects.get(
        content="The user has a dog named Rex.", namespace__tenant_link__external_id="u2"
    )
    assert rex.superseded_by.content == "The user has a dog named Max."
    for query, at in (
        ("Where does the user live?", "2022-06-01T00:00:00Z"),
        ("Where does the user live?", None),
        ("What is the name of the user's dog?", None),
        ("Which marathon did the user run?", "2025-06-01T00:00:00Z"),
    ):
        assert _answer(key_client, "u2", query, at) == _answer(key_client, "u1", query, at), (query, at)
    assert (
        _answer(key_client, "u2", "Where does the user live?", "2022-06-01T00:00:00Z")
        == "The user lives in Lyon."
    )

    again = key_client.post(IMPORTS, {"format": "mem0", "data": export, "user_id": "u2"}, format="json")
    assert again.status_code == 201 and set(again.json()["counts"]) <= {"ignored", "merged"}
    assert len(_everything(key_client, "u2")) == 6


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "bogus"}, "unknown status"),
        ({"type": "dream"}, "unknown type"),
        ({"valid_from": "2024-01-01T00:00:00Z", "valid_to": "2023-01-01T00:00:00Z"}, "before valid_from"),
        ({"valid_from": "yesterday-ish"}, "not an ISO date"),
        ({"confidence": 7}, "from 0 to 1"),
        ({"content": ""}, "no `content`"),
    ],
)
def test_a_broken_export_is_refused_and_nothing_is_written(key_client, change, message):
    _add(key_client, "u1", "The user plays the cello.")
    export = _exported(key_client, "u1")
    export["memories"] = [*export["memories"], {**export["memories"][0], "id": "x", **change}]
    before = MemoryEntry.objects.count()

    response = key_client.post(IMPORTS, {"format": "mem0", "data": export, "user_id": "u2"}, format="json")
    assert response.status_code == 400 and message in response.json()["detail"], response.content
    assert MemoryEntry.objects.count() == before


@pytest.mark.django_db(transaction=True)
def test_a_mem0_get_all_imports_with_its_dates(live_url, operator):
    from mem0 import MemoryClient

    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    key = api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])[1]
    mem0 = MemoryClient(api_key=key, host=live_url)
    said = datetime(2023, 5, 4, 10, 0, tzinfo=UTC)
    mem0.add("The user keeps bees.", user_id="u1", infer=False, timestamp=int(said.timestamp()))
    listed = mem0.get_all(filters={"user_id": "u1"})
    assert listed["results"][0]["timestamp"].startswith("2023-05-04T10:00")
    # mem0's platform shape too: a Unix `timestamp`, a `created_at` of when it was stored.
    platform = {
        "id": "m-1",
        "memory": "The user sails.",
        "timestamp": 1_600_000_000,
        "created_at": "2026-01-01T00:00:00Z",
    }

    for data, user in ((listed, "u2"), ([platform], "u3")):
        response = mem0.client.post(
            "/api/v1/imports/", json={"format": "mem0", "data": data, "user_id": user}
        )
        assert response.status_code == 201, response.text
    assert (
        MemoryEntry.objects.get(
            content="The user keeps bees.", namespace__tenant_link__external_id="u2"
        ).valid_from
        == said
    )
    sails = MemoryEntry.objects.get(content="The user sails.")
    assert sails.valid_from == datetime.fromtimestamp(1_600_000_000, tz=UTC)
    copied = mem0.get_all(filters={"user_id": "u2"})["results"][0]
    assert copied["timestamp"] == listed["results"][0]["timestamp"]
