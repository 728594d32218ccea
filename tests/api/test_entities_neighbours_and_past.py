# ruff: noqa: RUF001 - Chinese punctuation is what these tests type
"""Neighbours said by where they live ("对门住的是…", "樓上鄰居叫…", "… lives in the flat below
us") are the user's neighbours in the graph; the user's own state told as past and undated ("My
boss at … was …", "Our next-door neighbour there was …") held before it was told, so a question at
an earlier instant sees it. Through REST and recall."""

from __future__ import annotations

import pytest

from tests.api.entities_helpers import add, contents, namespace_of, recall, relations

pytestmark = pytest.mark.django_db

_ZH_FILLERS = ("我最近在学做面包。", "我的自行车坏了。", "周末我去爬山了。")
_EN_FILLERS = (
    "I bought a second-hand piano.",
    "The bus into town was late again.",
    "I am reading more poetry.",
)


def _neighbours(namespace: object) -> set[str]:
    return {
        r.object.name
        for r in relations(namespace, predicate="friend", subject__is_self=True)
        if r.label == "neighbour"
    }


def test_a_chinese_neighbour_said_by_where_they_live(key_client):
    first = add(key_client, "我家对门住的是贾春生。", user="zn")
    add(key_client, "贾春生在菜市场卖鱼。", user="zn")
    add(key_client, "搬去沙田那年，樓上鄰居叫馮慧君。", user="zn")
    add(key_client, "馮慧君教小朋友畫畫。", user="zn")
    for filler in _ZH_FILLERS:
        add(key_client, filler, user="zn")
    assert _neighbours(namespace_of(first)) == {"贾春生", "馮慧君"}
    # Both are the user's neighbours (which one lives where is not kept): what each does is
    # reached through the graph.
    for question in ("我对门的邻居是做什么的？", "我樓上的鄰居是做什麼工作的？"):
        graph = {
            i["entry"]["content"]: i["breakdown"]["graph"] for i in recall(key_client, question, user="zn")
        }
        assert graph.get("贾春生在菜市场卖鱼。", 0) > 0
        assert graph.get("馮慧君教小朋友畫畫。", 0) > 0


def test_an_english_neighbour_said_by_where_they_live(key_client):
    first = add(key_client, "Oluwaseun Baptiste lives in the flat below us in Clifton.", user="en")
    add(key_client, "Oluwaseun Baptiste repairs church organs.", user="en")
    for filler in _EN_FILLERS:
        add(key_client, filler, user="en")
    assert _neighbours(namespace_of(first)) == {"Oluwaseun Baptiste"}
    items = recall(key_client, "What does our downstairs neighbour do for a living?", user="en")
    assert "Oluwaseun Baptiste repairs church organs." in contents(items)[:2]
    assert items[contents(items).index("Oluwaseun Baptiste repairs church organs.")]["breakdown"]["graph"] > 0


def test_a_past_state_told_undated_is_seen_at_an_earlier_instant(key_client):
    add(
        key_client,
        "In 2011 I took a job at Qorvane Textiles as a pattern cutter.",
        user="past",
        valid_from="2011-02-01T00:00:00Z",
    )
    add(key_client, "My boss at Qorvane Textiles was Idris Penrose.", user="past")
    add(key_client, "Our next-door neighbour in Carlow was Fionnuala Tighe.", user="past")
    add(key_client, "Fionnuala Tighe keeps bees behind the church.", user="past")
    add(key_client, "我那时候的领导是简志伟。", user="past")
    for filler in _EN_FILLERS:
        add(key_client, filler, user="past")
    at = "2013-06-01T00:00:00Z"
    assert "My boss at Qorvane Textiles was Idris Penrose." in contents(
        recall(key_client, "Who was my boss?", user="past", at=at)
    )
    neighbour = contents(recall(key_client, "What did our next-door neighbour keep?", user="past", at=at))
    assert "Fionnuala Tighe keeps bees behind the church." in neighbour[:2]
    assert "我那时候的领导是简志伟。" in contents(
        recall(key_client, "我当时的领导是谁？", user="past", at=at)
    )
    # Told as it is now, the user's state still begins when told.
    add(key_client, "My boss at Qorvane Textiles is Idris Penrose.", user="now")
    assert "My boss at Qorvane Textiles is Idris Penrose." not in contents(
        recall(key_client, "Who was my boss?", user="now", at=at)
    )
