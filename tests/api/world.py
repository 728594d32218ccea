"""A small world for authorization tests: a tenant with an end user and an agent, a person with a
personal token, and another of each, every one holding memories, a conversation, an extraction job
and a procedure waiting for review."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import Permission

from api.models import Tenant
from api.services import (
    api_key_issue,
    api_key_revoke,
    tenant_agent_ensure,
    tenant_create,
    tenant_user_ensure,
    user_token_issue,
)
from chat.models import Conversation
from chat.services import conversation_create
from memory_core.entities.models import Entity, Relation
from memory_core.extraction.jobs import extraction_enqueue
from memory_core.imports import import_create
from memory_core.models import ExtractionJob, ImportJob, MemoryEntry, NamespaceKind
from memory_core.pipeline import memory_add
from memory_core.services import namespace_create, namespace_for_user
from memory_core.webhooks.dispatch import OPERATORS, tenant_audience
from memory_core.webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from memory_core.webhooks.services import endpoint_create

TENANT_SECRET = "The user keeps a pet iguana named Zorblax."
PERSON_SECRET = "The user collects antique barometers from Quillfield."


@dataclass
class Side:
    """One owner's things: the person (or the tenant's shadow user) and what they hold."""

    user: Any
    memory: MemoryEntry
    conversation: Conversation
    job: ExtractionJob
    pending: MemoryEntry
    secret: str
    entity: Entity | None = None  # Ana, the user's sister (issue 19)
    other_entity: Entity | None = None  # Bea, a colleague: what Ana may be merged into
    relation: Relation | None = None  # (the user) sibling (Ana)
    about_entity: MemoryEntry | None = None  # the memory that speaks of Ana
    webhook: WebhookEndpoint | None = None
    delivery: WebhookDelivery | None = None
    import_job: ImportJob | None = None


@dataclass
class World:
    tenant: Tenant
    other_tenant: Tenant
    keys: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    sides: dict[str, Side] = field(default_factory=dict)


def _side(user: Any, namespace: Any, secret: str, conversation_ref: str) -> Side:
    memory = memory_add(namespace=namespace, content=secret, actor=user).entry
    pending = memory_add(
        namespace=namespace,
        content="Always escalate refunds over 500 EUR to a supervisor.",
        type="procedural",
    ).entry
    job = extraction_enqueue(
        namespace=namespace,
        source_conversation=conversation_ref,
        messages=[{"id": "1", "role": "user", "content": "I live in Lisbon."}],
    )
    assert memory is not None and pending is not None and job is not None
    imported = import_create(namespace=namespace, format="text", data="Likes green tea", actor_kind="user")
    conversation = conversation_create(user=user, title="Hello")
    side = Side(user, memory, conversation, job, pending, secret, import_job=imported)
    side.about_entity = memory_add(namespace=namespace, content="My sister Ana is a nurse.", actor=user).entry
    memory_add(namespace=namespace, content="My colleague Bea plays chess.", actor=user)
    side.entity = Entity.objects.get(namespace=namespace, name="Ana")
    side.other_entity = Entity.objects.get(namespace=namespace, name="Bea")
    side.relation = Relation.objects.get(namespace=namespace, predicate="sibling", object=side.entity)
    return side


def _webhook(side: Side, audience: str) -> None:
    """An endpoint and a delivery that quotes the side's memory (a leak would show it)."""
    side.webhook, _ = endpoint_create(
        audience=audience, url="https://hooks.example.com/in", events=["memory.added"]
    )
    event = WebhookEvent.objects.create(
        type="memory.added",
        audience=audience,
        namespace_ref=side.memory.namespace_id,
        entry_refs=[side.memory.pk],
        has_content=True,
        payload={"data": {"memory": {"id": str(side.memory.pk), "content": side.secret}}},
    )
    side.delivery = WebhookDelivery.objects.create(event=event, endpoint=side.webhook, status="succeeded")


def build_world(*, alice: Any, bob: Any, olga: Any) -> World:
    tenant = tenant_create(name="Acme", slug="acme", created_by=olga)
    world = World(tenant=tenant, other_tenant=tenant_create(name="Globex", slug="globex"))
    world.keys = {
        "all": api_key_issue(tenant=tenant, scopes=["read", "write", "erase", "moderate"])[1],
        "other_tenant": api_key_issue(
            tenant=world.other_tenant, scopes=["read", "write", "erase", "moderate"]
        )[1],
        "read_only": api_key_issue(tenant=tenant, scopes=["read"])[1],
        "no_read": api_key_issue(tenant=tenant, scopes=["write", "erase", "moderate"])[1],
    }
    revoked, world.keys["revoked"] = api_key_issue(
        tenant=tenant, scopes=["read", "write", "erase", "moderate"]
    )
    api_key_revoke(prefix=revoked.prefix)
    # The other tenant has an end user with the same external id: it must stay a different person.
    tenant_user_ensure(tenant=world.other_tenant, external_id="u1")
    shadow, namespace = tenant_user_ensure(tenant=tenant, external_id="u1")
    # A second end user of the same tenant: naming them must never reach u1's things.
    u2, u2_namespace = tenant_user_ensure(tenant=tenant, external_id="u2")
    memory_add(namespace=u2_namespace, content="The user plays the oboe.", actor=u2)
    tenant_agent_ensure(tenant=tenant, agent_id="support")
    world.sides["tenant"] = _side(shadow, namespace, TENANT_SECRET, "t-conv")
    world.sides["user"] = _side(alice, namespace_for_user(user=alice), PERSON_SECRET, "a-conv")
    namespace_create(path="org/acme-ops", kind=NamespaceKind.ORG)
    _webhook(world.sides["tenant"], tenant_audience(tenant.pk))
    _webhook(world.sides["user"], OPERATORS)  # olga's, an operator's
    olga.user_permissions.add(Permission.objects.get(codename="moderate_memories"))
    world.tokens = {
        name: user_token_issue(user=u).key for name, u in (("alice", alice), ("bob", bob), ("olga", olga))
    }
    return world
