"""Erasure through the REST API and the unmodified mem0 client, end to end and down to the disk:
the same canary life as on the privacy page (said in chat, merged, corrected, recalled twice,
learned by an extraction job), erased with its sources; then nothing in any column, statistic,
queued task, table file or WAL segment. Plus the parts: conversation delete, receipts, mem0's
`delete_all(filters=…)` and `delete_users`."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from api.services import api_key_issue, tenant_create
from chat.models import Conversation, Message
from memory_core.models import ErasureReceipt, ExtractionJob, MemoryEntry, RecallLog
from tests.api.conftest import client_with
from tests.erasure_helpers import analyze, assert_nothing_in_sql, canary, disk_pass_leaves_nothing

pytestmark = pytest.mark.django_db(transaction=True)
USER = "customer-42"


@pytest.fixture
def tenant_key(operator) -> str:
    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    return api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])[1]


@pytest.fixture
def api(tenant_key) -> APIClient:
    return client_with(tenant_key)


def _chat(api: APIClient, *texts: str, title: str = "", close: bool = False) -> str:
    conversation = api.post("/api/v1/conversations/", {"user_id": USER, "title": title}, format="json")
    assert conversation.status_code == 201, conversation.content
    pk = conversation.json()["id"]
    for text in texts:
        turn = api.post(f"/api/v1/conversations/{pk}/messages/", {"content": text}, format="json")
        assert turn.status_code == 201, turn.content
    if close:
        assert api.post(f"/api/v1/conversations/{pk}/close/", {}, format="json").status_code == 200
    return pk


def _search(api: APIClient, text: str) -> list[dict[str, Any]]:
    found = api.post("/api/v1/memories/search/", {"user_id": USER, "q": text, "current": True}, format="json")
    assert found.status_code == 200, found.content
    assert found.json()["next"] is None
    return found.json()["results"]


def test_rest_erases_a_memory_with_its_sources_down_to_the_disk(api):
    marker = canary()
    _chat(api, *[f"Remember that I live in {marker}."] * 2, title=f"Moving to {marker}")
    [said] = _search(api, marker)
    assert said["evidence_count"] == 2
    corrected = api.patch(
        f"/api/v1/memories/{said['id']}/", {"content": f"I live in {marker} Old Town."}, format="json"
    )
    assert corrected.status_code == 200
    _chat(api, "Where do I live?", "Which town is my home?")
    recalled = api.post("/api/v1/recall/", {"user_id": USER, "query": f"home {marker}"}, format="json")
    assert recalled.json()["items"]
    assert RecallLog.objects.filter(entry_id=corrected.json()["id"]).count() >= 2
    _chat(api, f"I moved to {marker} Shanghai.", close=True)
    [current] = _search(api, marker)
    assert current["supersedes"] == corrected.json()["id"]
    analyze()

    response = api.delete(f"/api/v1/memories/{current['id']}/?erase_sources=true")

    assert response.status_code == 204
    assert_nothing_in_sql(marker)
    receipts = api.get("/api/v1/erasures/", {"user_id": USER}).json()
    assert receipts["count"] == 1
    [receipt] = receipts["results"]
    assert receipt["scope"] == "one" and receipt["via"] == "api" and receipt["api_key"].startswith("mk_")
    assert receipt["counts"]["entries"] == 3 and receipt["counts"]["conversations"] == 3
    assert receipt["counts"]["messages"] >= 8 and receipt["rewritten_at"] is None
    disk_pass_leaves_nothing(marker, list(ErasureReceipt.objects.all()))
    assert api.get("/api/v1/erasures/", {"user_id": USER}).json()["results"][0]["rewritten_at"]


def test_rest_erase_all_with_sources_and_the_erasure_list_for_unknown_ids(api):
    marker = canary()
    _chat(api, f"Remember that my favourite café is {marker}.", title=marker)
    namespace = MemoryEntry.objects.get(content__icontains=marker).namespace
    ExtractionJob.objects.create(  # a transcript still waiting for the cluster
        namespace=namespace,
        idempotency_key="waiting",
        source_conversation="ticket-7",
        messages=[{"id": "1", "role": "user", "content": f"My favourite café is {marker}, on the corner."}],
    )

    erased = api.post(
        "/api/v1/memories/erase-all/",
        {"user_id": USER, "confirm": True, "erase_sources": True},
        format="json",
    )

    assert erased.status_code == 200
    body = erased.json()
    assert body["erased"] == 1 and body["conversations"] == 1 and body["receipt"]["counts"]["jobs"] == 1
    assert_nothing_in_sql(marker)
    assert api.get("/api/v1/erasures/", {"user_id": "nobody-yet"}).json()["count"] == 0
    bad = api.post(
        "/api/v1/memories/erase-all/",
        {"user_id": USER, "confirm": True, "erase_sources": "yes"},
        format="json",
    )
    assert bad.status_code == 400 and "erase_sources" in bad.json()["errors"]


def test_rest_deletes_a_conversation_and_keeps_what_was_learned(api):
    marker = canary()
    pk = _chat(api, f"Remember that my favourite café is {marker}.", title=f"Café {marker}")

    response = api.delete(f"/api/v1/conversations/{pk}/")

    assert response.status_code == 204
    assert not Conversation.objects.filter(pk=pk).exists() and not Message.objects.exists()
    assert MemoryEntry.objects.filter(content__icontains=marker).exists()  # memories stay
    [receipt] = api.get("/api/v1/erasures/", {"user_id": USER}).json()["results"]
    assert receipt["scope"] == "conversation" and receipt["counts"]["messages"] == 2
    assert api.delete(f"/api/v1/conversations/{pk}/").status_code == 404


# --- The mem0 client ---------------------------------------------------------------------------


@pytest.fixture
def mem0(live_url, tenant_key):
    from mem0 import MemoryClient

    return MemoryClient(api_key=tenant_key, host=live_url)


def test_mem0_client_erases_with_sources_down_to_the_disk(mem0, api):
    marker = canary()
    _chat(api, f"Remember that I live in {marker}.", title=f"Moving to {marker}")
    added = mem0.add([{"role": "user", "content": f"Remember that I live in {marker}."}], user_id=USER)
    assert added["status"] == "SUCCEEDED"
    [said] = mem0.get_all(filters={"user_id": USER})["results"]
    assert MemoryEntry.objects.get(pk=said["id"]).evidence_count == 2  # merged, not a second copy
    updated = mem0.update(said["id"], text=f"I live in {marker} Old Town.")
    for _ in range(2):
        assert mem0.search(f"Where is {marker}?", filters={"user_id": USER})["results"]
    assert RecallLog.objects.filter(entry_id=updated["id"]).count() >= 2
    moved = mem0.add([{"role": "user", "content": f"I moved to {marker} Shanghai."}], user_id=USER)
    assert moved["status"] == "SUCCEEDED"
    analyze()

    # The form mem0's typed options document: the entity inside `filters`.
    mem0.delete_all(filters={"user_id": USER}, erase_sources=True)

    assert mem0.get_all(filters={"user_id": USER})["count"] == 0
    assert_nothing_in_sql(marker)
    receipt = ErasureReceipt.objects.get()
    assert receipt.via == "mem0" and receipt.entries == 3 and receipt.conversations == 1
    disk_pass_leaves_nothing(marker, [receipt])


def test_mem0_delete_users_removes_transcripts_too(mem0, api):
    marker = canary()
    _chat(api, f"Remember that my favourite café is {marker}.", title=marker)
    mem0.add([{"role": "user", "content": f"My badge number is {marker}."}], user_id=USER)

    mem0.delete_users(user_id=USER)

    assert_nothing_in_sql(marker)
    receipt = ErasureReceipt.objects.get()  # for operators: the account is gone, the receipt stays
    assert receipt.scope == "entity" and receipt.subject is None and receipt.conversations == 1


def test_mem0_delete_all_reads_filters_as_the_client_sends_them(tenant_key):
    api = client_with(tenant_key)
    for query, expected in [
        ("filters=%7B%27user_id%27%3A+%27u1%27%7D", 200),  # {'user_id': 'u1'}, the client's form
        ('filters={"AND": [{"user_id": "u1"}]}', 200),  # JSON, with mem0's AND list
        ("filters=[1, 2]", 400),
        ("filters=__import__('os')", 400),  # a literal or nothing: never evaluated
        ("filters={'run_id': 'r1'}", 400),
    ]:
        response = api.delete(f"/v1/memories/?{query}")
        assert response.status_code == expected, (query, response.content)
        if expected == 400:
            assert response.json()["detail"]
