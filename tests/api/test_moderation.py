"""Moderation through the API: operators see every pending procedure, a tenant key (moderate
scope) only its own tenant's; approve (into an agent or org namespace) and reject."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission

from api.services import user_token_issue
from memory_core.models import MemoryEntry, NamespaceKind
from memory_core.pipeline import memory_add
from memory_core.services import namespace_create, namespace_for_user
from tests.api.conftest import client_with

pytestmark = pytest.mark.django_db

RULE = "Always escalate refunds over 500 EUR to a supervisor."


@pytest.fixture
def operator_client(operator):
    operator.user_permissions.add(Permission.objects.get(codename="moderate_memories"))
    return client_with(user_token_issue(user=operator).key)


def propose(client, **who):
    response = client.post("/api/v1/memories/", {**who, "content": RULE, "type": "procedural"}, format="json")
    assert response.json()["action"] == "pending_review"
    return response.json()["entry"]["id"]


def test_tenants_moderate_only_their_own(key_client, other_tenant, make_key, owner):
    mine = propose(key_client, user_id="u1")
    # A style rule for the tenant's own agents is a rule too: it waits in the same queue.
    greeting = key_client.post(
        "/api/v1/memories/",
        {"agent_id": "support", "content": "Agents always greet customers in French."},
        format="json",
    ).json()
    assert greeting["action"] == "pending_review"
    other = client_with(make_key(other_tenant))
    theirs = propose(other, user_id="u1")
    alices = memory_add(namespace=namespace_for_user(user=owner), content=RULE, type="procedural").entry.pk

    listed = key_client.get("/api/v1/moderation/procedures/").json()
    assert sorted(p["id"] for p in listed["results"]) == sorted([mine, greeting["entry"]["id"]])
    for foreign in (theirs, alices):
        response = key_client.post(f"/api/v1/moderation/procedures/{foreign}/approve/", {}, format="json")
        assert response.status_code == 404

    approved = key_client.post(
        f"/api/v1/moderation/procedures/{mine}/approve/",
        {"agent_id": "support", "reason": "ok"},
        format="json",
    )
    assert approved.status_code == 200, approved.content
    sop = approved.json()
    assert sop["status"] == "active" and sop["namespace"] == "agent/acme.support"
    entry = MemoryEntry.objects.get(pk=sop["id"])
    assert entry.approved_by.username == "t.acme.moderator"


def test_operators_see_everything_and_reject(operator_client, key_client, owner):
    mine = propose(key_client, user_id="u1")
    alices = memory_add(namespace=namespace_for_user(user=owner), content=RULE, type="procedural").entry.pk
    listed = operator_client.get("/api/v1/moderation/procedures/").json()
    assert {p["id"] for p in listed["results"]} == {mine, str(alices)}

    rejected = operator_client.post(
        f"/api/v1/moderation/procedures/{mine}/reject/", {"reason": "Weakens policy."}, format="json"
    )
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"

    namespace_create(path="org/acme-ops", kind=NamespaceKind.ORG)
    approved = operator_client.post(
        f"/api/v1/moderation/procedures/{alices}/approve/",
        {"namespace_path": "org/acme-ops", "content": RULE + " Log it."},
        format="json",
    )
    assert approved.status_code == 200, approved.content
    assert approved.json()["namespace"] == "org/acme-ops" and approved.json()["content"].endswith("Log it.")


def test_staff_without_the_permission_cannot_moderate(operator):
    client = client_with(user_token_issue(user=operator).key)  # staff, but no moderate_memories
    assert client.get("/api/v1/moderation/procedures/").status_code == 403
