"""Conversations through the API: create, a chat turn (reply + recalled ids), messages, close."""

from __future__ import annotations

import pytest

from chat.models import Message
from memory_core.models import ExtractionJob, MemoryEntry

pytestmark = pytest.mark.django_db


def test_it_runs_a_turn_and_says_what_it_recalled(key_client):
    remembered = key_client.post(
        "/api/v1/memories/",
        {
            "user_id": "u1",
            "content": "The user is severely allergic to peanuts.",
            "category": "safety",
            "pinned": True,
        },
        format="json",
    ).json()["entry"]
    conversation = key_client.post(
        "/api/v1/conversations/", {"user_id": "u1", "title": "Food"}, format="json"
    )
    assert conversation.status_code == 201
    cid = conversation.json()["id"]

    turn = key_client.post(
        f"/api/v1/conversations/{cid}/messages/", {"content": "Suggest a snack?"}, format="json"
    )
    assert turn.status_code == 201, turn.content
    body = turn.json()
    assert body["user_message"]["status"] == "complete" and body["reply"]["role"] == "assistant"
    assert body["recalled_entry_ids"] == [remembered["id"]]

    messages = key_client.get(f"/api/v1/conversations/{cid}/messages/").json()
    assert [m["role"] for m in messages] == ["user", "assistant"]


def test_closing_queues_extraction(owner_client, django_capture_on_commit_callbacks):
    cid = owner_client.post("/api/v1/conversations/", {}, format="json").json()["id"]
    owner_client.post(
        f"/api/v1/conversations/{cid}/messages/", {"content": "I live in Lisbon."}, format="json"
    )
    with django_capture_on_commit_callbacks(execute=True):  # the task runs at commit
        closed = owner_client.post(f"/api/v1/conversations/{cid}/close/", format="json")
    assert closed.status_code == 200
    job = closed.json()["extraction"]
    assert job["status"] == "queued" and job["trigger"] == "closed"
    assert closed.json()["conversation"]["closed_at"]
    assert owner_client.get(f"/api/v1/extractions/{job['id']}/").json()["status"] == "done"
    assert MemoryEntry.objects.filter(content__icontains="Lisbon").exists()


def test_incognito_conversations_learn_nothing(owner_client):
    cid = owner_client.post("/api/v1/conversations/", {"incognito": True}, format="json").json()["id"]
    owner_client.post(
        f"/api/v1/conversations/{cid}/messages/", {"content": "I live in Lisbon."}, format="json"
    )
    closed = owner_client.post(f"/api/v1/conversations/{cid}/close/", format="json")
    assert closed.json()["extraction"] is None
    assert not ExtractionJob.objects.exists() and not MemoryEntry.objects.exists()
    assert Message.objects.count() == 2


def test_a_remember_that_one_memory_cannot_hold_is_refused_and_nothing_is_kept(owner_client):
    cid = owner_client.post("/api/v1/conversations/", {}, format="json").json()["id"]
    text = "Remember that " + ", ".join(
        f"shelf {i} holds vinyl records from the seventies" for i in range(50)
    )
    turn = owner_client.post(f"/api/v1/conversations/{cid}/messages/", {"content": text}, format="json")
    assert turn.status_code == 400, turn.content
    body = turn.json()
    assert "one memory holds at most 2,000" in str(body) and "content" in str(body)
    assert not Message.objects.exists() and not MemoryEntry.objects.exists()
