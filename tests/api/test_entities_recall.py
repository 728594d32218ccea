"""Multi-hop questions through the REST API: the graph links "my sister" to Ana and Ana to Marc."""

from __future__ import annotations

import pytest

from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations

pytestmark = pytest.mark.django_db

FILLERS = [
    "I had pasta for dinner on Tuesday.",
    "My favourite colour is green.",
    "The user is learning to play the cello.",
    "I prefer window seats on long flights.",
    "The user's flat has a small balcony.",
    "My manager asked me to prepare the quarterly report.",
]


def _fillers(client) -> None:
    """Unrelated memories, so that the graph, not the only candidates there are, finds the answer."""
    for filler in FILLERS:
        add(client, filler)


def test_my_sisters_husband_finds_his_job(key_client):
    first = add(key_client, "My sister is Ana.")
    add(key_client, "Ana's husband Marc is a pilot.")
    _fillers(key_client)
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


def test_one_friend_is_not_the_group_of_friends(key_client):
    """A group said in the plural ("my friends") is its own entity: a named friend does not take it
    over, a question about one friend does not reach the group's memories, one about the friends does."""
    group = add(key_client, "My friends threw me a surprise party in the garden.")
    add(key_client, "My friend Lena is a nurse in Leeds.")
    _fillers(key_client)

    people = entities(namespace_of(group))
    assert "Lena" in people and "friend" in people["Lena"].aliases
    assert "my friends" in people and not people["my friends"].named
    friendships = relations(namespace_of(group), predicate="friend")
    assert sorted(r.object.name for r in friendships) == ["Lena", "my friends"]

    def graph_score(items: list[dict], start: str) -> float:
        return next((i["breakdown"]["graph"] for i in items if i["entry"]["content"].startswith(start)), 0.0)

    one = recall(key_client, "Where does my friend work?")
    assert graph_score(one, "My friend Lena") > 0
    assert graph_score(one, "My friends threw") == 0
    several = recall(key_client, "What did my friends organise for me?")
    assert graph_score(several, "My friends threw") > 0


def test_the_graph_is_read_only_for_a_user_it_knows_someone_of_and_only_when_it_changed(key_client):
    """A question that names someone reads no graph while the user's graph knows no one but the
    user; once it knows someone, the first such question reads it and the next ones walk the copy
    recall keeps, until a new memory changes the graph: then the next question reads it again,
    and finds what the new memory says."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def reads(query: str) -> tuple[int, dict[str, list[str]]]:
        with CaptureQueriesContext(connection) as queries:
            items = recall(key_client, query)
        loads = sum("memory_core_entitymention" in q["sql"] for q in queries.captured_queries)
        return loads, {i["entry"]["content"]: i["reasons"] for i in items}

    add(key_client, "I prefer window seats on long flights.")
    assert reads("What does Ana do for a living?")[0] == 0

    add(key_client, "My sister Ana is a pilot.")
    count, found = reads("What does Ana do for a living?")
    assert count == 1
    assert "graph" in found["My sister Ana is a pilot."]
    again, found_again = reads("What does Ana do for a living?")
    assert again == 0 and found_again == found
    assert reads("Where does my sister work?")[0] == 0  # another question, the same graph

    add(key_client, "Ana's husband Marc is a chef in Lyon.")
    count, found = reads("What does my sister's husband do?")
    assert count == 1
    assert "graph" in found["Ana's husband Marc is a chef in Lyon."]
    assert reads("What do I prefer on flights?")[0] == 0  # names no one: no graph read either


def test_a_husband_or_a_boss_is_whoever_holds_that_relation_however_they_were_called(key_client):
    """ "Ana is married to Tom" never calls Tom a husband, and "my manager Felix" never calls him a
    boss: a kin word for a relation one has at most one of names whoever holds it then. Once the
    marriage ends, "my sister's husband" no longer reaches Tom, but a question at an earlier instant
    still does."""
    add(key_client, "My sister is Ana.")
    married = add(key_client, "Ana is married to Tom.")
    lawyer = add(key_client, "Tom is a lawyer in Leeds.")
    add(key_client, "My manager is Felix.")
    add(key_client, "Felix spends his weekends sailing.")
    _fillers(key_client)

    def graph_score(items: list[dict], content: str) -> float:
        return next((i["breakdown"]["graph"] for i in items if i["entry"]["content"] == content), 0.0)

    husband = recall(key_client, "What does my sister's husband do?")
    assert graph_score(husband, "Tom is a lawyer in Leeds.") == 1.0
    assert "Tom is a lawyer in Leeds." in contents(husband)[:3]
    boss = recall(key_client, "What does my boss do at the weekend?")
    assert graph_score(boss, "Felix spends his weekends sailing.") == 1.0

    namespace = namespace_of(married)
    spouse = relations(namespace, predicate="spouse")[0]
    ended = key_client.patch(f"/api/v1/relations/{spouse.pk}/?user_id=u1", {"ended": True}, format="json")
    assert ended.status_code == 200
    after = recall(key_client, "What does my sister's husband do?")
    assert graph_score(after, "Tom is a lawyer in Leeds.") < 1.0
    before = recall(key_client, "What does my sister's husband do?", at=lawyer["entry"]["recorded_at"])
    assert graph_score(before, "Tom is a lawyer in Leeds.") == 1.0
