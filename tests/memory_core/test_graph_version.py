"""A namespace's `graph_version` moves with every statement that writes its entities, relations,
mentions or relation support, whoever sends it (database triggers, migration 0022): recall's copy
of the graph is keyed by it (`memory_core.entities.graph_cache`). A statement that changes no row
leaves it, and one that writes two namespaces' rows moves both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import F, Value
from django.db.models.functions import Concat

from memory_core.entities.models import Entity, EntityMention, Relation, RelationSupport
from memory_core.models import Namespace
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db


def version(namespace: Namespace) -> int:
    return Namespace.objects.values_list("graph_version", flat=True).get(pk=namespace.pk)


@pytest.fixture
def told(owner) -> dict[str, Any]:
    namespace = namespace_for_user(user=owner)
    nurse = memory_add(namespace=namespace, content="My sister Ana is a nurse.").entry
    memory_add(namespace=namespace, content="Ana's husband Marc is a pilot.")
    entities = {e.name: e for e in Entity.objects.filter(namespace=namespace, is_self=False)}
    spouse = Relation.objects.get(namespace=namespace, predicate="spouse")
    return {"namespace": namespace, "nurse": nurse, "spouse": spouse, **entities}


# Each mention's words changed, each still its own (entity, entry, words are unique together).
_SAID_AGAIN = Concat(F("surface"), Value("!"))

WRITES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "entity inserted": lambda t: Entity.objects.create(
        namespace=t["namespace"], kind="person", name="Leo", aliases=["leo"]
    ),
    "entity updated": lambda t: Entity.objects.filter(pk=t["Marc"].pk).update(aliases=["marc", "skipper"]),
    "entity deleted": lambda t: Entity.objects.filter(pk=t["Marc"].pk).delete(),
    "relation inserted": lambda t: Relation.objects.create(
        namespace=t["namespace"], subject=t["Marc"], predicate="lives_in", value="Lyon"
    ),
    "relation updated": lambda t: Relation.objects.filter(pk=t["spouse"].pk).update(
        valid_to=t["spouse"].valid_from
    ),
    "relation deleted": lambda t: Relation.objects.filter(pk=t["spouse"].pk).delete(),
    "mention inserted": lambda t: EntityMention.objects.create(
        namespace=t["namespace"], entity=t["Marc"], entry=t["nurse"], surface="marc"
    ),
    "mention updated": lambda t: EntityMention.objects.filter(entity=t["Ana"]).update(surface=_SAID_AGAIN),
    "mention deleted": lambda t: EntityMention.objects.filter(entity=t["Ana"]).delete(),
    "support inserted": lambda t: RelationSupport.objects.create(
        namespace=t["namespace"], relation=t["spouse"], entry=t["nurse"]
    ),
    "support updated": lambda t: RelationSupport.objects.filter(relation=t["spouse"]).update(
        source_conversation="c1"
    ),
    "support deleted": lambda t: RelationSupport.objects.filter(relation=t["spouse"]).delete(),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_every_write_to_the_graph_moves_the_version(told, write):
    before = version(told["namespace"])
    WRITES[write](told)
    assert version(told["namespace"]) != before


def test_a_statement_that_changes_nothing_keeps_the_version(told):
    before = version(told["namespace"])
    Entity.objects.filter(name="nobody").update(aliases=["x"])
    Relation.objects.filter(predicate="pet").delete()
    assert version(told["namespace"]) == before


def test_one_statement_over_two_namespaces_moves_both_and_no_other(told, other_user, make_user):
    other = namespace_for_user(user=other_user)
    memory_add(namespace=other, content="My brother Sam is a chef.")
    untouched = namespace_for_user(user=make_user("carol"))
    memory_add(namespace=untouched, content="My friend Bea likes tea.")
    before = {ns.pk: version(ns) for ns in (told["namespace"], other, untouched)}
    EntityMention.objects.filter(namespace__in=[told["namespace"], other]).update(surface=_SAID_AGAIN)
    after = {ns.pk: version(ns) for ns in (told["namespace"], other, untouched)}
    assert after[told["namespace"].pk] != before[told["namespace"].pk]
    assert after[other.pk] != before[other.pk]
    assert after[untouched.pk] == before[untouched.pk]


def test_a_version_is_never_handed_out_twice_even_after_a_rollback(told):
    from django.db import transaction

    seen = {version(told["namespace"])}
    for _ in range(3):
        try:
            with transaction.atomic():
                Entity.objects.filter(pk=told["Marc"].pk).update(aliases=["marc", "captain"])
                seen.add(version(told["namespace"]))
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        assert version(told["namespace"]) in seen
        Entity.objects.filter(pk=told["Marc"].pk).update(aliases=["marc"])
        assert version(told["namespace"]) not in seen
        seen.add(version(told["namespace"]))
