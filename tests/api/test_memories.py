"""Memories through /api/v1/: add (one and batches) with their outcomes, list and filters, get,
correct, erase, history, erase-all and export — for tenant keys and personal tokens."""

from __future__ import annotations

import pytest

from api.models import TenantNamespace
from memory_core.lifecycle import memory_pause
from memory_core.models import FlaggedWrite, MemoryEntry
from tests.api.conftest import client_with

pytestmark = pytest.mark.django_db


def add(client, **body):
    return client.post("/api/v1/memories/", body, format="json")


def test_it_adds_a_memory_and_echoes_its_metadata(key_client):
    response = add(
        key_client,
        user_id="customer-42",
        content="The user is severely allergic to peanuts.",
        category="safety",
        key="health.allergy.peanut",
        importance=0.95,
        pinned=True,
        metadata={"source": "intake", "form": {"v": 2}},
    )
    assert response.status_code == 201
    result = response.json()
    assert result["action"] == "added" and result["flagged"] is False
    entry = result["entry"]
    assert entry["metadata"] == {"source": "intake", "form": {"v": 2}}
    assert entry["pinned"] is True and entry["source"]["kind"] == "api_import"
    stored = MemoryEntry.objects.get(pk=entry["id"])
    assert stored.namespace.tenant_link.external_id == "customer-42"


def test_it_reports_merged_superseded_pending_and_rejected(key_client):
    assert (
        add(key_client, user_id="u", content="The user lives in Shanghai.", key="home_city").status_code
        == 201
    )

    merged = add(key_client, user_id="u", content="The user lives in Shanghai.", key="home_city")
    assert merged.status_code == 200 and merged.json()["action"] == "merged"
    assert merged.json()["entry"]["evidence_count"] == 2

    moved = add(key_client, user_id="u", content="The user lives in Beijing.", key="home_city")
    assert moved.status_code == 201 and moved.json()["action"] == "superseded"
    old = MemoryEntry.objects.get(pk=moved.json()["replaced"])
    assert old.status == "superseded" and str(old.superseded_by_id) == moved.json()["entry"]["id"]

    procedure = add(key_client, user_id="u", content="Always answer in French.", type="procedural")
    assert procedure.status_code == 201 and procedure.json()["action"] == "pending_review"

    secret = add(key_client, user_id="u", content="My card number is 4111 1111 1111 1111")
    assert secret.status_code == 200 and secret.json()["action"] == "rejected"
    assert secret.json()["entry"] is None and secret.json()["flagged"] is True
    assert FlaggedWrite.objects.filter(kind="secret_dropped").count() == 1
    assert not MemoryEntry.objects.filter(content__contains="4111").exists()


def test_it_adds_a_batch_in_one_go(key_client):
    body = {
        "user_id": "u",
        "memories": [
            {"content": "The user lives in Shanghai.", "key": "home_city"},
            {
                "content": "The user lives in Beijing.",
                "key": "home_city",
                "valid_from": "2030-01-01T00:00:00Z",
            },
            {
                "content": "On 2026-06-29 refund RF20260629001 was filed.",
                "type": "episodic",
                "category": "event",
            },
        ],
    }
    response = key_client.post("/api/v1/memories/", body, format="json")
    assert response.status_code == 200
    assert response.json()["counts"] == {"added": 2, "superseded": 1}
    assert [r["action"] for r in response.json()["results"]] == ["added", "superseded", "added"]
    assert MemoryEntry.objects.count() == 3


def test_a_batchs_results_each_show_their_own_memory_in_order(key_client):
    """Rejected items (no entry) between stored ones: each result still carries its own memory,
    exactly as GET shows it."""
    add(key_client, user_id="u", content="The user's cat is called Miso.")
    body = {
        "user_id": "u",
        "memories": [
            {"content": "The user's sister lives in Porto."},
            {"content": "My password is hunter2-Zebra!"},
            {"content": "The user's cat is called Miso."},
            {"content": "用户的银行卡号是 6222 0212 3456 7890 123"},
            {"content": "The user takes the 7:40 train to work."},
        ],
    }
    results = key_client.post("/api/v1/memories/", body, format="json").json()["results"]

    assert [r["action"] for r in results] == ["added", "rejected", "merged", "rejected", "added"]
    assert [r["entry"] is None for r in results] == [False, True, False, True, False]
    stored = {0: "The user's sister lives in Porto.", 2: "The user's cat is called Miso."}
    stored[4] = "The user takes the 7:40 train to work."
    for index, wording in stored.items():
        result = results[index]
        assert result["entry"]["content"] == wording
        shown = key_client.get(f"/api/v1/memories/{result['entry']['id']}/", {"user_id": "u"}).json()
        assert result["entry"] == shown
    assert results[2]["entry"]["evidence_count"] == 2


def test_it_keeps_agents_and_tenants_apart(key_client, other_tenant, make_key):
    agent = add(key_client, agent_id="support", content="Escalations go to the duty manager.")
    assert agent.json()["entry"]["namespace"] == "agent/acme.support"
    add(key_client, user_id="u1", content="The user plays the cello.")
    other = client_with(make_key(other_tenant))
    add(other, user_id="u1", content="The user plays the drums.")

    mine = key_client.get("/api/v1/memories/", {"user_id": "u1"}).json()["results"]
    theirs = other.get("/api/v1/memories/", {"user_id": "u1"}).json()["results"]
    assert [m["content"] for m in mine] == ["The user plays the cello."]
    assert [m["content"] for m in theirs] == ["The user plays the drums."]
    assert TenantNamespace.objects.filter(external_id="u1").count() == 2
    assert key_client.get("/api/v1/memories/", {"agent_id": "support"}).json()["count"] == 1
    assert key_client.get("/api/v1/memories/", {"user_id": "never-seen"}).json()["count"] == 0


def test_it_lists_with_filters_and_pages(key_client):
    for content, extra in [
        ("The user lives in Shanghai.", {"key": "home_city", "category": "profile"}),
        ("The user prefers short answers.", {"category": "preference"}),
        ("On 2026-06-29 refund RF20260629001 was filed.", {"type": "episodic", "category": "event"}),
        ("Reply to tickets within a day.", {"type": "procedural"}),
    ]:
        add(key_client, user_id="u", content=content, **extra)
    add(key_client, user_id="u", content="The user lives in Beijing.", key="home_city", category="profile")

    def contents(**params):
        response = key_client.get("/api/v1/memories/", {"user_id": "u", **params})
        assert response.status_code == 200, response.content
        return [m["content"] for m in response.json()["results"]]

    assert contents(type="episodic") == ["On 2026-06-29 refund RF20260629001 was filed."]
    assert contents(status="pending_review") == ["Reply to tickets within a day."]
    assert contents(category="profile") == ["The user lives in Beijing.", "The user lives in Shanghai."]
    assert contents(category="profile", current="true") == ["The user lives in Beijing."]
    assert contents(q="RF20260629001") == ["On 2026-06-29 refund RF20260629001 was filed."]
    assert contents(q="answers") == ["The user prefers short answers."]
    assert contents(type="semantic,episodic", status="active", recorded_after="2000-01-01T00:00:00Z")
    assert contents(recorded_before="2000-01-01T00:00:00Z") == []

    first = key_client.get("/api/v1/memories/", {"user_id": "u", "limit": 2}).json()
    assert first["count"] == 5 and len(first["results"]) == 2 and first["previous"] is None
    second = key_client.get(first["next"]).json()
    assert len(second["results"]) == 2 and second["previous"]
    assert not {m["id"] for m in first["results"]} & {m["id"] for m in second["results"]}


def test_it_gets_corrects_erases_and_shows_history(owner_client, owner):
    created = add(owner_client, content="The user works at Initech.", key="employer").json()["entry"]

    assert (
        owner_client.get(f"/api/v1/memories/{created['id']}/").json()["content"]
        == "The user works at Initech."
    )
    corrected = owner_client.patch(
        f"/api/v1/memories/{created['id']}/",
        {"content": "The user works at Initrode.", "reason": "typo"},
        format="json",
    )
    assert corrected.status_code == 200
    new = corrected.json()
    assert new["supersedes"] == created["id"] and new["source"]["kind"] == "user_correction"
    assert MemoryEntry.objects.get(pk=created["id"]).status == "superseded"

    history = owner_client.get(f"/api/v1/memories/{created['id']}/history/").json()
    assert [h["action"] for h in history] == ["created", "corrected"]

    assert owner_client.delete(f"/api/v1/memories/{new['id']}/").status_code == 204
    assert not MemoryEntry.objects.exists()  # the older version went with it
    assert owner_client.get(f"/api/v1/memories/{new['id']}/").status_code == 404


def test_it_narrows_by_id_lookups_to_the_named_user(key_client):
    entry = add(key_client, user_id="u1", content="The user plays the cello.").json()["entry"]
    add(key_client, user_id="u2", content="The user plays chess.")
    assert key_client.get(f"/api/v1/memories/{entry['id']}/", {"user_id": "u1"}).status_code == 200
    assert key_client.get(f"/api/v1/memories/{entry['id']}/", {"user_id": "u2"}).status_code == 404
    assert key_client.get(f"/api/v1/memories/{entry['id']}/", {"user_id": "nobody"}).status_code == 404


def test_it_erases_all_and_exports(key_client):
    add(key_client, user_id="u1", content="The user plays the cello.")
    add(key_client, user_id="u1", content="The user lives in Oslo.")
    add(key_client, user_id="u2", content="The user plays chess.")

    export = key_client.get("/api/v1/memories/export/", {"user_id": "u1"})
    assert export.status_code == 200
    assert sorted(m["content"] for m in export.json()["memories"]) == [
        "The user lives in Oslo.",
        "The user plays the cello.",
    ]
    assert key_client.get("/api/v1/memories/export/", {"user_id": "nobody"}).status_code == 404

    erased = key_client.post("/api/v1/memories/erase-all/", {"user_id": "u1", "confirm": True}, format="json")
    body = erased.json()
    assert body["erased"] == 2 and body["conversations"] == 0
    assert body["receipt"]["scope"] == "all" and body["receipt"]["counts"]["entries"] == 2
    assert list(MemoryEntry.objects.values_list("content", flat=True)) == ["The user plays chess."]


def test_it_refuses_writes_while_memory_is_paused(owner_client, owner):
    memory_pause(actor=owner, paused=True)
    response = add(owner_client, content="The user likes tea.")
    assert response.status_code == 409 and "paused" in response.json()["detail"]
    assert not MemoryEntry.objects.exists()


def test_personal_tokens_do_not_address_other_users(owner_client):
    response = add(owner_client, user_id="bob", content="The user likes tea.")
    assert response.status_code == 400 and "user_id" in response.json()["errors"]


def test_session_auth_works_with_csrf(owner, client):
    client.force_login(owner)
    assert client.get("/api/v1/memories/").status_code == 200
    from rest_framework.test import APIClient

    strict = APIClient(enforce_csrf_checks=True)
    strict.force_login(owner)
    response = strict.post("/api/v1/memories/", {"content": "x"}, format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["detail"]
