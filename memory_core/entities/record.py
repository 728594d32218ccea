"""Writing what a statement says about entities: mentions, relations and their support, and the
supersede rule for single-valued predicates. Called under the namespace lock."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.db.models import CharField, Q, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Least
from django.utils import timezone

from memory_core import prepared
from memory_core.entities.models import (
    NAME_MAX_CHARS,
    Entity,
    EntityMention,
    Relation,
    RelationEnding,
    RelationSupport,
)
from memory_core.entities.resolve import Resolver, alias_of, surfaces
from memory_core.entities.rules import _STOP_NAMES, Reading, Ref, Triple
from memory_core.entities.vocabulary import SINGLE_VALUED, Predicate, RelationStatus
from memory_core.models import MemoryEntry

# Relations that read the same both ways: "Ana is my sister's spouse" is "… spouse is Ana".
SYMMETRIC = frozenset(
    {Predicate.SPOUSE, Predicate.PARTNER, Predicate.SIBLING, Predicate.FRIEND, Predicate.COLLEAGUE}
)
_WORD = re.compile(r"[A-Z][\w'\u00c0-\u024f-]*(?:\s+[A-Z][\w'\u00c0-\u024f-]*){0,2}")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_OPENERS = _STOP_NAMES


def record_reading(
    *,
    entry: MemoryEntry,
    reading: Reading,
    resolver: Resolver,
    extractor: str,
    known_names: bool = True,
    into: list[EntityMention] | None = None,
) -> None:
    """Resolve the reading's refs, mention them, record its triples with `entry` as support;
    with `known_names`, also the known entities it names in passing (`mention_known_names`).
    `into`: the mention rows are gathered there for the caller's one INSERT (`mentions_insert`)."""
    resolved = [resolver.resolve(ref) for ref in reading.refs]
    for ref, entity in zip(reading.refs, resolved, strict=True):
        mention(entry=entry, entity=entity, words=surfaces(ref), into=into)
    for triple in reading.triples:
        if triple.ended:
            relation_end(entry=entry, triple=triple, resolver=resolver)
        else:
            relation_record(entry=entry, triple=triple, resolver=resolver, extractor=extractor)
    if known_names:
        mention_known_names([(entry, {e.pk for e in resolved})], into=into)


def mention(
    *, entry: MemoryEntry, entity: Entity, words: list[str], into: list[EntityMention] | None = None
) -> None:
    """`entity` is mentioned by `entry` with `words`, which become its aliases too; the rows are
    inserted at once, or gathered `into` the caller's list for its one INSERT."""
    if entity.is_self:
        return  # every "I" statement would link to the user: no signal for recall
    said = dict.fromkeys(word[:NAME_MAX_CHARS] for word in words)
    namespace_id = entry.namespace_id
    rows = [EntityMention(namespace_id=namespace_id, entity=entity, entry=entry, surface=w) for w in said]
    if into is None:
        mentions_insert(rows)
    else:
        into.extend(rows)
    merged = sorted(set(entity.aliases) | set(words))
    if merged != sorted(entity.aliases):
        entity.aliases = merged
        entity.save(update_fields=["aliases", "updated_at"])


def mentions_insert(rows: list[EntityMention]) -> None:
    """One INSERT … ON CONFLICT DO NOTHING (the `mention_unique` constraint) for all the rows: a
    SELECT, a savepoint and an INSERT per word before; safe under concurrent writers too. Nothing
    in a write reads mentions back, so its rows can wait for the end of its reading."""
    if rows:
        EntityMention.objects.bulk_create(rows, ignore_conflicts=True)


def candidate_names(text: str) -> list[str]:
    """The capitalised words and word runs, and the Chinese substrings (2-6 characters), of a
    text, lower-cased: what may be an entity's alias (sentence openers such as "The" left out)."""
    names: set[str] = set()
    for match in _WORD.finditer(text):
        words = match.group(0).split()
        for size in range(1, len(words) + 1):
            for start in range(len(words) - size + 1):
                names.add(alias_of(" ".join(words[start : start + size])))
    names -= _OPENERS
    for run in _CJK_RUN.findall(text):
        for size in range(2, min(6, len(run)) + 1):
            names.update(run[start : start + size] for start in range(len(run) - size + 1))
    return sorted(names)


def mention_known_names(
    entries: list[tuple[MemoryEntry, set[Any]]], *, into: list[EntityMention] | None = None
) -> None:
    """Known entities named in passing ("Ana loves hiking") by any of `entries` (each with the
    ids of the entities its reading already mentions): one query for them all, none without names;
    `into` as for `mention`."""
    wanted = {entry.pk: set(candidate_names(entry.content)) for entry, _ in entries}
    names: set[str] = set().union(*wanted.values()) if wanted else set()
    if not names:
        return
    namespaces = tuple(sorted({entry.namespace_id for entry, _ in entries}))
    known = prepared.run("entities named", _named_any, [namespaces, tuple(sorted(names))])
    # "Aaron brews beer" after "my team lead is Aaron Cho": a given name said alone names the one
    # person of the namespace known by a full name that starts with it (two Aarons: neither).
    given: dict[tuple[int, str], list[Entity]] = {}
    for entity in known:
        if entity.given:
            given.setdefault((entity.namespace_id, entity.given), []).append(entity)
    for entry, seen in entries:
        for entity in known:
            if entity.namespace_id != entry.namespace_id or entity.pk in seen:
                continue
            hit = [alias for alias in entity.aliases if alias in wanted[entry.pk]]
            alone = entity.given and len(given[(entity.namespace_id, entity.given)]) == 1
            if not hit and alone and entity.given in wanted[entry.pk]:
                hit = [entity.given]
            if hit:
                mention(entry=entry, entity=entity, words=hit[:1], into=into)


# A person's given name: the first word of a name of two or three ("tom" of "Tom Hargreaves"), or
# the last two characters of a Chinese name of three ("建国" of "林建国"); NULL for other names.
_GIVEN_NAME = (
    "CASE WHEN kind = 'person' AND name ~ '^[^ ]+( [^ ]+){1,2}$' THEN lower(split_part(name, ' ', 1)) "
    "WHEN kind = 'person' AND name ~ '^[\u4e00-\u9fff]{3}$' THEN substr(name, 2) END"
)


def _named_any(namespace_ids: tuple[int, ...], names: list[str]) -> Any:
    """The named entities of the namespaces called by any of `names`, or known by a full name whose
    given name is one of them (`mention_known_names`; compiled once: `prepared`)."""
    return (
        Entity.objects.filter(namespace_id__in=namespace_ids, is_self=False, named=True)
        .annotate(given=RawSQL(_GIVEN_NAME, [], output_field=CharField()))  # noqa: S611 - constant SQL
        .filter(Q(aliases__overlap=names) | Q(given__in=names))
    )


def relation_record(*, entry: MemoryEntry, triple: Triple, resolver: Resolver, extractor: str) -> Relation:
    subject = resolver.resolve(triple.subject)
    obj = resolver.resolve(triple.object) if triple.object is not None else None
    return relation_put(entry=entry, subject=subject, triple=triple, obj=obj, extractor=extractor)


def relation_end(*, entry: MemoryEntry, triple: Triple, resolver: Resolver) -> int:
    """ "We divorced", "I left Acme": the subject's current relations of that predicate (with
    that other end, when named) end when the statement says (`valid_from`), so a point-in-time
    question after it no longer walks them; one before still does. Nothing is created: an end
    of a relation never stated has nothing to close. Each ending is kept with its statement
    (`RelationEnding`), so that erasing or correcting the statement withdraws it; a relation
    another statement already ended also keeps this one, and ends at the earlier of the two.
    The number of relations ended."""
    subject = resolver.resolve(triple.subject)
    end: datetime = entry.valid_from or timezone.now()
    ended = _end(entry, end, Q(predicate=triple.predicate) & _ends_of(subject, triple, resolver))
    if triple.predicate == Predicate.WORKS_AT and triple.object is not None:
        # "I left my job at Halden": whoever was one's boss or colleague there no longer is.
        there = Relation.objects.filter(
            namespace_id=entry.namespace_id,
            predicate=Predicate.WORKS_AT,
            object=resolver.resolve(triple.object),
            status=RelationStatus.ACTIVE,
        ).values("subject_id")
        ended += _end(
            entry,
            end,
            Q(subject=subject, predicate__in=(Predicate.MANAGER, Predicate.COLLEAGUE), object__in=there),
        )
    return ended


def _end(entry: MemoryEntry, end: datetime, which: Q) -> int:
    """End the relations `which` picks that hold before `end`: the current ones, and those that
    only statements ended (never a window a newer relation or the user closed)."""
    ids = list(
        Relation.objects.filter(namespace_id=entry.namespace_id, valid_from__lt=end)
        .filter(which)
        .filter(
            Q(status=RelationStatus.ACTIVE)
            | Q(status=RelationStatus.SUPERSEDED, superseded_by__isnull=True, endings__entry__isnull=False)
        )
        .values_list("pk", flat=True)
        .distinct()
    )
    if not ids:
        return 0
    RelationEnding.objects.bulk_create(
        [RelationEnding(namespace_id=entry.namespace_id, relation_id=pk, entry=entry, at=end) for pk in ids],
        ignore_conflicts=True,
    )
    return Relation.objects.filter(pk__in=ids).update(
        status=RelationStatus.SUPERSEDED, valid_to=Least(Coalesce("valid_to", Value(end)), Value(end))
    )


def _ends_of(subject: Entity, triple: Triple, resolver: Resolver) -> Q:
    symmetric = triple.predicate in SYMMETRIC
    if triple.object is None:
        return Q(subject=subject) | Q(object=subject) if symmetric else Q(subject=subject)
    obj = resolver.resolve(triple.object)
    same = Q(subject=subject, object=obj)
    return same | Q(subject=obj, object=subject) if symmetric else same


def relation_put(
    *, entry: MemoryEntry, subject: Entity, triple: Triple, obj: Entity | None, extractor: str
) -> Relation:
    """subject —triple.predicate→ obj (or triple.value), resting on `entry`: the current relation
    that says so, or a new one (superseding the subject's current one of a single-valued
    predicate). Entities already resolved: the extractors' and a caller's direct links alike."""
    value = triple.value.strip()[:NAME_MAX_CHARS] if obj is None else ""
    existing = _current(entry.namespace_id, subject, triple.predicate, obj, value)
    if existing is None:
        existing = _create(entry, subject, triple, obj, value, extractor)
    # Kept as it is when the entry already supports the relation (`relation_support_unique`).
    RelationSupport.objects.bulk_create(
        [
            RelationSupport(
                relation=existing,
                entry=entry,
                namespace_id=entry.namespace_id,
                source_conversation=entry.source_conversation,
                source_message_ids=list(entry.source_message_ids),
            )
        ],
        ignore_conflicts=True,
    )
    return existing


def _current(
    namespace_id: int, subject: Entity, predicate: str, obj: Entity | None, value: str
) -> Relation | None:
    same = Q(subject=subject, object=obj, value=value) if obj is not None else Q(subject=subject, value=value)
    if obj is not None and predicate in SYMMETRIC:
        same |= Q(subject=obj, object=subject)
    return (
        Relation.objects.filter(namespace_id=namespace_id, predicate=predicate, status=RelationStatus.ACTIVE)
        .filter(same)
        .first()
    )


def _create(
    entry: MemoryEntry, subject: Entity, triple: Triple, obj: Entity | None, value: str, extractor: str
) -> Relation:
    start: datetime = entry.valid_from or timezone.now()
    relation = Relation(
        namespace_id=entry.namespace_id,
        subject=subject,
        predicate=triple.predicate,
        label=triple.label[:80],
        object=obj,
        value=value,
        valid_from=start,
        start_known=entry.start_known,
        confidence=float(entry.confidence),
        extractor=extractor[:100],
    )
    if triple.predicate not in SINGLE_VALUED:
        relation.save(force_insert=True)
        return relation
    current = (
        Relation.objects.filter(
            namespace_id=entry.namespace_id,
            subject=subject,
            predicate=triple.predicate,
            status=RelationStatus.ACTIVE,
        )
        .order_by("-valid_from")
        .first()
    )
    if current is not None and start < current.valid_from:
        # Older news arriving late: it held before the current one, and is history already.
        relation.status, relation.valid_to, relation.superseded_by = (
            RelationStatus.SUPERSEDED,
            current.valid_from,
            current,
        )
        relation.save(force_insert=True)
        return relation
    if current is not None and not relation.start_known:
        # It replaces what held before: it began then, not at some unknown time; so did the
        # statement that says it ("Rebecca works at Globex" after "… at Acme").
        relation.start_known = entry.start_known = True
        MemoryEntry.objects.filter(pk=entry.pk).update(start_known=True)
    relation.save(force_insert=True)
    Relation.objects.filter(
        namespace_id=entry.namespace_id,
        subject=subject,
        predicate=triple.predicate,
        status=RelationStatus.ACTIVE,
    ).exclude(pk=relation.pk).update(status=RelationStatus.SUPERSEDED, valid_to=start, superseded_by=relation)
    return relation


__all__ = [
    "Ref",
    "candidate_names",
    "mention",
    "record_reading",
    "relation_end",
    "relation_put",
    "relation_record",
]
