"""Multi-hop questions through the REST API: the graph links "my sister" to Ana and Ana to Marc."""

from __future__ import annotations

import pytest

from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations

pytestmark = pytest.mark.django_db


def test_my_sisters_husband_finds_his_job(key_client):
    first = add(key_client, "My sister is Ana.")
    add(key_client, "Ana's husband Marc is a pilot.")
    for filler in [
        "I had pasta for dinner on Tuesday.",
        "My favourite colour is green.",
        "The user is learning to play the cello.",
        "I prefer window seats on long flights.",
        "The user's flat has a small balcony.",
        "My manager asked me to prepare the quarterly report.",
    ]:
        add(key_client, filler)
    items = recall(key_client, "What does my sister's husband do?")
    assert "Ana's husband Marc is a pilot." in contents(items)
    marc = next(item for item in items if item["entry"]["content"].startswith("Ana's husband"))
    assert marc["breakdown"]["graph"] > 0 and "graph" in marc["reasons"]

    namespace = namespace_of(first)
    people = entities(namespace)
    assert {"Ana", "Marc"} <= set(people)
    assert "sister" in people["Ana"].aliases
    spouse = relations(namespace, predicate="spouse")
    assert [(r.subject.name, r.object.name) for r in spouse] == [("Ana", "Marc")]
    role = relations(namespace, predicate="role")
    assert [(r.subject.name, r.value) for r in role] == [("Marc", "pilot")]


def test_my_sister_and_my_sister_ana_are_one_person(key_client):
    add(key_client, "My sister loves climbing.")
    entry = add(key_client, "My sister Ana moved to Lyon last year.")
    add(key_client, "Ana is training for a marathon.")
    namespace = namespace_of(entry)
    people = entities(namespace)
    assert list(people) == ["Ana", "Lyon"] or set(people) == {"Ana", "Lyon"}
    assert people["Ana"].mentions.values("entry").distinct().count() == 3
    items = recall(key_client, "Where does my sister live?")
    assert "My sister Ana moved to Lyon last year." in contents(items)[:3]
