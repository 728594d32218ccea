"""The authorization matrix: every endpoint x (own tenant key, own personal token, operator, another
person's token, another tenant's key, the own tenant key naming another of its end users, revoked
key, a key without the scope, anonymous).

Someone else's object is 404, exactly like a missing one; a collection read or write by someone else
reaches only their own (empty) data. A tenant key that names an end user (`user_id`) reaches that
user's objects only: by id, another end user's is 404 as well. After every call by someone else,
the owner's memory and procedure are untouched and their text and ids appear nowhere in the
response.

The rows are checked against the URLconf: an API or mem0 route (or a method of one) without a row
fails the suite."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.urls import resolve
from rest_framework.views import APIView

from api.base import ApiView
from chat.models import Conversation
from memory_core.models import MemoryEntry
from tests.api.conftest import client_with
from tests.api.world import World
from tests.routes import Route, declared_methods, routes

OK = {200, 201, 202, 204}
CALLERS = [
    "tenant",
    "person",
    "operator",
    "other_person",
    "other_tenant",
    "other_subject",
    "revoked",
    "wrong_scope",
    "anonymous",
]
# Which side's objects a caller is pointed at, and with which credential.
CALLER_SIDE = {"tenant": "tenant", "person": "user", "operator": "user", "other_person": "user"}


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: Callable[[World, str], str]
    body: Callable[[str], Any] | None = None
    scope: str | None = "read"
    by_id: bool = False
    tenant_only: bool = False
    moderation: bool = False
    not_served: bool = False  # a mem0 feature answered 501 (after authentication and scoping)
    world_body: Callable[[World, str], Any] | None = None  # a body naming the world's objects
    operators: bool = False  # tenant keys and operators manage these; other people get 403
    users_only: bool = False  # a person's own (tokens): tenant keys get 403
    # Naming another end user of the same tenant (`user_id=u2`): "by_id", the object is not
    # theirs (404); "list", they reach only their own.
    subject: str | None = None
    # What the owner gets: the world's jobs are not failed, so a retry by its owner is 409.
    owner_statuses: frozenset[int] = frozenset(OK)


def _who(side: str) -> dict[str, str]:
    return {"user_id": "u1"} if side == "tenant" else {}


def _q(side: str) -> str:
    return "?user_id=u1" if side == "tenant" else ""


def _as_subject(url: str, user_id: str) -> str:
    """The URL naming `user_id` in its query string, instead of any other."""
    if "user_id=" in url:
        return re.sub(r"user_id=[^&]*", f"user_id={user_id}", url)
    return url + ("&" if "?" in url else "?") + f"user_id={user_id}"


def memory(w: World, side: str) -> str:
    return str(w.sides[side].memory.pk)


def conversation(w: World, side: str) -> str:
    return str(w.sides[side].conversation.pk)


def pending(w: World, side: str) -> str:
    return str(w.sides[side].pending.pk)


def entity(w: World, side: str) -> str:
    return f"/api/v1/entities/{w.sides[side].entity.pk}/"  # type: ignore[union-attr]


def relation(w: World, side: str) -> str:
    return f"/api/v1/relations/{w.sides[side].relation.pk}/"  # type: ignore[union-attr]


def alices_token(w: World, side: str) -> str:
    from api.models import UserToken

    pk = UserToken.objects.filter(user__username="alice").values_list("pk", flat=True)[0]
    return f"/api/v1/tokens/{pk}/"


def webhook(w: World, side: str) -> str:
    return f"/api/v1/webhooks/{w.sides[side].webhook.pk}/"  # type: ignore[union-attr]


def delivery(w: World, side: str) -> str:
    return f"{webhook(w, side)}deliveries/{w.sides[side].delivery.pk}/"  # type: ignore[union-attr]


ENDPOINTS = [
    Endpoint("memories_list", "get", lambda w, side: "/api/v1/memories/" + _q(side), subject="list"),
    Endpoint(
        "memories_create",
        "post",
        lambda w, side: "/api/v1/memories/",
        lambda side: {**_who(side), "content": "The user likes green tea."},
        "write",
    ),
    Endpoint(
        "memory_get",
        "get",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "memory_correct",
        "patch",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/",
        lambda side: {"content": "The user keeps a pet gecko."},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "memory_erase",
        "delete",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/",
        None,
        "erase",
        True,
        subject="by_id",
    ),
    Endpoint(
        "memory_history",
        "get",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/history/",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "memory_restore",
        "post",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/restore/",
        lambda side: {},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "memory_always_recall",
        "post",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/always-recall/",
        lambda side: {"always": False},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "erase_all",
        "post",
        lambda w, side: "/api/v1/memories/erase-all/",
        lambda side: {**_who(side), "confirm": True},
        "erase",
    ),
    Endpoint("export", "get", lambda w, side: "/api/v1/memories/export/" + _q(side), subject="list"),
    Endpoint(
        "memories_search",
        "post",
        lambda w, side: "/api/v1/memories/search/",
        lambda side: {**_who(side), "q": "pet"},
        subject="list",
    ),
    Endpoint(
        "memory_erase_with_sources",
        "delete",
        lambda w, side: f"/api/v1/memories/{memory(w, side)}/?erase_sources=true",
        None,
        "erase",
        True,
        subject="by_id",
    ),
    Endpoint("erasures", "get", lambda w, side: "/api/v1/erasures/" + _q(side), subject="list"),
    Endpoint(
        "recall",
        "post",
        lambda w, side: "/api/v1/recall/",
        lambda side: {**_who(side), "query": "pet"},
        subject="list",
    ),
    # people and places (issue 19)
    Endpoint("entities_list", "get", lambda w, side: "/api/v1/entities/" + _q(side), subject="list"),
    Endpoint("entity_get", "get", lambda w, side: entity(w, side) + _q(side), by_id=True, subject="by_id"),
    Endpoint(
        "entity_correct",
        "patch",
        lambda w, side: entity(w, side) + _q(side),
        lambda side: {"name": "Ana Lopes"},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "entity_erase",
        "delete",
        lambda w, side: entity(w, side) + _q(side),
        None,
        "erase",
        True,
        subject="by_id",
    ),
    Endpoint(
        "entity_merge",
        "post",
        lambda w, side: entity(w, side) + "merge/" + _q(side),
        scope="write",
        by_id=True,
        world_body=lambda w, side: {"into": str(w.sides[side].other_entity.pk)},  # type: ignore[union-attr],
        subject="by_id",
    ),
    Endpoint(
        "entity_split",
        "post",
        lambda w, side: entity(w, side) + "split/" + _q(side),
        scope="write",
        by_id=True,
        world_body=lambda w, side: {
            "memories": [str(w.sides[side].about_entity.pk)],  # type: ignore[union-attr]
            "name": "Ana Lopes",
        },
        subject="by_id",
    ),
    Endpoint("relations_list", "get", lambda w, side: "/api/v1/relations/" + _q(side), subject="list"),
    Endpoint(
        "relations_create",
        "post",
        lambda w, side: "/api/v1/relations/",
        None,
        "write",
        by_id=True,
        subject="by_id",
        world_body=lambda w, side: {
            **_who(side),
            "subject_id": str(w.sides[side].entity.pk),  # type: ignore[union-attr]
            "predicate": "role",
            "value": "pilot",
        },
    ),
    Endpoint(
        "entities_search",
        "get",
        lambda w, side: "/api/v1/entities/search/?q=Ana" + _q(side).replace("?", "&"),
        subject="list",
    ),
    Endpoint(
        "entities_observe",
        "post",
        lambda w, side: entity(w, side) + "observations/",
        lambda side: {**_who(side), "content": "The user's friend is vegetarian."},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint("graph_read", "get", lambda w, side: "/api/v1/graph/" + _q(side), subject="list"),
    Endpoint(
        "graph_clear",
        "post",
        lambda w, side: "/api/v1/graph/clear/",
        lambda side: {**_who(side), "confirm": True},
        "erase",
        subject="list",
    ),
    Endpoint(
        "relation_get", "get", lambda w, side: relation(w, side) + _q(side), by_id=True, subject="by_id"
    ),
    Endpoint(
        "relation_correct",
        "patch",
        lambda w, side: relation(w, side) + _q(side),
        lambda side: {"ended": True},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "relation_erase",
        "delete",
        lambda w, side: relation(w, side) + _q(side),
        None,
        "erase",
        True,
        subject="by_id",
    ),
    Endpoint(
        "conversations_create",
        "post",
        lambda w, side: "/api/v1/conversations/",
        lambda side: {**_who(side), "title": "Trip"},
        "write",
    ),
    Endpoint(
        "conversation_delete",
        "delete",
        lambda w, side: f"/api/v1/conversations/{conversation(w, side)}/" + _q(side),
        None,
        "erase",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "messages_list",
        "get",
        lambda w, side: f"/api/v1/conversations/{conversation(w, side)}/messages/" + _q(side),
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "messages_post",
        "post",
        lambda w, side: f"/api/v1/conversations/{conversation(w, side)}/messages/" + _q(side),
        lambda side: {"content": "Hello there"},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "conversation_close",
        "post",
        lambda w, side: f"/api/v1/conversations/{conversation(w, side)}/close/" + _q(side),
        lambda side: {},
        "write",
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "extractions_create",
        "post",
        lambda w, side: "/api/v1/extractions/",
        lambda side: {**_who(side), "messages": [{"role": "user", "content": "I like jazz."}]},
        "write",
    ),
    Endpoint(
        "extraction_get",
        "get",
        lambda w, side: f"/api/v1/extractions/{w.sides[side].job.pk}/" + _q(side),
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "extraction_retry",
        "post",
        lambda w, side: f"/api/v1/extractions/{w.sides[side].job.pk}/retry/" + _q(side),
        lambda side: {},
        "write",
        by_id=True,
        subject="by_id",
        owner_statuses=frozenset({409}),
    ),
    Endpoint(
        "imports_create",
        "post",
        lambda w, side: "/api/v1/imports/",
        lambda side: {**_who(side), "format": "text", "data": "- Likes jazz"},
        "write",
    ),
    Endpoint(
        "imports_dry_run",
        "post",
        lambda w, side: "/api/v1/imports/",
        lambda side: {**_who(side), "format": "text", "data": "- Likes jazz", "dry_run": True},
        "write",
    ),
    Endpoint(
        "import_get",
        "get",
        lambda w, side: f"/api/v1/imports/{w.sides[side].import_job.pk}/" + _q(side),  # type: ignore[union-attr]
        by_id=True,
        subject="by_id",
    ),
    Endpoint(
        "import_retry",
        "post",
        lambda w, side: f"/api/v1/imports/{w.sides[side].import_job.pk}/retry/" + _q(side),  # type: ignore[union-attr]
        lambda side: {},
        "write",
        by_id=True,
        subject="by_id",
        owner_statuses=frozenset({409}),
    ),
    Endpoint(
        "moderation_pending",
        "get",
        lambda w, side: "/api/v1/moderation/procedures/",
        None,
        "moderate",
        moderation=True,
    ),
    Endpoint(
        "moderation_approve",
        "post",
        lambda w, side: f"/api/v1/moderation/procedures/{pending(w, side)}/approve/",
        lambda side: {"agent_id": "support"} if side == "tenant" else {"namespace_path": "org/acme-ops"},
        "moderate",
        by_id=True,
        moderation=True,
    ),
    Endpoint(
        "moderation_reject",
        "post",
        lambda w, side: f"/api/v1/moderation/procedures/{pending(w, side)}/reject/",
        lambda side: {"reason": "Not our policy."},
        "moderate",
        by_id=True,
        moderation=True,
    ),
    # webhooks (tenant keys and operators)
    Endpoint("tokens_list", "get", lambda w, side: "/api/v1/tokens/", scope=None, users_only=True),
    Endpoint(
        "tokens_create",
        "post",
        lambda w, side: "/api/v1/tokens/",
        lambda side: {"name": "script", "scopes": ["read"]},
        None,
        users_only=True,
    ),
    Endpoint("tokens_revoke", "delete", alices_token, None, None, by_id=True, users_only=True),
    Endpoint("webhooks_list", "get", lambda w, side: "/api/v1/webhooks/", operators=True),
    Endpoint(
        "webhooks_create",
        "post",
        lambda w, side: "/api/v1/webhooks/",
        lambda side: {"url": "https://hooks.example.com/new", "events": ["memory.added"]},
        "write",
        operators=True,
    ),
    Endpoint("webhook_get", "get", webhook, by_id=True, operators=True),
    Endpoint(
        "webhook_update", "patch", webhook, lambda side: {"description": "CRM"}, "write", True, operators=True
    ),
    Endpoint("webhook_delete", "delete", webhook, None, "write", True, operators=True),
    Endpoint(
        "webhook_rotate",
        "post",
        lambda w, side: webhook(w, side) + "rotate-secret/",
        lambda side: {},
        "write",
        True,
        operators=True,
    ),
    Endpoint(
        "webhook_ping",
        "post",
        lambda w, side: webhook(w, side) + "ping/",
        lambda side: {},
        "write",
        True,
        operators=True,
    ),
    Endpoint(
        "webhook_deliveries",
        "get",
        lambda w, side: webhook(w, side) + "deliveries/" + _q(side),
        by_id=True,
        operators=True,
        subject="list",
    ),
    Endpoint(
        "webhook_replay",
        "post",
        lambda w, side: delivery(w, side) + "replay/" + _q(side),
        lambda side: {},
        "write",
        True,
        operators=True,
        subject="by_id",
    ),
    # mem0-compatible surface (tenant keys only)
    Endpoint("mem0_ping", "get", lambda w, side: "/v1/ping/", scope=None, tenant_only=True),
    Endpoint(
        "mem0_add",
        "post",
        lambda w, side: "/v3/memories/add/",
        lambda side: {
            "messages": [{"role": "user", "content": "I like jazz."}],
            "user_id": "u1",
            "infer": False,
        },
        "write",
        tenant_only=True,
    ),
    Endpoint(
        "mem0_search",
        "post",
        lambda w, side: "/v3/memories/search/",
        lambda side: {"query": "pet", "filters": {"user_id": "u1"}},
        tenant_only=True,
    ),
    Endpoint(
        "mem0_get_all",
        "post",
        lambda w, side: "/v3/memories/",
        lambda side: {"filters": {"user_id": "u1"}},
        tenant_only=True,
    ),
    Endpoint(
        "mem0_get",
        "get",
        lambda w, side: f"/v1/memories/{memory(w, side)}/" + _q(side),
        by_id=True,
        tenant_only=True,
        subject="by_id",
    ),
    Endpoint(
        "mem0_update",
        "put",
        lambda w, side: f"/v1/memories/{memory(w, side)}/" + _q(side),
        lambda side: {"text": "The user keeps a pet gecko."},
        "write",
        by_id=True,
        tenant_only=True,
        subject="by_id",
    ),
    Endpoint(
        "mem0_delete",
        "delete",
        lambda w, side: f"/v1/memories/{memory(w, side)}/" + _q(side),
        None,
        "erase",
        True,
        True,
        subject="by_id",
    ),
    Endpoint(
        "mem0_delete_all",
        "delete",
        lambda w, side: "/v1/memories/?user_id=u1",
        None,
        "erase",
        tenant_only=True,
    ),
    Endpoint(
        "mem0_delete_all_filters",
        "delete",
        lambda w, side: "/v1/memories/?filters=%7B%27user_id%27%3A+%27u1%27%7D&erase_sources=true",
        None,
        "erase",
        tenant_only=True,
    ),
    Endpoint(
        "mem0_history",
        "get",
        lambda w, side: f"/v1/memories/{memory(w, side)}/history/" + _q(side),
        by_id=True,
        tenant_only=True,
        subject="by_id",
    ),
    Endpoint(
        "mem0_event",
        "get",
        lambda w, side: f"/v1/event/{w.sides[side].job.pk}/" + _q(side),
        by_id=True,
        tenant_only=True,
        subject="by_id",
    ),
    Endpoint("mem0_users", "get", lambda w, side: "/v1/entities/", tenant_only=True),
    Endpoint(
        "mem0_delete_user", "delete", lambda w, side: "/v2/entities/user/u1/", None, "erase", tenant_only=True
    ),
    Endpoint(
        "mem0_batch_update",
        "put",
        lambda w, side: "/v1/batch/",
        scope="write",
        by_id=True,
        tenant_only=True,
        world_body=lambda w, side: {
            "memories": [{"memory_id": memory(w, side), "text": "The user has a gecko."}]
        },
    ),
    Endpoint(
        "mem0_batch_delete",
        "delete",
        lambda w, side: "/v1/batch/",
        scope="erase",
        by_id=True,
        tenant_only=True,
        world_body=lambda w, side: {"memories": [{"memory_id": memory(w, side)}]},
    ),
    Endpoint(
        "mem0_export_create",
        "post",
        lambda w, side: "/v1/exports/",
        lambda side: {"schema": "memory-export-v1", "filters": {"user_id": "u1"}},
        tenant_only=True,
    ),
    Endpoint(
        "mem0_export_get",
        "post",
        lambda w, side: "/v1/exports/get/",
        lambda side: {"filters": {"AND": [{"user_id": "u1"}]}},
        tenant_only=True,
    ),
    Endpoint(
        "mem0_export_get_by_id",
        "post",
        lambda w, side: "/v1/exports/get/",
        scope="read",
        by_id=True,
        tenant_only=True,
        world_body=lambda w, side: {"memory_export_id": _export_id(w), **_who(side)},
        subject="by_id",
    ),
    Endpoint(
        "mem0_feedback",
        "post",
        lambda w, side: "/v1/feedback/",
        scope="write",
        by_id=True,
        tenant_only=True,
        world_body=lambda w, side: {"memory_id": memory(w, side), "feedback": "NEGATIVE"},
    ),
    Endpoint("mem0_project", "get", lambda w, side: _project(w), by_id=True, tenant_only=True),
    Endpoint(
        "mem0_project_update",
        "patch",
        lambda w, side: _project(w),
        lambda side: {"custom_categories": [{"travel": "Trips"}]},
        "write",
        by_id=True,
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_project_delete",
        "delete",
        lambda w, side: _project(w),
        scope="erase",
        by_id=True,
        tenant_only=True,
        not_served=True,
    ),
    *(
        Endpoint(
            f"mem0_orgs_{method}",
            method,
            lambda w, side: f"{_project(w)}members/",
            scope=None,
            tenant_only=True,
            not_served=True,
        )
        for method in ("get", "post", "put", "delete")
    ),
    Endpoint(
        "mem0_summary",
        "post",
        lambda w, side: "/v1/summary/",
        lambda side: {"filters": {"user_id": "u1"}},
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_profile",
        "get",
        lambda w, side: "/v2/entities/user/u1/profile/",
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_webhooks_project_get",
        "get",
        lambda w, side: "/api/v1/webhooks/projects/acme/",
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_webhooks_project_post",
        "post",
        lambda w, side: "/api/v1/webhooks/projects/acme/",
        lambda side: {"url": "https://hooks.example.com/m", "name": "crm", "event_types": ["memory_add"]},
        "write",
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_webhook_put",
        "put",
        lambda w, side: "/api/v1/webhooks/7/",
        lambda side: {"name": "crm"},
        "write",
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_webhook_delete",
        "delete",
        lambda w, side: "/api/v1/webhooks/7/",
        None,
        "erase",
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_profile_jobs_get",
        "get",
        lambda w, side: "/v2/profiles/settings/",
        tenant_only=True,
        not_served=True,
    ),
    Endpoint(
        "mem0_profile_jobs_post",
        "post",
        lambda w, side: "/v2/profiles/jobs/",
        lambda side: {"operation": "trigger", "entity_type": "user", "entity_id": "u1"},
        "write",
        tenant_only=True,
        not_served=True,
    ),
]


def _export_id(w: World) -> str:
    """The id of an export of u1's memories, as the tenant asked for it."""
    body = {"schema": "memory-export-v1", "filters": {"user_id": "u1"}}
    return client_with(w.keys["all"]).post("/v1/exports/", body, format="json").json()["id"]


def _project(w: World) -> str:
    return f"/api/v1/orgs/organizations/{w.tenant.slug}/projects/{w.tenant.slug}/"


def expected(endpoint: Endpoint, caller: str) -> set[int]:
    if caller in ("anonymous", "revoked"):
        return {401}
    if caller == "wrong_scope":
        return {403}
    if caller in ("person", "operator", "other_person") and endpoint.tenant_only:
        return {403}
    if caller in ("tenant", "other_tenant") and endpoint.users_only:
        return {403}
    if caller in ("person", "other_person") and (endpoint.moderation or endpoint.operators):
        return {403}
    if caller in ("other_person", "other_tenant") and endpoint.by_id:
        return {404}
    if caller == "other_subject" and endpoint.subject == "by_id":
        return {404}
    if endpoint.not_served:
        return {501}
    return set(endpoint.owner_statuses)


def credential(world: World, endpoint: Endpoint, caller: str) -> str | None:
    return {
        "tenant": world.keys["all"],
        "person": world.tokens["alice"],
        "operator": world.tokens["olga"],
        "other_person": world.tokens["bob"],
        "other_tenant": world.keys["other_tenant"],
        "other_subject": world.keys["all"],
        "revoked": world.keys["revoked"],
        "wrong_scope": world.keys["no_read" if endpoint.scope == "read" else "read_only"],
        "anonymous": None,
    }[caller]


CASES = [
    pytest.param(endpoint, caller, id=f"{endpoint.name}-{caller}")
    for endpoint in ENDPOINTS
    for caller in CALLERS
    if not (caller == "operator" and not (endpoint.moderation or endpoint.operators))
    if not (caller == "wrong_scope" and endpoint.scope is None)
    if not (caller == "other_subject" and endpoint.subject is None)
]


@pytest.mark.parametrize(("endpoint", "caller"), CASES)
def test_it_enforces_who_may_call(db, world: World, endpoint: Endpoint, caller: str) -> None:
    side = CALLER_SIDE.get(caller, "tenant")
    client = client_with(credential(world, endpoint, caller))
    body = (
        endpoint.world_body(world, side)
        if endpoint.world_body
        else endpoint.body(side)
        if endpoint.body
        else None
    )
    path = endpoint.path(world, side)
    if caller == "other_subject":  # the tenant's own key, naming its other end user
        if isinstance(body, dict) and "user_id" in body:
            body = {**body, "user_id": "u2"}
        else:
            path = _as_subject(path, "u2")
    response = getattr(client, endpoint.method)(path, body, format="json")

    assert response.status_code in expected(endpoint, caller), response.content
    if response.status_code >= 400:
        assert response.json()["detail"]
    if caller in ("tenant", "person", "operator"):
        return
    # Someone else called: the owner's data is intact, and nothing of it leaked.
    for owner_side in ("tenant", "user"):
        mine = world.sides[owner_side]
        assert MemoryEntry.objects.filter(pk=mine.memory.pk, content=mine.secret, status="active").exists()
        assert MemoryEntry.objects.filter(pk=mine.pending.pk, status="pending_review").exists()
        assert Conversation.objects.filter(pk=mine.conversation.pk).exists()
        for needle in (mine.secret, str(mine.memory.pk), str(mine.pending.pk), str(mine.conversation.pk)):
            assert needle not in response.content.decode()


# --- The matrix against the URLconf --------------------------------------------------------------

# The schema and its docs are public and hold no one's data.
PUBLIC = {"api-schema", "api-docs", "api-redoc"}


def _api_routes() -> list[Route]:
    """Every DRF view anywhere, and anything else the api app serves (the mem0 routes included)."""
    return [
        route
        for route in routes()
        if (route.view_class is not None and issubclass(route.view_class, APIView))
        or (route.callback.__module__.startswith("api.") and route.callback.__module__ != "api.pages")
    ]  # api.pages: the /me/tokens/ page, a page with its own tests (tests/api/test_tokens.py)


def test_every_api_route_and_method_has_a_row(db, world: World) -> None:
    exposed: set[tuple[str, str]] = set()
    for route in _api_routes():
        if route.name in PUBLIC:
            continue
        assert route.name, f"{route.route} has no name"  # rows are matched to routes by name
        view = route.view_class
        # An ApiView brings the authentication, the scopes and the throttles this matrix checks.
        assert view is not None and issubclass(view, ApiView), f"{route.route} is not an ApiView"
        exposed |= {(route.name, method) for method in declared_methods(view)}
    rows = {
        (resolve(urlsplit(endpoint.path(world, side)).path).view_name, endpoint.method.upper())
        for endpoint in ENDPOINTS
        for side in ("tenant", "user")
    }
    assert sorted(exposed - rows) == [], "API routes without a row in ENDPOINTS"
    assert sorted(rows - exposed) == [], "rows in ENDPOINTS for no API route"
    assert {route.name for route in routes()} >= PUBLIC, "a public route listed here no longer exists"
