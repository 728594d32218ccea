"""Reads of the graph, always inside the actor's own namespaces; NotFound alike for missing and
someone else's ids (see docs/entities.md, Engine API)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from pgvector.django import CosineDistance

from memory_core.actors import Actor
from memory_core.entities.models import Entity, EntityMention, Relation, RelationSupport
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.models import MemoryEntry, MemoryStatus, Namespace


def _own(actor: Actor) -> Any:
    return Namespace.objects.owned_by(actor).values("pk")


def _uuid(value: Any, what: str) -> uuid.UUID:
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except (ValueError, TypeError, AttributeError):
        raise NotFound(f"{what} not found.") from None


def current_at(qs: QuerySet[Relation], at: datetime | None) -> QuerySet[Relation]:
    """Relations whose validity window holds `at` (now when None)."""
    moment = at or timezone.now()
    return qs.filter(Q(valid_from__lte=moment) | Q(start_known=False)).filter(
        Q(valid_to__isnull=True) | Q(valid_to__gt=moment)
    )


def entity_list(*, actor: Actor, kind: str | None = None, q: str | None = None) -> QuerySet[Entity]:
    if kind and kind not in EntityKind.values:
        raise MemoryServiceError(
            "Unknown kind.", field_errors={"kind": [f"Must be among {', '.join(EntityKind.values)}."]}
        )
    qs = Entity.objects.filter(namespace__in=_own(actor), is_self=False)
    if kind:
        qs = qs.filter(kind=kind)
    if q:
        needle = " ".join(q.split()).lower()
        qs = qs.filter(Q(name__icontains=needle) | Q(aliases__contains=[needle]))
    # Counted per entity by correlated subqueries (each an index lookup): counting over joins of
    # mentions x incoming x outgoing relations multiplies rows (a city with 40 residents: 1,600).
    return qs.annotate(
        relation_count=_counted(Relation.objects.filter(subject=OuterRef("pk")), "subject")
        + _counted(Relation.objects.filter(object=OuterRef("pk")), "object"),
        memory_count=_counted(EntityMention.objects.filter(entity=OuterRef("pk")), "entity", "entry"),
    ).order_by("name", "id")


def _counted(rows: QuerySet[Any], by: str, distinct: str | None = None) -> Coalesce:
    counted = Count(distinct, distinct=True) if distinct else Count("pk")
    return Coalesce(Subquery(rows.order_by().values(by).annotate(n=counted).values("n")[:1]), Value(0))


def entity_get(*, actor: Actor, entity_id: Any) -> Entity:
    try:
        return Entity.objects.get(pk=_uuid(entity_id, "Entity"), namespace__in=_own(actor), is_self=False)
    except (Entity.DoesNotExist, ValidationError):
        raise NotFound("Entity not found.") from None


@dataclass(frozen=True)
class EntityFacts:
    entity: Entity
    relations: list[Relation]
    memories: list[MemoryEntry]


def entity_facts(
    *, actor: Actor, entity_id: Any, at: datetime | None = None, history: bool = False
) -> EntityFacts:
    entity = entity_get(actor=actor, entity_id=entity_id)
    relations = Relation.objects.filter(Q(subject=entity) | Q(object=entity)).select_related(
        "subject", "object"
    )
    if not history:
        relations = current_at(relations, at)
    relations = relations.order_by("predicate", "-valid_from")
    related = list(relations)
    entry_ids = set(EntityMention.objects.filter(entity=entity).values_list("entry_id", flat=True))
    entry_ids |= set(RelationSupport.objects.filter(relation__in=related).values_list("entry_id", flat=True))
    memories = list(
        MemoryEntry.objects.filter(pk__in=entry_ids, namespace_id=entity.namespace_id)
        .defer("embedding", "context_embedding", "search_vector")
        .order_by("-recorded_at")
    )
    return EntityFacts(entity=entity, relations=related, memories=memories)


def relation_list(
    *,
    actor: Actor,
    entity_id: Any = None,
    predicate: str | None = None,
    at: datetime | None = None,
    history: bool = False,
) -> QuerySet[Relation]:
    if predicate and predicate not in Predicate.values:
        raise MemoryServiceError(
            "Unknown predicate.",
            field_errors={"predicate": [f"Must be among {', '.join(Predicate.values)}."]},
        )
    qs = Relation.objects.filter(namespace__in=_own(actor)).select_related("subject", "object")
    if entity_id is not None:
        entity = entity_get(actor=actor, entity_id=entity_id)
        qs = qs.filter(Q(subject=entity) | Q(object=entity))
    if predicate:
        qs = qs.filter(predicate=predicate)
    if not history:
        qs = current_at(qs, at)
    return qs.order_by("-valid_from", "id")


# Below this cosine similarity a name or a statement says nothing about the query (all-MiniLM:
# unrelated short texts score 0.0-0.2).
SEARCH_MIN_SIMILARITY = 0.25


@dataclass(frozen=True)
class EntityHit:
    entity: Entity
    score: float
    matched: str  # "name" (a name or alias), "meaning" (its name), or "memory" (a statement about it)


def entity_search(
    *, actor: Actor, query: str, vector: list[float], model: str, limit: int
) -> list[EntityHit]:
    """Entities for a query, best first: by name or alias (score 1), then by meaning, the
    similarity of the query to the entity's name or to the statements that mention it."""
    hits: dict[Any, EntityHit] = {}
    for entity in entity_list(actor=actor, q=query)[:limit]:
        hits[entity.pk] = EntityHit(entity, 1.0, "name")
    own = Entity.objects.filter(namespace__in=_own(actor), is_self=False).defer("embedding")
    by_name = (
        own.filter(embedding__isnull=False, embedding_model=model)
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:limit]
    )
    for entity in by_name:
        _keep(hits, EntityHit(entity, 1 - float(entity.distance), "meaning"))  # type: ignore[attr-defined]
    statements = (
        MemoryEntry.objects.filter(
            namespace__in=_own(actor),
            status=MemoryStatus.ACTIVE,
            embedding__isnull=False,
            embedding_model=model,
        )
        .filter(Exists(EntityMention.objects.filter(entry=OuterRef("pk"))))
        .annotate(distance=CosineDistance("embedding", vector))
        # `+ 0`: an exact scan of the actor's statements. The HNSW index would take the nearest
        # statements of every tenant and filter after, so other users' nearer ones hid the actor's.
        .order_by(F("distance") + 0)
        .values_list("pk", "distance")[: limit * 4]
    )
    closeness = {pk: 1 - float(distance) for pk, distance in statements}
    mentions = EntityMention.objects.filter(entry_id__in=closeness, entity__is_self=False).select_related(
        "entity"
    )
    for found in mentions.defer("entity__embedding"):
        _keep(hits, EntityHit(found.entity, closeness[found.entry_id], "memory"))
    ranked = sorted(hits.values(), key=lambda hit: (-hit.score, hit.entity.name))
    return [hit for hit in ranked if hit.score >= SEARCH_MIN_SIMILARITY][:limit]


def _keep(hits: dict[Any, EntityHit], hit: EntityHit) -> None:
    if hit.entity.pk not in hits or hits[hit.entity.pk].score < hit.score:
        hits[hit.entity.pk] = hit


@dataclass(frozen=True)
class GraphPage:
    entities: list[Entity]
    relations: list[Relation]
    count: int


def graph_page(
    *, actor: Actor, limit: int, offset: int, at: datetime | None = None, history: bool = False
) -> GraphPage:
    """A page of the actor's entities (by name) and every relation that touches one of them: those
    that hold at `at` (now), or all with `history`. Bounded by the page size."""
    entities_qs = Entity.objects.filter(namespace__in=_own(actor), is_self=False).defer("embedding")
    entities = list(entities_qs.order_by("name", "id")[offset : offset + limit])
    ids = [entity.pk for entity in entities]
    relations = Relation.objects.filter(Q(subject_id__in=ids) | Q(object_id__in=ids)).select_related(
        "subject", "object"
    )
    if not history:
        relations = current_at(relations, at)
    related = list(relations.prefetch_related("support").order_by("-valid_from", "id")[: limit * 10])
    return GraphPage(entities=entities, relations=related, count=entities_qs.count())


def relation_get(*, actor: Actor, relation_id: Any) -> Relation:
    try:
        return Relation.objects.select_related("subject", "object").get(
            pk=_uuid(relation_id, "Relation"), namespace__in=_own(actor)
        )
    except Relation.DoesNotExist:
        raise NotFound("Relation not found.") from None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def entity_dict(entity: Entity) -> dict[str, Any]:
    return {
        "id": str(entity.pk),
        "kind": entity.kind,
        "name": entity.name,
        "named": entity.named,
        "aliases": list(entity.aliases),
        "is_self": entity.is_self,
        "created_at": _iso(entity.created_at),
    }


def _end(entity: Entity | None) -> dict[str, Any] | None:
    if entity is None:
        return None
    return {"id": str(entity.pk), "name": entity.name, "kind": entity.kind, "is_self": entity.is_self}


def relation_dict(relation: Relation) -> dict[str, Any]:
    return {
        "id": str(relation.pk),
        "subject": _end(relation.subject),
        "predicate": relation.predicate,
        "label": relation.label,
        "object": _end(relation.object),
        "value": relation.value,
        "status": relation.status,
        "valid_from": _iso(relation.valid_from),
        "valid_to": _iso(relation.valid_to),
        # False: said undated of others, it may have held before `valid_from` (docs/entities.md).
        "start_known": relation.start_known,
        "recorded_at": _iso(relation.recorded_at),
        "superseded_by": str(relation.superseded_by_id) if relation.superseded_by_id else None,
        "confidence": relation.confidence,
        "extractor": relation.extractor,
        "memories": [str(s.entry_id) for s in relation.support.all()],
    }


def entities_export(*, namespace_ids: list[int]) -> dict[str, Any]:
    """Every entity and relation of these namespaces (history included), for the user's export."""
    entities = Entity.objects.filter(namespace_id__in=namespace_ids).order_by("created_at", "id")
    relations = (
        Relation.objects.filter(namespace_id__in=namespace_ids)
        .select_related("subject", "object")
        .prefetch_related("support")
        .order_by("valid_from", "id")
    )
    mentions: dict[uuid.UUID, list[str]] = {}
    for entity_id, entry_id in EntityMention.objects.filter(namespace_id__in=namespace_ids).values_list(
        "entity_id", "entry_id"
    ):
        mentions.setdefault(entity_id, []).append(str(entry_id))
    return {
        "entities": [{**entity_dict(e), "memories": sorted(set(mentions.get(e.pk, [])))} for e in entities],
        "relations": [relation_dict(r) for r in relations],
    }
