"""Reads of the API layer: whose memories a request addresses, and the tenant's reach.

Two kinds of caller (see `api.auth`):
- a person (personal token or session) reaches only their own memories, as the pages do;
- a tenant key reaches the namespaces listed for its tenant in `TenantNamespace`, addressing an
  end user by `user_id` or an agent by `agent_id`. By-id lookups search the tenant's namespaces
  and then act as the namespace's owner (a shadow user), so the engine's per-user services apply.
Missing and someone else's are answered alike (404).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db.models import Q, QuerySet
from rest_framework.request import Request

from api.auth import tenant_of
from api.models import EntityKind, Tenant, TenantNamespace, TenantUser
from api.services import tenant_agent_ensure, tenant_user_ensure
from chat.models import Conversation
from chat.selectors import conversation_access
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.models import SEARCH_CONFIG, ExtractionJob, MemoryEntry, Namespace
from memory_core.selectors import extraction_job_access, memory_access, memory_access_in, parse_uuid
from memory_core.services import namespace_for_user


@dataclass(frozen=True)
class Subject:
    """Whose memories: `actor` owns `namespace` (a person, or a tenant's shadow user)."""

    actor: Any
    namespace: Namespace
    kind: str = EntityKind.USER
    external_id: str = ""  # the tenant's id for it; "" for a person acting on their own memories
    tenant: Tenant | None = None


def _address_error(message: str, field: str = "user_id") -> MemoryServiceError:
    return MemoryServiceError(message, field_errors={field: [message]})


def subject_for(
    request: Request, *, user_id: str | None, agent_id: str | None, create: bool, agents: bool = True
) -> Subject | None:
    """The subject a request addresses; None for a tenant id never used before (when not `create`)."""
    tenant = tenant_of(request)
    if tenant is None:
        if user_id or agent_id:
            raise _address_error(
                "user_id and agent_id are for tenant API keys; "
                "a personal token reaches only your own memories.",
                "user_id" if user_id else "agent_id",
            )
        return Subject(actor=request.user, namespace=namespace_for_user(user=request.user))
    if bool(user_id) == bool(agent_id):
        raise _address_error(
            "Give either user_id or agent_id." if not user_id else "Give user_id or agent_id, not both."
        )
    if agent_id and not agents:
        raise _address_error("This endpoint is for end users: give user_id.", "agent_id")
    if create:
        if user_id:
            actor, namespace = tenant_user_ensure(tenant=tenant, external_id=user_id)
            return Subject(actor, namespace, EntityKind.USER, user_id, tenant)
        actor, namespace = tenant_agent_ensure(tenant=tenant, agent_id=str(agent_id))
        return Subject(actor, namespace, EntityKind.AGENT, str(agent_id), tenant)
    kind, external_id = (EntityKind.USER, user_id) if user_id else (EntityKind.AGENT, str(agent_id))
    link = (
        TenantNamespace.objects.select_related("namespace__owner")
        .filter(tenant=tenant, kind=kind, external_id=external_id)
        .first()
    )
    if link is None or link.namespace.owner is None:
        return None
    return Subject(link.namespace.owner, link.namespace, kind, external_id, tenant)


def tenant_namespace_ids(tenant: Tenant) -> QuerySet[TenantNamespace, Mapping[str, Any]]:
    return TenantNamespace.objects.filter(tenant=tenant).values("namespace_id")


def memory_for(
    request: Request, *, memory_id: Any, user_id: str | None = None, agent_id: str | None = None
) -> tuple[Any, MemoryEntry]:
    """The entry and the user to act as: the caller itself, or the shadow owner of a tenant's namespace."""
    tenant = tenant_of(request)
    if tenant is None:
        if user_id or agent_id:
            raise _address_error("user_id and agent_id are for tenant API keys.")
        return request.user, memory_access(actor=request.user, memory_id=memory_id)
    entry = memory_access_in(namespace_ids=tenant_namespace_ids(tenant), memory_id=memory_id)
    if user_id or agent_id:
        # Narrowed to one user or agent: someone else's entry is "not found" too.
        subject = subject_for(request, user_id=user_id, agent_id=agent_id, create=False)
        if subject is None or subject.namespace.pk != entry.namespace_id:
            raise NotFound("Memory not found.")
    if entry.namespace.owner is None:
        raise NotFound("Memory not found.")
    return entry.namespace.owner, entry


def memories_filtered(
    qs: QuerySet[MemoryEntry],
    *,
    q: str | None = None,
    recorded_after: datetime | None = None,
    recorded_before: datetime | None = None,
) -> QuerySet[MemoryEntry]:
    """Narrow a `memory_list` result: text search (full text, or a substring for ids) and a date range."""
    if q:
        qs = qs.filter(
            Q(search_vector=SearchQuery(q, config=SEARCH_CONFIG, search_type="plain"))
            | Q(content__icontains=q)
            | Q(key__icontains=q)
        )
    if recorded_after:
        qs = qs.filter(recorded_at__gte=recorded_after)
    if recorded_before:
        qs = qs.filter(recorded_at__lt=recorded_before)
    return qs.defer("embedding", "search_vector")


def tenant_links(tenant: Tenant, namespace_ids: list[int]) -> dict[int, TenantNamespace]:
    """How the tenant names each of these namespaces (kind and external id), in one query."""
    rows = TenantNamespace.objects.filter(tenant=tenant, namespace_id__in=namespace_ids)
    return {row.namespace_id: row for row in rows}


def entity_of(*, namespace_id: int) -> tuple[str, str] | None:
    """(kind, external id) of a tenant's namespace; None for namespaces no tenant owns."""
    link = (
        TenantNamespace.objects.filter(namespace_id=namespace_id).values_list("kind", "external_id").first()
    )
    return (link[0], link[1]) if link is not None else None


def namespace_subject(tenant: Tenant, *, namespace_id: int) -> Subject:
    link = TenantNamespace.objects.select_related("namespace__owner").get(
        tenant=tenant, namespace_id=namespace_id
    )
    return Subject(link.namespace.owner, link.namespace, link.kind, link.external_id, tenant)


def tenant_entities(tenant: Tenant) -> QuerySet[TenantNamespace]:
    return TenantNamespace.objects.filter(tenant=tenant).order_by("kind", "external_id")


def tenant_entity(tenant: Tenant, *, kind: str, external_id: str) -> TenantNamespace:
    link = (
        TenantNamespace.objects.select_related("namespace__owner")
        .filter(tenant=tenant, kind=kind, external_id=external_id)
        .first()
    )
    if link is None:
        raise NotFound(f"No {kind} {external_id!r}.")
    return link


def conversation_for(request: Request, *, conversation_id: Any) -> tuple[Any, Conversation]:
    """The conversation and its user: the caller's own, or one of the tenant's end users'."""
    tenant = tenant_of(request)
    if tenant is None:
        return request.user, conversation_access(user=request.user, conversation_id=conversation_id)
    pk = parse_uuid(conversation_id)
    if pk is None:
        raise NotFound("Conversation not found.")
    owner = (
        TenantUser.objects.filter(tenant=tenant, user__conversations__pk=pk).select_related("user").first()
    )
    if owner is None:
        raise NotFound("Conversation not found.")
    return owner.user, conversation_access(user=owner.user, conversation_id=pk)


def extraction_job_for(request: Request, *, job_id: Any) -> ExtractionJob:
    tenant = tenant_of(request)
    scope: QuerySet[Any, Mapping[str, Any]]  # a one-column subquery of namespace ids
    if tenant is None:
        scope = Namespace.objects.owned_by(request.user).values("id")
    else:
        scope = tenant_namespace_ids(tenant)
    return extraction_job_access(namespace_ids=scope, job_id=job_id)
