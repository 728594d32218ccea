"""The knowledge graph the write path builds, through the REST API: one person however named,
isolation between users, supersede with closed windows, point-in-time, Chinese, corrections,
erasure (nothing left in any column), erase-all and export."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth import get_user_model

from memory_core.entities.models import Entity, EntityMention, Relation, RelationSupport
from memory_core.entities.selectors import relation_list
from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations
from tests.erasure_helpers import assert_nothing_in_sql, canary

pytestmark = pytest.mark.django_db


def test_names_never_resolve_across_users(key_client):
    mine = add(key_client, "My sister is Ana.", user="u1")
    theirs = add(key_client, "My friend Ana lives in Oslo.", user="u2")
    add(key_client, "Ana's husband Marc is a pilot.", user="u1")
    ns1, ns2 = namespace_of(mine), namespace_of(theirs)
    assert ns1 != ns2
    ana1, ana2 = entities(ns1)["Ana"], entities(ns2)["Ana"]
    assert ana1.pk != ana2.pk
    assert {r.predicate for r in relations(ns2)} == {"friend", "lives_in"}
    assert not Relation.objects.filter(namespace=ns2, predicate="spouse").exists()
    # u2 asks about Ana: u1's Marc is nowhere, and no graph score points outside u2's namespace.
    items = recall(key_client, "Who is Ana married to?", user="u2")
    assert all("Marc" not in text for text in contents(items))
    assert all(item["entry"]["namespace"] == ns2.path for item in items)


def test_a_new_home_supersedes_the_old_with_its_window_closed(key_client, tenant):
    add(key_client, "I live in Paris.", valid_from="2024-01-01T00:00:00Z")
    entry = add(key_client, "I moved to Lyon.", valid_from="2025-06-01T00:00:00Z")
    namespace = namespace_of(entry)
    paris, lyon = relations(namespace, predicate="lives_in")
    assert (paris.object.name, paris.status) == ("Paris", "superseded")
    assert paris.valid_to == datetime(2025, 6, 1, tzinfo=UTC) and paris.superseded_by == lyon
    assert (lyon.object.name, lyon.status, lyon.valid_to) == ("Lyon", "active", None)

    actor = get_user_model().objects.get(pk=namespace.owner_id)
    then = relation_list(actor=actor, predicate="lives_in", at=datetime(2024, 6, 1, tzinfo=UTC))
    now = relation_list(actor=actor, predicate="lives_in")
    assert [r.object.name for r in then] == ["Paris"] and [r.object.name for r in now] == ["Lyon"]
    assert [r.object.name for r in relation_list(actor=actor, predicate="lives_in", history=True)] == [
        "Lyon",
        "Paris",
    ]


def test_older_news_arriving_late_is_history_not_current(key_client):
    entry = add(key_client, "I work at Contoso.", valid_from="2025-01-01T00:00:00Z")
    add(key_client, "I worked at Fabrikam in 2020.", valid_from="2020-01-01T00:00:00Z")
    add(key_client, "I work for Fabrikam.", valid_from="2020-01-01T00:00:00Z")
    namespace = namespace_of(entry)
    current = Relation.objects.get(namespace=namespace, predicate="works_at", status="active")
    assert current.object.name == "Contoso"
    old = Relation.objects.get(namespace=namespace, predicate="works_at", status="superseded")
    assert old.object.name == "Fabrikam" and old.valid_to == current.valid_from


def test_chinese_statements_and_questions(key_client):
    first = add(key_client, "我姐姐叫安娜。")
    add(key_client, "安娜的丈夫马克是飞行员。")
    add(key_client, "我在腾讯工作。")
    add(key_client, "我的猫叫咪咪。")
    add(key_client, "我住在上海。", valid_from="2024-01-01T00:00:00Z")
    add(key_client, "我搬到了北京。", valid_from="2025-01-01T00:00:00Z")
    for filler in ["我喜欢喝绿茶。", "我每周去游泳两次。", "我正在学习弹吉他。", "我不吃香菜。"]:
        add(key_client, filler)
    namespace = namespace_of(first)
    named = entities(namespace)
    assert named["安娜"].kind == "person" and "姐姐" in named["安娜"].aliases
    assert named["腾讯"].kind == "organisation" and named["咪咪"].kind == "pet"
    assert [(r.subject.name, r.object.name) for r in relations(namespace, predicate="spouse")] == [
        ("安娜", "马克")
    ]
    homes = relations(namespace, predicate="lives_in")
    assert [(r.object.name, r.status) for r in homes] == [("上海", "superseded"), ("北京", "active")]

    items = recall(key_client, "我姐姐的丈夫做什么工作\uff1f")
    found = {item["entry"]["content"]: item for item in items}
    assert "安娜的丈夫马克是飞行员。" in found
    assert found["安娜的丈夫马克是飞行员。"]["breakdown"]["graph"] > 0
    # An English question finds what was said in Chinese: the kin word's English label is an alias.
    assert "安娜的丈夫马克是飞行员。" in contents(recall(key_client, "my sister's husband"))


def test_a_correction_withdraws_what_the_wrong_wording_said(key_client):
    created = add(key_client, "I work at Initech.")["entry"]
    namespace = namespace_of({"entry": created})
    assert entities(namespace).keys() == {"Initech"}
    corrected = key_client.patch(
        f"/api/v1/memories/{created['id']}/", {"content": "I work at Initrode."}, format="json"
    )
    assert corrected.status_code == 200, corrected.content
    assert entities(namespace).keys() == {"Initrode"}
    [works] = relations(namespace, predicate="works_at")
    assert works.object.name == "Initrode" and works.status == "active"


def test_erasing_a_memory_takes_its_relations_unless_another_supports_them(key_client):
    marker = canary()
    first = add(key_client, f"My sister is {marker}.")
    second = add(key_client, f"{marker} is my sister.")
    third = add(key_client, f"{marker}'s husband Marc is a pilot.")
    namespace = namespace_of(first)
    sibling = Relation.objects.get(namespace=namespace, predicate="sibling")
    assert RelationSupport.objects.filter(relation=sibling).count() == 2

    assert key_client.delete(f"/api/v1/memories/{first['entry']['id']}/?user_id=u1").status_code == 204
    sibling.refresh_from_db()  # still supported by the second statement
    assert RelationSupport.objects.filter(relation=sibling).count() == 1

    assert key_client.delete(f"/api/v1/memories/{second['entry']['id']}/?user_id=u1").status_code == 204
    assert not Relation.objects.filter(namespace=namespace, predicate="sibling").exists()
    person = Entity.objects.get(namespace=namespace, name=marker)
    assert person.aliases == [marker.lower()]  # "sister" rested on the erased statements only

    assert key_client.delete(f"/api/v1/memories/{third['entry']['id']}/?user_id=u1").status_code == 204
    assert not Entity.objects.filter(namespace=namespace).exists()
    assert not EntityMention.objects.filter(namespace=namespace).exists()
    assert_nothing_in_sql(marker)


def test_erase_all_and_export_cover_the_graph(key_client):
    marker = canary()
    add(key_client, f"My colleague {marker} lives in Lyon.", user="u1")
    add(key_client, "My colleague Ana lives in Oslo.", user="u2")
    export = key_client.get("/api/v1/memories/export/", {"user_id": "u1"}).json()
    names = {e["name"] for e in export["entities"]}
    assert names == {marker, "Lyon", "the user"}
    described = {(r["predicate"], r["object"]["name"]) for r in export["relations"]}
    assert described == {("colleague", marker), ("lives_in", "Lyon")}
    assert all(r["memories"] for r in export["relations"])

    erased = key_client.post("/api/v1/memories/erase-all/", {"user_id": "u1", "confirm": True}, format="json")
    assert erased.status_code == 200
    assert not Entity.objects.filter(name=marker).exists()
    assert Entity.objects.filter(name="Ana").count() == 1  # the other user's stays
    assert_nothing_in_sql(marker)
