"""The user's changes to the graph: correct, merge, split and erase entities; link, correct and
erase relations; attach an observation to an entity; clear the graph. Atomic, under the namespace
lock the write pipeline takes, inside the actor's own namespaces (`selectors`); see
docs/entities.md."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from memory_core.actors import Actor
from memory_core.entities.erasure import entities_prune
from memory_core.entities.models import (
    NAME_MAX_CHARS,
    Entity,
    EntityMention,
    Relation,
    RelationEnding,
    RelationSupport,
)
from memory_core.entities.record import mention as mention_record
from memory_core.entities.record import relation_put
from memory_core.entities.resolve import Resolver, alias_of
from memory_core.entities.rules import SELF, Triple
from memory_core.entities.selectors import entity_get, relation_get
from memory_core.entities.vocabulary import VALUE_PREDICATES, EntityKind, Predicate, RelationStatus
from memory_core.erasure import Requester, memory_erase
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.locks import lock_namespace
from memory_core.models import ErasureReceipt, MemoryEntry, Namespace


def _lock(namespace_id: int) -> None:
    lock_namespace(namespace_id)


def _entity_locked(*, actor: Actor, entity_id: Any) -> Entity:
    """The entity, read again once its namespace is locked: a change that held the lock first may
    have merged or erased it (NotFound then, not a stale row saved back or a foreign-key error)."""
    entity = entity_get(actor=actor, entity_id=entity_id)
    _lock(entity.namespace_id)
    return entity_get(actor=actor, entity_id=entity.pk)


def _relation_locked(*, actor: Actor, relation_id: Any) -> Relation:
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
def entity_correct(
    *, actor: Actor, entity_id: Any, name: str | None = None, kind: str | None = None
) -> Entity:
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
def entity_merge(*, actor: Actor, entity_id: Any, into_id: Any) -> Entity:
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
def entity_split(*, actor: Actor, entity_id: Any, entry_ids: list[Any], name: str) -> Entity:
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


def entity_erase(*, actor: Actor, entity_id: Any, requester: Requester | None = None) -> list[ErasureReceipt]:
    """Forget everything about the entity: every memory that mentions it or supports one of its
    relations is erased (with the tombstones and receipts of `memory_core.erasure`, each naming
    `requester`), then the entity. The receipts, one per memory erased (none when no memory
    spoke of it)."""
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
    *, actor: Actor, relation_id: Any, value: str | None = None, valid_to: datetime | None = None
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
        # The user's end stands: no statement's ending moves it, nor reopens it when withdrawn.
        RelationEnding.objects.filter(relation=relation).delete()
    relation.save(update_fields=["value", "valid_to", "status"])
    return relation


@transaction.atomic
def relation_erase(*, actor: Actor, relation_id: Any) -> None:
    """Delete the relation and its support (the memories stay); entities left bare go too."""
    relation = _relation_locked(actor=actor, relation_id=relation_id)
    relation.delete()
    entities_prune(namespace_ids=[relation.namespace_id])


# --- Direct links: a relation or an observation a caller states (docs/entities.md) -----------------

SELF_ID = "user"  # the namespace's own user, as a relation's subject
DIRECT_EXTRACTOR = "direct"
# How a direct relation reads as the statement it rests on (a memory like any other).
_PHRASES: dict[str, str] = {Predicate.WORKS_AT: "{s} works at {o}.", Predicate.LIVES_IN: "{s} lives in {o}."}


def _words(entity: Entity) -> str:
    return "The user" if entity.is_self else entity.name


def relation_statement(*, subject: Entity, predicate: str, label: str, obj: Entity | None, value: str) -> str:
    """The sentence a direct relation rests on: "Ana's spouse is Marc.", "Ana works at Acme."."""
    other = _words(obj) if obj is not None else value
    phrase = _PHRASES.get(predicate, "{s}'s {l} is {o}.")
    owner = _words(subject)
    return phrase.format(s=owner, o=other, l=label or predicate.replace("_", " "))


def relation_ends(
    *,
    actor: Actor,
    namespace_id: int,
    subject_id: Any,
    predicate: str,
    object_id: Any = None,
    value: str = "",
) -> tuple[Entity, Entity | None, str]:
    """The ends of a relation a caller asks for in the namespace `namespace_id` (the actor's),
    checked before anything is written: the subject (an entity, or `SELF_ID`: the user), the
    object entity or the value (cleaned). NotFound alike for missing and someone else's."""
    if predicate not in Predicate.values:
        raise MemoryServiceError(
            "Unknown predicate.",
            field_errors={"predicate": [f"Must be among {', '.join(Predicate.values)}."]},
        )
    wants_value = predicate in VALUE_PREDICATES or (predicate == Predicate.OTHER and object_id is None)
    if wants_value != bool(value) or wants_value == (object_id is not None):
        field = "value" if wants_value else "object"
        raise MemoryServiceError(
            "Give either an object entity or a value.",
            field_errors={field: ["role takes a value; other predicates link two entities (object)."]},
        )
    ends = [
        entity_get(actor=actor, entity_id=pk) for pk in (subject_id, object_id) if pk not in (None, SELF_ID)
    ]
    if any(end.namespace_id != namespace_id for end in ends):
        raise NotFound("Entity not found.")
    subject = Resolver(namespace_id).self_entity() if str(subject_id) == SELF_ID else ends.pop(0)
    obj = ends[0] if ends else None
    if obj is not None and obj.pk == subject.pk:
        raise MemoryServiceError(
            "A relation links two different entities.", field_errors={"object": ["Same as the subject."]}
        )
    return subject, obj, _clean_name(value) if value else ""


@transaction.atomic
def relation_link(
    *,
    actor: Actor,
    entry: MemoryEntry,
    subject: Entity,
    predicate: str,
    obj: Entity | None,
    value: str,
    label: str,
) -> Relation:
    """subject —predicate→ obj (or value), resting on `entry`, the statement the caller just wrote
    for it (`relation_statement`): erasing that memory takes the relation with it."""
    _lock(subject.namespace_id)
    triple = Triple(SELF, predicate, (label or predicate)[:80], value=value)
    relation = relation_put(entry=entry, subject=subject, triple=triple, obj=obj, extractor=DIRECT_EXTRACTOR)
    for end in (subject, obj):
        if end is not None:
            mention_record(entry=entry, entity=end, words=[_alias(end)])
    return relation_get(actor=actor, relation_id=relation.pk)


def _alias(entity: Entity) -> str:
    return alias_of(entity.name) if entity.named or not entity.aliases else entity.aliases[0]


@transaction.atomic
def entity_observe(*, actor: Actor, entity_id: Any, entry: MemoryEntry) -> Entity:
    """`entry` (a statement the caller just wrote) is about the entity: a mention links them, so the
    entity's memories list it and erasing either keeps the other consistent."""
    entity = _entity_locked(actor=actor, entity_id=entity_id)
    if entry.namespace_id != entity.namespace_id:
        raise NotFound("Entity not found.")
    mention_record(entry=entry, entity=entity, words=[_alias(entity)])
    return entity


@transaction.atomic
def graph_clear(*, actor: Actor) -> dict[str, int]:
    """Delete the actor's whole graph (entities, relations, mentions); the memories stay, and
    later statements build it again. Counts of what went."""
    namespaces = list(Namespace.objects.owned_by(actor).order_by("pk").values_list("pk", flat=True))
    for namespace_id in namespaces:
        _lock(namespace_id)
    relations = Relation.objects.filter(namespace_id__in=namespaces).count()
    entities = Entity.objects.filter(namespace_id__in=namespaces, is_self=False).count()
    Entity.objects.filter(namespace_id__in=namespaces).delete()  # relations and mentions cascade
    return {"entities": entities, "relations": relations}
