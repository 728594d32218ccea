"""Where the engine calls the knowledge-graph layer: after a write (the offline rules), after the
language-model extractor wrote a statement (its entities and relations)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from memory_core.choices import AddAction, MemoryStatus
from memory_core.entities.asides import FEMALE_KIN, MALE_KIN
from memory_core.entities.care import CARES_FOR
from memory_core.entities.erasure import entities_prune
from memory_core.entities.kinship import kin
from memory_core.entities.models import Entity, EntityMention, RelationEnding, RelationSupport
from memory_core.entities.record import mention_known_names, mentions_insert, record_reading
from memory_core.entities.resolve import Resolver
from memory_core.entities.rules import SELF, Reading, Ref, Triple
from memory_core.entities.transcript import read
from memory_core.entities.vocabulary import OBJECT_KIND, VALUE_PREDICATES, EntityKind, Predicate
from memory_core.locks import lock_namespace
from memory_core.models import MemoryEntry

RULES_EXTRACTOR = "rules-entities-v1"
# Outcomes whose entry is new: a merge adds evidence to a statement already read.
_NEW_ENTRY = frozenset({AddAction.ADDED, AddAction.SUPERSEDED})


# How recent the message before must be for a pronoun opening this one to stand for someone it
# named: the same conversation, as a turn's context is (`pipeline.with_previous_turns`).
NAMED_FROM_BEFORE_WITHIN = timedelta(minutes=30)


def _named_from_before(entry: MemoryEntry, reading: Reading, gathered: list[EntityMention]) -> None:
    """A name given by a pronoun opening the statement ("Her name is Lakshmi.", "她叫陳美玉,
    有早期失智症") names the one of the user's kin, known so far only by the kin word, that the
    message just before spoke of ("My amma lives with us…"), when it spoke of exactly one the
    pronoun can stand for: added to `reading` as that kin with that name, which the resolver
    gives the unnamed entity (`Resolver.resolve`)."""
    previous = (
        MemoryEntry.objects.filter(
            namespace_id=entry.namespace_id,
            created_at__lt=entry.created_at,
            created_at__gte=entry.created_at - NAMED_FROM_BEFORE_WITHIN,
        )
        .order_by("-created_at")
        .values_list("pk", flat=True)
        .first()
    )
    if previous is None:
        return
    # The message before may be of the same write (a batch): its mentions are not inserted yet.
    spoken = [m.entity for m in gathered if m.entry_id == previous] or list(
        Entity.objects.filter(mentions__entry_id=previous)
    )
    unnamed = {e.pk: e for e in spoken if e.kind == EntityKind.PERSON and not e.is_self and not e.named}
    for name, pronoun in reading.pronoun_names:
        fitting = [(e, word) for e in unnamed.values() if (word := _kin_word_for(e, pronoun))]
        if len(fitting) == 1:
            reading.add_ref(Ref(name=name, kin=fitting[0][1]))


def _kin_word_for(entity: Entity, pronoun: str) -> str:
    """The kin word `entity` is known by, when `pronoun` can stand for them ("her" is no brother);
    "" when it cannot, or they are known by no kin word."""
    unwanted = MALE_KIN if pronoun == "her" else FEMALE_KIN if pronoun == "his" else frozenset()
    words = [(alias, found[1]) for alias in entity.aliases if (found := kin(alias)) is not None]
    if not words or any(label in unwanted for _, label in words):
        return ""
    return words[0][0]


def named_entities_exist() -> Exists:
    """For the writer's namespace query (`reconciliation.lock_for_write`): does the namespace have
    named entities that a statement could mention in passing?"""
    return Exists(Entity.objects.filter(namespace_id=OuterRef("pk"), is_self=False, named=True))


def entities_after_write(*, outcomes: Iterable[Any], names_known: bool = True) -> list[MemoryEntry]:
    """Read every newly written entry with the offline rules; inside the writer's transaction,
    under its namespace lock (`pipeline.write`, `pipeline_batch.memory_add_many`). `names_known`
    False (the namespace had no named entity when locked) spares the lookup of names mentioned in
    passing unless this very write created entities. The mentions of all the entries are
    inserted together, at the end (`mentions_insert`). Returns the entries in use that name a
    person this write named for the first time (`earlier_mentions`), linked to them now."""
    resolvers: dict[int, Resolver] = {}
    written: list[tuple[MemoryEntry, set[Any]]] = []
    mentions: list[EntityMention] = []
    for outcome in outcomes:
        entry: MemoryEntry | None = outcome.entry
        if entry is None or outcome.action not in _NEW_ENTRY:
            continue
        reading = read(entry.content, speaker=said_by(entry.metadata))
        if reading.pronoun_names:
            _named_from_before(entry, reading, mentions)
        seen: set[Any] = set()
        if reading.refs or reading.triples:  # no query for a statement naming no one
            resolver = resolvers.setdefault(entry.namespace_id, Resolver(entry.namespace_id))
            record_reading(
                entry=entry,
                reading=reading,
                resolver=resolver,
                extractor=RULES_EXTRACTOR,
                known_names=False,
                into=mentions,
            )
            seen = {resolver.resolve(ref).pk for ref in reading.refs}
            # Someone the user now says they look after: what was said of them before is theirs too.
            resolver.named += [
                resolver.resolve(t.object) for t in reading.triples if t.label == CARES_FOR and t.object
            ]
        written.append((entry, seen))
    if names_known or resolvers:
        mention_known_names(written, into=mentions)  # one query for the whole batch
    # The latest instance of each: one named later in the write ("Her name is Lakshmi.") was
    # resolved before, unnamed, by a statement of the same batch ("…I take care of her.").
    named = [
        e
        for r in resolvers.values()
        for e in {entity.pk: entity for entity in r.named}.values()
        if e.kind == EntityKind.PERSON and e.named
    ]
    earlier = earlier_mentions(named, written=[entry for entry, _ in written]) if named else []
    if earlier:
        mention_known_names([(entry, set()) for entry in earlier], into=mentions)
    mentions_insert(mentions)
    return earlier


# What was said of someone before the user said who they are ("Ella has epilepsy", then "my daughter
# is called Ella"): the entries in use that name a person just named, the latest first, up to this
# many a write (of the latest `EARLIER_MENTIONS_LOOKED_AT` that hold the name's letters: "Al" is in
# many words). They are linked to that person (graph recall finds them by the relation) and read
# again by the safety judgement with the relation known (`people_reread`).
EARLIER_MENTIONS_MAX = 50
EARLIER_MENTIONS_LOOKED_AT = 500


def earlier_mentions(named: list[Entity], *, written: Iterable[MemoryEntry] = ()) -> list[MemoryEntry]:
    """The entries in use of the namespace of each of `named` that name one of them by name (the
    write's own included, as the `written` objects its caller answers with: a batch names someone
    in one statement and speaks of them in another)."""
    own = {entry.pk: entry for entry in written}
    found: dict[Any, MemoryEntry] = {}
    by_namespace: dict[int, set[str]] = {}
    for entity in named:
        if len(entity.name.strip()) >= 2:
            by_namespace.setdefault(entity.namespace_id, set()).add(entity.name.strip())
    for namespace_id, names in by_namespace.items():
        said = Q()
        for name in names:
            said |= Q(content__icontains=name)
        rows = MemoryEntry.objects.filter(said, namespace_id=namespace_id, status=MemoryStatus.ACTIVE)
        rows = rows.order_by("-created_at")[:EARLIER_MENTIONS_LOOKED_AT]
        hits = [entry for entry in rows if any(_names_word(entry.content, name) for name in names)]
        for entry in hits[:EARLIER_MENTIONS_MAX]:
            found[entry.pk] = own.get(entry.pk, entry)
    return list(found.values())


def _names_word(text: str, name: str) -> bool:
    """Whether `text` says `name` as a word of its own ("Ella", not "Ellapore"); a Chinese name
    anywhere."""
    if not name.isascii():
        return name in text
    # No letter around it but a Chinese one: "Marcus嘅噴劑" names Marcus, "Anaïs" is not "Ana".
    word = r"(?<![^\W\u4e00-\u9fff])(?<!')" + re.escape(name) + r"(?![^\W\u4e00-\u9fff])"
    return re.search(word, text, re.IGNORECASE) is not None


# Metadata naming who said a statement (a mem0 message's `name` is kept as "speaker").
SPEAKER_KEYS = ("speaker", "name", "author")


def said_by(metadata: Any) -> str:
    """The person a statement's metadata says said it ("" when none does)."""
    for key in SPEAKER_KEYS:
        value = metadata.get(key) if isinstance(metadata, dict) else None
        if isinstance(value, str) and 0 < len(value.strip()) <= 100:
            return value.strip()
    return ""


def entities_after_correction(*, old: MemoryEntry, new: MemoryEntry) -> None:
    """A correction says the old wording was wrong, not that the world changed: what was read
    from the old version is withdrawn (relations no other memory supports go), the new one is read."""
    RelationSupport.objects.filter(entry=old).delete()
    EntityMention.objects.filter(entry=old).delete()
    RelationEnding.objects.filter(entry=old).update(entry=None)  # withdrawn by entities_prune
    entities_prune(namespace_ids=[old.namespace_id])
    resolver = Resolver(new.namespace_id)
    reading = read(new.content, speaker=said_by(new.metadata))
    record_reading(entry=new, reading=reading, resolver=resolver, extractor=RULES_EXTRACTOR)


def relations_from_candidate(*, entry: MemoryEntry, relations: list[Any], extractor: str) -> None:
    """The language model's relations for `entry` (schema `extraction.schema.RelationCandidate`):
    subject and object are names, or "user" for the user; kinship labels map to predicates."""
    reading = Reading()
    for item in relations:
        triple = _triple(item)
        if triple is not None and _grounded(triple, entry.content):
            reading.add(triple)
    if not reading.triples:
        return
    with transaction.atomic():
        lock_namespace(entry.namespace_id)
        record_reading(
            entry=entry, reading=reading, resolver=Resolver(entry.namespace_id), extractor=extractor
        )


def _grounded(triple: Triple, content: str) -> bool:
    """Only names and values the statement itself holds: the statement passed the secret guard,
    and a name the model made up would be an entity nobody mentioned."""
    text = content.lower()
    names = [ref.name for ref in (triple.subject, triple.object) if ref is not None and ref.name]
    return all(name.lower() in text for name in [*names, triple.value] if name)


_SELF_NAMES = frozenset({"user", "the user", "i", "me", "我", "用户"})


def _ref(name: str, kind: str) -> Ref:
    return SELF if name.strip().lower() in _SELF_NAMES else Ref(name=name.strip(), kind=kind)


def _triple(item: Any) -> Triple | None:
    subject_name = str(getattr(item, "subject", "") or "").strip()
    predicate = str(getattr(item, "predicate", "") or "").strip().lower()
    obj = str(getattr(item, "object", "") or "").strip()
    if not subject_name or not predicate or not obj:
        return None
    label = predicate
    found = kin(predicate)
    if found:
        predicate, label = found
    elif predicate not in Predicate.values:
        predicate, label = Predicate.OTHER, label
    subject = _ref(subject_name, str(getattr(item, "subject_kind", "") or EntityKind.PERSON))
    if predicate in VALUE_PREDICATES or (
        predicate == Predicate.OTHER and getattr(item, "object_kind", "") == "value"
    ):
        return Triple(subject, predicate, label, value=obj)
    kind = str(getattr(item, "object_kind", "") or OBJECT_KIND.get(predicate, EntityKind.PERSON))
    if kind not in EntityKind.values:
        kind = OBJECT_KIND.get(predicate, EntityKind.OTHER)
    return Triple(subject, predicate, label, _ref(obj, kind))
