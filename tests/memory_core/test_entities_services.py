"""The graph services the pages and the API call: correct, merge, split, erase; other users' ids
are not found; bad input is refused with nothing changed."""

from __future__ import annotations

import pytest

from memory_core.entities.models import Entity, Relation
from memory_core.entities.selectors import entity_facts, entity_get, entity_list
from memory_core.entities.services import (
    entity_correct,
    entity_erase,
    entity_merge,
    entity_split,
    relation_correct,
    relation_erase,
)
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.models import MemoryEntry
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db


def _say(user, *texts):
    namespace = namespace_for_user(user=user)
    return [memory_add(namespace=namespace, content=text).entry for text in texts]


def _named(user, name):
    return entity_list(actor=user).get(name=name)


def test_merge_moves_mentions_and_relations(owner, other_user):
    _say(owner, "My brother is Sam.", "Samuel works at Initech.")
    sam, samuel = _named(owner, "Sam"), _named(owner, "Samuel")
    with pytest.raises(NotFound):
        entity_merge(actor=other_user, entity_id=sam.pk, into_id=samuel.pk)
    merged = entity_merge(actor=owner, entity_id=samuel.pk, into_id=sam.pk)
    assert {"sam", "samuel", "brother"} <= set(merged.aliases)
    facts = entity_facts(actor=owner, entity_id=sam.pk)
    assert {r.predicate for r in facts.relations} == {"sibling", "works_at"}
    assert len(facts.memories) == 2
    assert not Entity.objects.filter(pk=samuel.pk).exists()
    with pytest.raises(MemoryServiceError):
        entity_merge(actor=owner, entity_id=sam.pk, into_id=sam.pk)


def test_split_separates_two_people_of_one_name(owner):
    _, second = _say(owner, "My colleague Alex lives in Lyon.", "Alex is my brother.")
    alex = _named(owner, "Alex")
    other = entity_split(actor=owner, entity_id=alex.pk, entry_ids=[second.pk], name="Alex (brother)")
    assert {r.predicate for r in entity_facts(actor=owner, entity_id=other.pk).relations} == {"sibling"}
    assert {r.predicate for r in entity_facts(actor=owner, entity_id=alex.pk).relations} == {
        "colleague",
        "lives_in",
    }
    with pytest.raises(MemoryServiceError):
        entity_split(actor=owner, entity_id=alex.pk, entry_ids=["not-an-id"], name="x")


def test_correct_and_erase(owner, other_user):
    _say(owner, "My dog is called Rex.", "Rex loves the beach.", "I am a nurse.")
    rex = _named(owner, "Rex")
    with pytest.raises(NotFound):
        entity_get(actor=other_user, entity_id=rex.pk)
    with pytest.raises(NotFound):
        entity_get(actor=owner, entity_id="nonsense")
    with pytest.raises(MemoryServiceError):
        entity_correct(actor=owner, entity_id=rex.pk, name="   ")
    assert entity_correct(actor=owner, entity_id=rex.pk, name="Rexy").name == "Rexy"
    role = Relation.objects.get(predicate="role")
    assert relation_correct(actor=owner, relation_id=role.pk, value="midwife").value == "midwife"

    receipt = entity_erase(actor=owner, entity_id=rex.pk)
    assert receipt is not None
    assert list(MemoryEntry.objects.values_list("content", flat=True)) == ["I am a nurse."]
    assert not Entity.objects.filter(pk=rex.pk).exists()
    relation_erase(actor=owner, relation_id=role.pk)
    assert not Relation.objects.exists()
