"""The user's changes to the graph: correct, merge, split and erase entities; correct and erase
relations. Atomic, under the namespace lock the write pipeline takes, inside the actor's own
namespaces (`selectors`); see docs/entities.md."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone

from memory_core.entities.erasure import entities_prune
from memory_core.entities.models import NAME_MAX_CHARS, Entity, EntityMention, Relation, RelationSupport
from memory_core.entities.resolve import alias_of
from memory_core.entities.selectors import entity_get, relation_get
from memory_core.entities.vocabulary import EntityKind, RelationStatus
from memory_core.errors import MemoryServiceError
from memory_core.locks import lock_namespace
from memory_core.models import ErasureReceipt, MemoryEntry

if TYPE_CHECKING:
    from memory_core.erasure import Requester


def _lock(namespace_id: int) -> None:
    lock_namespace(namespace_id)


def _entity_locked(*, actor: Any, entity_id: Any) -> Entity:
    """The entity, read again once its namespace is locked: a change that held the lock first may
    have merged or erased it (NotFound then, not a stale row saved back or a foreign-key error)."""
    entity = entity_get(actor=actor, entity_id=entity_id)
    _lock(entity.namespace_id)
    return entity_get(actor=actor, entity_id=entity.pk)


def _relation_locked(*, actor: Any, relation_id: Any) -> Relation:
    relation = relation_get(actor=actor, relation_id=relation_id)
    _lock(relation.namespace_id)
    return relation_get(actor=actor, relation_id=relation.pk)


def _clean_name(name: str) -> str:
    text = " ".join(str(name).split())
    if not text:
        raise MemoryServiceError("A name is required.", field_errors={"name": ["Must not be blank."]})
    if len(text) > NAME_MAX_CHARS:
        raise MemoryServiceError(
            "Name too long.", field_errors={"name": [f"At most {NAME_MAX_CHARS} characters."]}
        )
    return text


@transaction.atomic
def entity_correct(*, actor: Any, entity_id: Any, name: str | None = None, kind: str | None = None) -> Entity:
    """Rename (the new name becomes an alias too) or re-kind an entity."""
    entity = _entity_locked(actor=actor, entity_id=entity_id)
    if kind is not None:
        if kind not in EntityKind.values:
            raise MemoryServiceError(
                "Unknown kind.", field_errors={"kind": [f"Must be among {', '.join(EntityKind.values)}."]}
            )
        entity.kind = kind
    if name is not None:
        entity.name, entity.named = _clean_name(name), True
        entity.aliases = sorted(set(entity.aliases) | {alias_of(entity.name)})
        # The name rests on the memories that speak of the entity, as a mention of each: the next
        # prune (any erasure in the namespace) re-derives aliases and names from the mentions, and
        # would otherwise undo the correction; erasing those memories takes the name with them.
        entries = set(EntityMention.objects.filter(entity=entity).values_list("entry_id", flat=True))
        EntityMention.objects.bulk_create(
            [
                EntityMention(
                    namespace_id=entity.namespace_id,
                    entity=entity,
                    entry_id=entry,
                    surface=alias_of(entity.name),
                )
                for entry in entries
            ],
            ignore_conflicts=True,
        )
    entity.save(update_fields=["name", "named", "kind", "aliases", "updated_at"])
    return entity


@transaction.atomic
def entity_merge(*, actor: Any, entity_id: Any, into_id: Any) -> Entity:
    """`entity_id` is the same as `into_id`: its mentions and relations move there; it goes."""
    source = _entity_locked(actor=actor, entity_id=entity_id)
    target = entity_get(actor=actor, entity_id=into_id)
    if source.pk == target.pk:
        raise MemoryServiceError(
            "An entity cannot be merged into itself.", field_errors={"into": ["Same entity."]}
        )
    if source.namespace_id != target.namespace_id:
        raise MemoryServiceError(
            "Entities of different memories cannot be merged.", field_errors={"into": ["Other namespace."]}
        )
    for mention in EntityMention.objects.filter(entity=source):
        EntityMention.objects.get_or_create(
            namespace_id=mention.namespace_id,
            entity=target,
            entry_id=mention.entry_id,
            surface=mention.surface,
        )
    Relation.objects.filter(subject=source).update(subject=target)
    Relation.objects.filter(object=source).update(object=target)
    Relation.objects.filter(subject=target, object=target).delete()  # "Ana is Ana's sister": nothing
    target.aliases = sorted(set(target.aliases) | set(source.aliases))
    if not target.named and source.named:
        target.name, target.named = source.name, True
    target.save(update_fields=["aliases", "name", "named", "updated_at"])
    source.delete()
    return target


@transaction.atomic
def entity_split(*, actor: Any, entity_id: Any, entry_ids: list[Any], name: str) -> Entity:
    """The memories `entry_ids` speak of someone else, called `name`: their mentions and the
    relations resting only on them move to a new entity."""
    entity = _entity_locked(actor=actor, entity_id=entity_id)
    wanted = set(map(str, entry_ids))
    try:
        ids = [uuid.UUID(e) for e in wanted]
    except ValueError:
        ids = []
    entries = set(
        MemoryEntry.objects.filter(namespace_id=entity.namespace_id, pk__in=ids).values_list("pk", flat=True)
    )
    if not entries or len(entries) != len(wanted):
        raise MemoryServiceError(
            "Unknown memories.", field_errors={"entry_ids": ["Must be memories that mention this entity."]}
        )
    new = Entity.objects.create(
        namespace_id=entity.namespace_id, kind=entity.kind, name=_clean_name(name), aliases=[alias_of(name)]
    )
    EntityMention.objects.filter(entity=entity, entry_id__in=entries).update(entity=new)
    for relation in Relation.objects.filter(subject=entity) | Relation.objects.filter(object=entity):
        supported = set(RelationSupport.objects.filter(relation=relation).values_list("entry_id", flat=True))
        if supported and supported <= entries:
            if relation.subject_id == entity.pk:
                relation.subject = new
            if relation.object_id == entity.pk:
                relation.object = new
            relation.save(update_fields=["subject", "object"])
    entities_prune(namespace_ids=[entity.namespace_id])
    return new


def entity_erase(*, actor: Any, entity_id: Any, requester: Requester | None = None) -> list[ErasureReceipt]:
    """Forget everything about the entity: every memory that mentions it or supports one of its
    relations is erased (with the tombstones and receipts of `memory_core.erasure`, each naming
    `requester`), then the entity. The receipts, one per memory erased (none when no memory
    spoke of it)."""
    from memory_core.erasure import memory_erase

    entity = entity_get(actor=actor, entity_id=entity_id)
    entry_ids = set(EntityMention.objects.filter(entity=entity).values_list("entry_id", flat=True))
    entry_ids |= set(
        RelationSupport.objects.filter(relation__in=Relation.objects.filter(subject=entity))
        .union(RelationSupport.objects.filter(relation__in=Relation.objects.filter(object=entity)))
        .values_list("entry_id", flat=True)
    )
    receipts = []
    for entry_id in entry_ids:
        if MemoryEntry.objects.filter(pk=entry_id).exists():  # an older version erased with a newer
            receipts.append(memory_erase(actor=actor, memory_id=entry_id, requester=requester))
    with transaction.atomic():
        _lock(entity.namespace_id)
        Entity.objects.filter(pk=entity.pk).delete()
        entities_prune(namespace_ids=[entity.namespace_id])
    return receipts


@transaction.atomic
def relation_correct(
    *, actor: Any, relation_id: Any, value: str | None = None, valid_to: datetime | None = None
) -> Relation:
    """Correct a value relation's value, or end a relation (`valid_to`: it no longer holds)."""
    relation = _relation_locked(actor=actor, relation_id=relation_id)
    if value is not None:
        if relation.object_id is not None:
            raise MemoryServiceError(
                "This relation links two entities; correct or merge the entities instead.",
                field_errors={"value": ["Only for relations to a value."]},
            )
        relation.value = _clean_name(value)
    if valid_to is not None:
        if timezone.is_naive(valid_to):
            raise MemoryServiceError(
                "Invalid date.", field_errors={"valid_to": ["Must include a time zone."]}
            )
        if valid_to < relation.valid_from:
            raise MemoryServiceError(
                "Invalid date.", field_errors={"valid_to": ["Must not be before the relation began."]}
            )
        relation.valid_to, relation.status = valid_to, RelationStatus.SUPERSEDED
    relation.save(update_fields=["value", "valid_to", "status"])
    return relation


@transaction.atomic
def relation_erase(*, actor: Any, relation_id: Any) -> None:
    """Delete the relation and its support (the memories stay); entities left bare go too."""
    relation = _relation_locked(actor=actor, relation_id=relation_id)
    relation.delete()
    entities_prune(namespace_ids=[relation.namespace_id])
