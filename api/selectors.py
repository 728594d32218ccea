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
from datetime import datetime
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db.models import Q, QuerySet
from rest_framework.request import Request

from api.auth import Caller, tenant_of
from api.models import Tenant, TenantNamespace, TenantUser
from api.subjects import Subject, address_error, subject_address
from chat.models import Conversation
from chat.selectors import conversation_access
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.lexical import query_text
from memory_core.models import SEARCH_CONFIG, ExtractionJob, MemoryEntry, Namespace
from memory_core.selectors import extraction_job_access, memory_access, memory_access_in, parse_uuid
from memory_core.services import namespace_for_user


def subject_for(
    request: Request | Caller, *, user_id: str | None, agent_id: str | None, agents: bool = True
) -> Subject | None:
    """The subject a request addresses; None for a tenant id never used before. Creates no tenant
    entity (writes use `api.services.subject_ensure`); a person's own namespace is made on first use
    by the engine, as on every page."""
    tenant = tenant_of(request)
    address = subject_address(tenant=tenant, user_id=user_id, agent_id=agent_id, agents=agents)
    if tenant is None or address is None:
        return Subject(actor=request.user, namespace=namespace_for_user(user=request.user))
    kind, external_id = address
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
    request: Request | Caller, *, memory_id: Any, user_id: str | None = None, agent_id: str | None = None
) -> tuple[Any, MemoryEntry]:
    """The entry and the user to act as: the caller itself, or the shadow owner of a tenant's namespace."""
    tenant = tenant_of(request)
    if tenant is None:
        if user_id or agent_id:
            raise address_error("user_id and agent_id are for tenant API keys.")
        return request.user, memory_access(actor=request.user, memory_id=memory_id)
    entry = memory_access_in(namespace_ids=tenant_namespace_ids(tenant), memory_id=memory_id)
    if user_id or agent_id:
        # Narrowed to one user or agent: someone else's entry is "not found" too.
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
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
            Q(search_vector=SearchQuery(query_text(q), config=SEARCH_CONFIG, search_type="plain"))
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


def procedure_in_scope(request: Request, *, memory_id: Any) -> None:
    """A tenant key moderates only its own tenant's proposals: anyone else's is "not found" (404).
    Operators reach every namespace, as the moderation page does."""
    tenant = tenant_of(request)
    if tenant is not None:
        memory_access_in(namespace_ids=tenant_namespace_ids(tenant), memory_id=memory_id)


def moderation_target(request: Request, *, namespace_path: str | None, agent_id: str | None) -> str | None:
    """Where an approved SOP goes. A tenant key may only name one of its own agents."""
    tenant = tenant_of(request)
    if tenant is None:
        if agent_id:
            raise MemoryServiceError(
                "agent_id is for tenant keys.", field_errors={"agent_id": ["Use namespace_path."]}
            )
        return namespace_path
    if namespace_path:
        raise MemoryServiceError(
            "Tenant keys name the target agent.", field_errors={"namespace_path": ["Use agent_id."]}
        )
    if not agent_id:
        return None
    subject = subject_for(request, user_id=None, agent_id=agent_id)
    if subject is None:
        raise MemoryServiceError("Unknown agent.", field_errors={"agent_id": [f"No agent {agent_id!r}."]})
    return subject.namespace.path
