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

from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet
from rest_framework.request import Request

from api.auth import Caller, tenant_of
from api.models import EntityKind, Tenant, TenantNamespace
from api.rows import Columns, fetch_one
from api.subjects import Subject, address_error, subject_address
from chat.models import Conversation
from chat.selectors import conversation_access
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.lexical import TsQuery, own_words_query
from memory_core.models import ExtractionJob, MemoryEntry, Namespace
from memory_core.selectors import extraction_job_access, memory_access, memory_access_in, parse_uuid
from memory_core.services import namespace_for_user

_NAMESPACE, _OWNER = Columns(Namespace, "n"), Columns(get_user_model(), "u")
# The subject's namespace and owner, as
# TenantNamespace.objects.select_related("namespace__owner").filter(tenant=…, kind=…, external_id=…)
# reads them, as text (api.rows); the owner's id last, NULL for a namespace without an owner.
_SUBJECT = (
    f"SELECT {_NAMESPACE.sql}, {_OWNER.sql}, u.id FROM {TenantNamespace._meta.db_table} l "  # noqa: S608
    f"JOIN {Namespace._meta.db_table} n ON n.id = l.namespace_id "
    f"LEFT JOIN {get_user_model()._meta.db_table} u ON u.id = n.owner_id "
    "WHERE l.tenant_id = %s AND l.kind = %s AND l.external_id = %s"
)


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
    row = fetch_one(_SUBJECT, [tenant.pk, kind, external_id])
    if row is None or row[-1] is None:  # never used, or a namespace without its owner
        return None
    namespace = _NAMESPACE.instance(row)
    owner = _OWNER.instance(row, len(_NAMESPACE))
    Namespace.owner.field.set_cached_value(namespace, owner)
    return Subject(owner, namespace, kind, external_id, tenant)


def tenant_namespace_ids(tenant: Tenant) -> QuerySet[TenantNamespace, Mapping[str, Any]]:
    return TenantNamespace.objects.filter(tenant=tenant).values("namespace_id")


def reach(
    request: Request | Caller, *, user_id: str | None = None, agent_id: str | None = None
) -> QuerySet[Any, Mapping[str, Any]]:
    """The namespaces (a one-column subquery of ids) in which a by-id read or write may find its
    object: the one subject rule every by-id access passes through. A person: their own. A tenant
    key: all of its end users' and agents', or, when the call names one (`user_id` / `agent_id`),
    that one's only. An object outside is "not found", exactly as a missing one; a name the tenant
    never used reaches nothing."""
    tenant = tenant_of(request)
    if tenant is None:
        if user_id or agent_id:
            raise address_error(
                "user_id and agent_id are for tenant API keys.", "user_id" if user_id else "agent_id"
            )
        return Namespace.objects.owned_by(request.user).values("id")
    if user_id and agent_id:
        raise address_error("Give user_id or agent_id, not both.")
    links = TenantNamespace.objects.filter(tenant=tenant)
    if user_id:
        links = links.filter(kind=EntityKind.USER, external_id=str(user_id))
    elif agent_id:
        links = links.filter(kind=EntityKind.AGENT, external_id=str(agent_id))
    return links.values("namespace_id")


def reaches(scope: QuerySet[Any, Mapping[str, Any]], *, namespace_id: int | None) -> bool:
    """Whether a namespace is inside a `reach`."""
    if namespace_id is None:
        return False
    return Namespace.objects.filter(pk__in=scope).filter(pk=namespace_id).exists()


def memory_for(
    request: Request | Caller, *, memory_id: Any, user_id: str | None = None, agent_id: str | None = None
) -> tuple[Any, MemoryEntry]:
    """The entry and the user to act as: the caller itself, or the shadow owner of a tenant's namespace."""
    scope = reach(request, user_id=user_id, agent_id=agent_id)
    if tenant_of(request) is None:
        # A person also sees, by id, the procedures shared with them (`visible_to`).
        return request.user, memory_access(actor=request.user, memory_id=memory_id)
    entry = memory_access_in(namespace_ids=scope, memory_id=memory_id)
    if entry.namespace.owner is None:
        raise NotFound("Memory not found.")
    return entry.namespace.owner, entry


def memories_filtered(
    qs: QuerySet[MemoryEntry],
    *,
    q: str | None = None,
    recorded_after: datetime | None = None,
    recorded_before: datetime | None = None,
    updated_after: datetime | None = None,
    updated_before: datetime | None = None,
    valid_after: datetime | None = None,
    valid_before: datetime | None = None,
) -> QuerySet[MemoryEntry]:
    """Narrow a `memory_list` result: text search (full text, or a substring for ids) and date
    ranges: when it was learned, last changed, and when it held (its window overlaps the range)."""
    if q:
        qs = qs.filter(
            Q(search_vector=TsQuery(own_words_query(q))) | Q(content__icontains=q) | Q(key__icontains=q)
        )
    if recorded_after:
        qs = qs.filter(recorded_at__gte=recorded_after)
    if recorded_before:
        qs = qs.filter(recorded_at__lt=recorded_before)
    if updated_after:
        qs = qs.filter(updated_at__gte=updated_after)
    if updated_before:
        qs = qs.filter(updated_at__lt=updated_before)
    if valid_after:
        qs = qs.filter(Q(valid_to__isnull=True) | Q(valid_to__gt=valid_after))
    if valid_before:
        qs = qs.filter(valid_from__lt=valid_before)
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


def conversation_for(
    request: Request | Caller,
    *,
    conversation_id: Any,
    user_id: str | None = None,
    agent_id: str | None = None,
) -> tuple[Any, Conversation]:
    """The conversation and its user: the caller's own, or one of the tenant's end users' (the one
    named, when the call names one)."""
    scope = reach(request, user_id=user_id, agent_id=agent_id)
    if tenant_of(request) is None:
        return request.user, conversation_access(user=request.user, conversation_id=conversation_id)
    pk = parse_uuid(conversation_id)
    owners = Namespace.objects.filter(pk__in=scope).values("owner")
    found = (
        Conversation.objects.filter(pk=pk, user__in=owners).select_related("user").first()
        if pk is not None
        else None
    )
    if found is None:
        raise NotFound("Conversation not found.")
    return found.user, found


def extraction_job_for(
    request: Request | Caller, *, job_id: Any, user_id: str | None = None, agent_id: str | None = None
) -> ExtractionJob:
    scope = reach(request, user_id=user_id, agent_id=agent_id)
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
