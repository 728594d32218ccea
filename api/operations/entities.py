"""The knowledge graph for the API and MCP alike (issue 19): whose graph a call reaches (the
caller's own, or one of the tenant's end users'), pages of entities and relations, an entity in
full, erasing an entity and correcting a relation."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, prefetch_related_objects
from django.utils import timezone
from rest_framework.request import Request

from api.auth import Caller, tenant_of
from api.base import requester_of
from api.selectors import reach, subject_for
from api.serializers import core as s
from memory_core.entities import selectors as graph
from memory_core.entities import services as graph_services
from memory_core.entities.models import Entity, Relation, RelationSupport
from memory_core.errors import NotFound
from memory_core.export import receipt_dict
from memory_core.models import ErasureVia
from memory_core.selectors import parse_uuid

_SUPPORT = Prefetch("support", queryset=RelationSupport.objects.only("relation_id", "entry_id"))


# --- Whose graph: the caller's own, or one of the tenant's end users' ------------------------------


def _owner_of(
    request: Request | Caller, model: Any, object_id: Any, what: str, address: dict[str, Any]
) -> Any:
    """The user to act as for this entity or relation: the caller itself, or the shadow owner of
    the tenant's namespace that holds it (the named user's or agent's only, when the call names
    one: `api.selectors.reach`). Missing and someone else's are alike (404)."""
    scope = reach(request, user_id=address.get("user_id"), agent_id=address.get("agent_id"))
    if tenant_of(request) is None:
        return request.user
    pk = parse_uuid(object_id)
    row = (
        model.objects.filter(pk=pk, namespace__in=scope).select_related("namespace__owner").first()
        if pk is not None
        else None
    )
    if row is None or row.namespace.owner is None:
        raise NotFound(f"{what} not found.")
    return row.namespace.owner


def entity_owner(request: Request | Caller, entity_id: Any, address: dict[str, Any]) -> Any:
    return _owner_of(request, Entity, entity_id, "Entity", address)


def relation_owner(request: Request | Caller, relation_id: Any, address: dict[str, Any]) -> Any:
    return _owner_of(request, Relation, relation_id, "Relation", address)


# --- Pages, details and changes -------------------------------------------------------------------


def entity_rows(request: Request | Caller, params: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """One page of the addressed user's entities (validated `EntityListQuerySerializer` params)."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return [], 0
    qs = graph.entity_list(actor=subject.actor, kind=params.get("kind"), q=params.get("q")).defer("embedding")
    limit, offset = params["limit"], params["offset"]
    counted: list[Any] = list(qs[offset : offset + limit])  # annotated by entity_list
    rows = [
        {**graph.entity_dict(e), "relation_count": e.relation_count, "memory_count": e.memory_count}
        for e in counted
    ]
    return rows, qs.count()


def entity_detail(request: Request | Caller, entity_id: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The entity, its relations (at `at`, or all with `history`) and its source memories."""
    actor = entity_owner(request, entity_id, params)
    facts = graph.entity_facts(
        actor=actor, entity_id=entity_id, at=params.get("at"), history=params.get("history", False)
    )
    prefetch_related_objects(facts.relations, _SUPPORT)  # their memories, in one query
    for entry in facts.memories:
        entry.namespace = facts.entity.namespace  # one namespace: saves a query per memory
    return {
        **graph.entity_dict(facts.entity),
        "relations": [graph.relation_dict(r) for r in facts.relations],
        "memories": s.MemoryOutSerializer(facts.memories, many=True).data,
    }


def entity_erase_for(
    request: Request | Caller, entity_id: Any, params: dict[str, Any], via: str = ErasureVia.API
) -> dict[str, Any]:
    """Erase every memory that mentions the entity or supports one of its relations, each with its
    receipt naming who asked; the graph prunes the entity and its relations with them."""
    actor = entity_owner(request, entity_id, params)
    receipts = graph_services.entity_erase(
        actor=actor, entity_id=entity_id, requester=requester_of(request, via)
    )
    return {"erased": sum(r.entries for r in receipts), "receipts": [receipt_dict(r) for r in receipts]}


def relation_rows(request: Request | Caller, params: dict[str, Any]) -> tuple[list[Relation], int]:
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return [], 0
    entity_id = params.get("entity")
    if entity_id is not None:
        entity_owner(request, entity_id, params)  # the tenant's and this user's, or 404
    qs = graph.relation_list(
        actor=subject.actor,
        entity_id=entity_id,
        predicate=params.get("predicate"),
        at=params.get("at"),
        history=params["history"],
    ).prefetch_related(_SUPPORT)
    limit, offset = params["limit"], params["offset"]
    return list(qs[offset : offset + limit]), qs.count()


def relation_correct_for(request: Request | Caller, relation_id: Any, params: dict[str, Any]) -> Relation:
    actor = relation_owner(request, relation_id, params)
    valid_to = timezone.now() if params.get("ended") else params.get("valid_to")
    return graph_services.relation_correct(
        actor=actor, relation_id=relation_id, value=params.get("value"), valid_to=valid_to
    )
