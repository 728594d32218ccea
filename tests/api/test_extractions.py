"""POST /api/v1/extractions/ (a transcript → a job) and GET its status and result."""

from __future__ import annotations

import pytest

from memory_core.lifecycle import memory_pause
from memory_core.models import ExtractionJob, MemoryEntry

pytestmark = pytest.mark.django_db

TRANSCRIPT = {
    "user_id": "u1",
    "conversation": "ticket-9",
    "messages": [
        {
            "id": "m1",
            "role": "user",
            "content": "I'm severely allergic to peanuts.",
            "created_at": "2026-07-03T12:00:00Z",
        },
        {"id": "m2", "role": "assistant", "content": "You are allergic to shellfish too, right?"},
    ],
}


def test_it_extracts_from_a_transcript(key_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as queued:  # the task runs at commit
        response = key_client.post("/api/v1/extractions/", TRANSCRIPT, format="json")
    assert response.status_code == 202 and len(queued) == 1
    assert response.json()["status"] == "queued"

    job = key_client.get(f"/api/v1/extractions/{response.json()['id']}/").json()
    assert job["status"] == "done" and job["extractor"] == "rule-based"
    assert job["result"]["added"] >= 1
    stored = MemoryEntry.objects.get(pk=job["result"]["entries"][0])
    assert "peanut" in stored.content.lower() and stored.source_message_ids == ["m1"]
    assert not MemoryEntry.objects.filter(
        content__icontains="shellfish"
    ).exists()  # assistants are not evidence


def test_it_is_idempotent(key_client):
    first = key_client.post("/api/v1/extractions/", TRANSCRIPT, format="json").json()
    again = key_client.post("/api/v1/extractions/", TRANSCRIPT, format="json").json()
    assert first["id"] == again["id"] and ExtractionJob.objects.count() == 1


def test_it_numbers_messages_without_ids(owner_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.post(
            "/api/v1/extractions/",
            {"messages": [{"role": "user", "content": "I live in Lisbon."}]},
            format="json",
        )
    assert response.status_code == 202
    assert MemoryEntry.objects.get().source_message_ids == ["1"]


def test_it_skips_paused_users(owner_client, owner):
    memory_pause(actor=owner, paused=True)
    response = owner_client.post(
        "/api/v1/extractions/",
        {"messages": [{"role": "user", "content": "I live in Lisbon."}]},
        format="json",
    )
    assert response.status_code == 200 and response.json()["status"] == "skipped"
    assert not ExtractionJob.objects.exists()


def test_unknown_jobs_are_not_found(key_client):
    assert key_client.get("/api/v1/extractions/999999/").status_code == 404
    assert key_client.get("/api/v1/extractions/abc/").status_code == 404
    assert key_client.get(f"/api/v1/extractions/{2**70}/").status_code == 404
