# ruff: noqa: RUF001 - Chinese punctuation is what these tests type
"""Kin said through others: a spouse's father ("father-in-law", 岳父), a spouse's child
("stepdaughter", 继女), a sister's husband (姐夫), a wife's brother (小舅子), an ex and whom they
married since ("my ex-husband's new wife", 前夫); "his / her" after a statement that opens with a
name; a boss or colleague named with the workplace ("My manager at Norvale Bank is Petra Quist",
"我在恒泰证券的组长是吴昊"), who takes the place of the "my boss" said before at that job, works
there, and stops being the user's boss when the user leaves it. Through REST, mem0's route and
recall."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations

pytestmark = pytest.mark.django_db


def _graph_found(items: list[dict[str, Any]], content: str, within: int = 3) -> bool:
    """The statement is among the first `within` and the graph reached it."""
    return any(
        item["entry"]["content"] == content and item["breakdown"]["graph"] > 0 for item in items[:within]
    )


def _fillers(client: Any, user: str, chinese: bool = False) -> None:
    said = (
        ("我最近在学做面包。", "周末去爬山了。", "我换了新手机。", "我喜欢喝乌龙茶。")
        if chinese
        else (
            "I bought new hiking boots.",
            "My flat faces the river.",
            "I am learning Welsh.",
            "I drink green tea.",
        )
    )
    for filler in said:
        add(client, filler, user=user)


def test_a_spouses_father_and_child_are_the_in_law_and_the_stepchild(key_client):
    add(key_client, "I married Colette Marchand.", user="in1", valid_from="2016-06-11T00:00:00Z")
    add(key_client, "Colette's father is Henri Marchand.", user="in1")
    add(key_client, "Henri restores old sailing boats.", user="in1")
    add(key_client, "Colette's daughter is Lou.", user="in1")
    add(key_client, "Lou is learning the accordion.", user="in1")
    _fillers(key_client, "in1")
    father = recall(key_client, "What does my father-in-law do in his free time?", user="in1")
    assert _graph_found(father, "Henri restores old sailing boats.")
    child = recall(key_client, "Which instrument is my stepdaughter learning?", user="in1")
    assert _graph_found(child, "Lou is learning the accordion.")


def test_chinese_in_laws_are_found_through_the_wife_and_the_sister(key_client):
    add(key_client, "我和唐悦结婚了。", user="in2", valid_from="2015-05-01T00:00:00Z")
    add(key_client, "唐悦的弟弟叫唐磊。", user="in2")
    add(key_client, "唐磊在南京开出租车。", user="in2")
    add(key_client, "唐悦的爸爸叫唐国华。", user="in2")
    add(key_client, "唐国华每天下午去茶馆下象棋。", user="in2")
    add(key_client, "我姐姐叫李婷。", user="in2")
    add(key_client, "李婷的老公叫周凯。", user="in2")
    add(key_client, "周凯是一名消防员。", user="in2")
    _fillers(key_client, "in2", chinese=True)
    assert _graph_found(recall(key_client, "我小舅子做什么工作？", user="in2"), "唐磊在南京开出租车。")
    assert _graph_found(
        recall(key_client, "我岳父下午一般干什么？", user="in2"), "唐国华每天下午去茶馆下象棋。"
    )
    assert _graph_found(recall(key_client, "我姐夫是做什么的？", user="in2"), "周凯是一名消防员。")


def test_an_ex_and_whom_they_married_since(key_client):
    first = add(key_client, "I married Oliver Grant.", user="ex1", valid_from="2005-04-09T00:00:00Z")
    add(key_client, "Oliver and I got divorced.", user="ex1", valid_from="2012-02-01T00:00:00Z")
    add(key_client, "Oliver remarried; his wife is Mina Park.", user="ex1", valid_from="2015-08-01T00:00:00Z")
    add(key_client, "Mina is a volcanologist.", user="ex1")
    add(key_client, "I married Ravi Shah.", user="ex1", valid_from="2016-09-17T00:00:00Z")
    add(key_client, "Ravi is a chef.", user="ex1")
    _fillers(key_client, "ex1")
    namespace = namespace_of(first)
    # "his wife" is Oliver's: the pronoun after a statement opening with his name.
    assert [
        (r.subject.name, r.object.name)
        for r in relations(namespace, predicate="spouse", subject__is_self=False)
    ] == [("Oliver Grant", "Mina Park")]
    items = recall(key_client, "What does my ex-husband's new wife do?", user="ex1")
    assert _graph_found(items, "Mina is a volcanologist.", within=5)
    assert "Ravi is a chef." not in contents(items)[:1]


def test_a_chinese_ex_husband_is_the_one_divorced(key_client):
    add(key_client, "我和周明结婚了。", user="ex2", valid_from="2008-10-01T00:00:00Z")
    add(key_client, "我和周明离婚了。", user="ex2", valid_from="2014-03-01T00:00:00Z")
    add(key_client, "周明在广州开了一家茶餐厅。", user="ex2")
    add(key_client, "我和陈晨结婚了。", user="ex2", valid_from="2018-06-01T00:00:00Z")
    add(key_client, "陈晨是一名建筑师。", user="ex2")
    _fillers(key_client, "ex2", chinese=True)
    items = recall(key_client, "我前夫现在在做什么？", user="ex2")
    assert _graph_found(items, "周明在广州开了一家茶餐厅。", within=5)


def test_a_manager_named_with_the_workplace_fills_my_boss_and_works_there(key_client):
    first = add(
        key_client, "My boss keeps moving our deadlines.", user="wk1", valid_from="2019-02-01T00:00:00Z"
    )
    add(
        key_client,
        "My manager at Norvale Bank is Petra Quist.",
        user="wk1",
        valid_from="2019-03-01T00:00:00Z",
    )
    add(key_client, "My team lead at Quarry Labs is Nils Berg.", user="wk2")
    add(key_client, "Nils builds his own furniture.", user="wk2")
    _fillers(key_client, "wk2")
    namespace = namespace_of(first)
    people = entities(namespace)
    assert "Petra Quist" in people and "my boss" not in people
    assert {"boss", "manager"} <= set(people["Petra Quist"].aliases)
    assert [(r.subject.name, r.object.name) for r in relations(namespace, predicate="works_at")] == [
        ("Petra Quist", "Norvale Bank")
    ]
    # Leaving the job there ends the boss too.
    add(key_client, "I left my job at Norvale Bank.", user="wk1", valid_from="2021-05-01T00:00:00Z")
    [boss] = relations(namespace, predicate="manager")
    assert boss.status == "superseded" and boss.valid_to is not None
    items = recall(key_client, "What does my team lead build?", user="wk2")
    assert _graph_found(items, "Nils builds his own furniture.")


def test_a_new_jobs_manager_is_not_the_boss_of_the_old_one(key_client):
    first = add(key_client, "My boss is very strict.", user="wk3", valid_from="2018-01-01T00:00:00Z")
    add(key_client, "I work at Acme Tools.", user="wk3", valid_from="2018-01-01T00:00:00Z")
    add(key_client, "I left my job at Acme Tools.", user="wk3", valid_from="2020-01-01T00:00:00Z")
    add(key_client, "My manager at Globex is Lena Holt.", user="wk3", valid_from="2020-02-01T00:00:00Z")
    people = entities(namespace_of(first))
    assert "Lena Holt" in people and "my boss" in people
    assert "boss" not in people["Lena Holt"].aliases


def test_a_chinese_team_lead_named_at_the_workplace_fills_the_placeholder(key_client):
    first = add(key_client, "我们组长天天加班。", user="wk4", valid_from="2020-01-01T00:00:00Z")
    add(key_client, "我在恒泰证券的组长是吴昊。", user="wk4", valid_from="2020-02-01T00:00:00Z")
    add(key_client, "吴昊周末喜欢去钓鱼。", user="wk4")
    add(key_client, "我刚进厂时带我的师傅是郑德胜。", user="wk4")
    add(key_client, "郑德胜会修老式收音机。", user="wk4")
    _fillers(key_client, "wk4", chinese=True)
    namespace = namespace_of(first)
    people = entities(namespace)
    assert "吴昊" in people and "我的组长" not in people
    assert [(r.subject.name, r.object.name) for r in relations(namespace, predicate="works_at")] == [
        ("吴昊", "恒泰证券")
    ]
    assert _graph_found(recall(key_client, "我们组长周末干什么？", user="wk4"), "吴昊周末喜欢去钓鱼。")
    assert _graph_found(recall(key_client, "我师傅会修什么？", user="wk4"), "郑德胜会修老式收音机。")


def test_kin_through_others_said_through_mem0(key_client):
    response = key_client.post(
        "/v3/memories/add/",
        {
            "user_id": "m2",
            "infer": False,
            "messages": [
                {"role": "user", "content": "My husband is Arjun Mehta."},
                {"role": "user", "content": "Arjun's mother is Kavita."},
                {"role": "user", "content": "Kavita teaches yoga at the community centre."},
            ],
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    _fillers(key_client, "m2")
    items = recall(key_client, "What does my mother-in-law teach?", user="m2")
    assert _graph_found(items, "Kavita teaches yoga at the community centre.")
