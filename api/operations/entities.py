"""The knowledge graph for the API and MCP alike (issue 19): whose graph a call reaches (the
caller's own, or one of the tenant's end users'), pages of entities and relations, an entity in
full, erasing an entity and correcting a relation."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Prefetch, prefetch_related_objects
from django.utils import timezone
from rest_framework.request import Request

from api.auth import Caller, tenant_of
from api.base import requester_of
from api.selectors import reach, subject_for
from api.serializers import core as s
from api.services import memories_add
from api.subjects import Subject
from memory_core.choices import AddAction
from memory_core.embeddings import get_embedder
from memory_core.entities import selectors as graph
from memory_core.entities import services as graph_services
from memory_core.entities.models import Entity, Relation, RelationSupport
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.export import receipt_dict
from memory_core.models import ErasureVia, MemoryEntry
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


# --- Search, the graph page, direct links, clearing (issue 31) ------------------------------------


def entity_search_for(request: Request | Caller, params: dict[str, Any]) -> dict[str, Any]:
    """Entities by name or meaning (validated `EntitySearchQuerySerializer` params), best first."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return {"results": []}
    embedder = get_embedder()
    hits = graph.entity_search(
        actor=subject.actor,
        query=params["q"],
        vector=embedder.embed_query(params["q"]),
        model=embedder.name,
        limit=params["limit"],
    )
    return {
        "results": [
            {**graph.entity_dict(hit.entity), "score": round(hit.score, 4), "matched": hit.matched}
            for hit in hits
        ]
    }


def graph_for(request: Request | Caller, params: dict[str, Any]) -> dict[str, Any]:
    """A page of the subject's graph: entities by name and the relations that touch them."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    limit, offset = params["limit"], params["offset"]
    if subject is None:
        return {"count": 0, "next_offset": None, "entities": [], "relations": []}
    found = graph.graph_page(
        actor=subject.actor, limit=limit, offset=offset, at=params.get("at"), history=params["history"]
    )
    following = offset + len(found.entities)
    return {
        "count": found.count,
        "next_offset": following if following < found.count else None,
        "entities": [graph.entity_dict(e) for e in found.entities],
        "relations": [graph.relation_dict(r) for r in found.relations],
    }


def graph_clear_for(request: Request | Caller, params: dict[str, Any]) -> dict[str, Any]:
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return {"entities": 0, "relations": 0}
    return graph_services.graph_clear(actor=subject.actor)


def _statement_written(request: Request | Caller, subject: Subject, item: dict[str, Any]) -> MemoryEntry:
    """The statement a direct link rests on, through the write pipeline as any API add (guards,
    reconciliation); refused unless it is stored (a secret, a rule waiting for review, taken back)."""
    [outcome] = memories_add(subject=subject, items=[item], api_key=tenant_of(request) is not None)
    if outcome.entry is None or outcome.action not in _STORED:
        reason = outcome.reason or f"The statement was {outcome.action}."
        raise MemoryServiceError(f"Not stored: {reason}", field_errors={"content": [reason]})
    return outcome.entry


_STORED = frozenset({AddAction.ADDED, AddAction.MERGED, AddAction.SUPERSEDED})


def _subject_of(request: Request | Caller, params: dict[str, Any]) -> Subject:
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:  # a tenant's user not seen yet holds no entity
        raise NotFound("Entity not found.")
    return subject


def relation_create_for(request: Request | Caller, params: dict[str, Any]) -> dict[str, Any]:
    """subject —predicate→ object or value, resting on a statement written for it (validated
    `RelationCreateSerializer` params plus the address); the relation and that statement. All or
    nothing: a refused statement leaves no trace (not even the user's own entity)."""
    whose = _subject_of(request, params)
    predicate = params["predicate"]
    with transaction.atomic():
        subject, obj, value = graph_services.relation_ends(
            actor=whose.actor, namespace_id=whose.namespace.pk, subject_id=params["subject_id"],
            predicate=predicate, object_id=params.get("object_id"), value=params.get("value") or "",
        )  # fmt: skip
        label = params.get("label") or predicate
        content = graph_services.relation_statement(
            subject=subject, predicate=predicate, label=label, obj=obj, value=value
        )
        item = {"content": content, "valid_from": params.get("valid_from")}
        entry = _statement_written(request, whose, {k: v for k, v in item.items() if v})
        relation = graph_services.relation_link(
            actor=whose.actor, entry=entry, subject=subject, predicate=predicate, obj=obj, value=value,
            label=label,
        )  # fmt: skip
    return {**graph.relation_dict(relation), "statement": {"id": str(entry.pk), "content": entry.content}}


def observation_add_for(request: Request | Caller, entity_id: Any, params: dict[str, Any]) -> dict[str, Any]:
    """A statement about an entity (validated `ObservationSerializer` params plus the address),
    written through the pipeline and linked to it; the memory and the entity."""
    whose = _subject_of(request, params)
    entity = graph.entity_get(actor=whose.actor, entity_id=entity_id)
    if entity.namespace_id != whose.namespace.pk:
        raise NotFound("Entity not found.")
    with transaction.atomic():
        item = {"content": params["content"], "valid_from": params.get("valid_from")}
        entry = _statement_written(request, whose, {k: v for k, v in item.items() if v})
        graph_services.entity_observe(actor=whose.actor, entity_id=entity.pk, entry=entry)
    return {"entity": graph.entity_dict(entity), "memory": s.MemoryOutSerializer(entry).data}
