"""Restoring what the forgetting job archived, through /api/v1/memories/{id}/restore/."""

from __future__ import annotations

import pytest

from memory_core.forgetting import forget_all
from memory_core.models import MemoryEntry, MemoryStatus, Namespace

pytestmark = pytest.mark.django_db


def _archive_one_of_two(client, user_id: str | None = None) -> tuple[str, str]:
    """Two memories in a namespace with a budget of one: the job archives one. (archived, kept)."""
    who = {"user_id": user_id} if user_id else {}
    ids = [
        client.post(
            "/api/v1/memories/", {**who, "content": text, "importance": importance}, format="json"
        ).json()["entry"]["id"]
        for text, importance in (
            ("The user mentioned a podcast.", 0.1),
            ("The user watched a film about whales.", 0.9),
        )
    ]
    namespace = MemoryEntry.objects.get(pk=ids[0]).namespace_id
    Namespace.objects.filter(pk=namespace).update(memory_capacity=1)
    forget_all()
    assert MemoryEntry.objects.get(pk=ids[0]).status == MemoryStatus.ARCHIVED
    return ids[0], ids[1]


def test_a_tenant_lists_and_restores_an_archived_memory(key_client):
    archived, kept = _archive_one_of_two(key_client, "customer-7")

    listed = key_client.get("/api/v1/memories/?user_id=customer-7&status=archived").json()["results"]
    assert [m["id"] for m in listed] == [archived]
    history = key_client.get(f"/api/v1/memories/{archived}/history/").json()
    assert history[-1]["action"] == "archived"
    assert history[-1]["reason"].startswith("lowest value while over capacity (2 active entries, budget 1)")

    response = key_client.post(f"/api/v1/memories/{archived}/restore/", {}, format="json")

    assert response.status_code == 200
    assert response.json()["id"] == archived and response.json()["status"] == "active"
    assert key_client.get("/api/v1/memories/?user_id=customer-7&status=archived").json()["results"] == []
    # Still over budget: the next pass takes the other one, never the one the user brought back.
    forget_all()
    assert MemoryEntry.objects.get(pk=archived).status == MemoryStatus.ACTIVE
    assert MemoryEntry.objects.get(pk=kept).status == MemoryStatus.ARCHIVED


def test_a_person_restores_their_own_and_a_second_call_changes_nothing(owner_client):
    archived, _ = _archive_one_of_two(owner_client)

    first = owner_client.post(f"/api/v1/memories/{archived}/restore/", {}, format="json")
    second = owner_client.post(f"/api/v1/memories/{archived}/restore/", {}, format="json")

    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert MemoryEntry.objects.get(pk=archived).events.filter(action="restored").count() == 1


def test_restoring_what_was_not_archived_is_refused_and_changes_nothing(owner_client, other_client):
    archived, kept = _archive_one_of_two(owner_client)
    MemoryEntry.objects.filter(pk=kept).update(status=MemoryStatus.SUPERSEDED)

    refused = owner_client.post(f"/api/v1/memories/{kept}/restore/", {}, format="json")
    not_yours = other_client.post(f"/api/v1/memories/{archived}/restore/", {}, format="json")
    not_an_id = owner_client.post("/api/v1/memories/not-a-uuid/restore/", {}, format="json")

    assert refused.status_code == 409 and "Only archived memories" in refused.json()["detail"]
    assert not_yours.status_code == 404 and not_an_id.status_code in (400, 404)
    assert MemoryEntry.objects.get(pk=kept).status == MemoryStatus.SUPERSEDED
    assert MemoryEntry.objects.get(pk=archived).status == MemoryStatus.ARCHIVED
