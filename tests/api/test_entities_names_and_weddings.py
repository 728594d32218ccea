# ruff: noqa: RUF001 - Chinese punctuation is what these tests type
"""A marriage said as the event ("I married Ines Duarte", "我和孙立伟结婚了") is the user's spouse
relation, so a divorce can end it and "my husband" / "我老公" finds the one married now; a person
called by a given name and by a full name is one person ("Tom" and "Tom Hargreaves", "立伟" and
"孙立伟"), unless two people share the given name. Through REST, mem0's route and recall."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations

pytestmark = pytest.mark.django_db


def _spouses(namespace: Any) -> dict[str, str]:
    return {r.object.name: r.status for r in relations(namespace, predicate="spouse", subject__is_self=True)}


def test_a_wedding_said_as_an_event_is_the_users_marriage_and_a_divorce_ends_it(key_client):
    first = add(key_client, "I married Ines Duarte.", valid_from="2011-04-02T00:00:00Z")
    add(key_client, "Ines works as a radiographer.")
    add(key_client, "I divorced Ines.", valid_from="2017-01-09T00:00:00Z")
    add(key_client, "Last spring I wed Callum Reid.", valid_from="2023-05-06T00:00:00Z")
    add(key_client, "Callum is a glassblower.")
    for filler in ("I bought new hiking boots.", "My flat faces the river.", "I am learning Welsh."):
        add(key_client, filler)
    namespace = namespace_of(first)
    spouses = _spouses(namespace)
    assert spouses.get("Callum Reid") == "active"
    assert spouses.get("Ines Duarte") not in (None, "active")
    # "Ines" and "Callum" were not made second people.
    assert not {"Ines", "Callum"} & set(entities(namespace))
    items = recall(key_client, "What does my husband do?")
    assert contents(items)[0] == "Callum is a glassblower."
    assert items[0]["breakdown"]["graph"] > 0


def test_a_chinese_wedding_and_a_given_name_are_one_person(key_client):
    first = add(key_client, "我和孙立伟结婚了。", user="zh1")
    add(key_client, "立伟在一家医院当麻醉师。", user="zh1")
    add(key_client, "立伟的妹妹叫孙小满。", user="zh1")
    add(key_client, "孙小满在成都开了一家书店。", user="zh1")
    for filler in ("我最近在学做面包。", "周末去爬山了。", "我换了新手机。"):
        add(key_client, filler, user="zh1")
    namespace = namespace_of(first)
    people = entities(namespace)
    assert "孙立伟" in people and "立伟" not in people
    assert "立伟" in people["孙立伟"].aliases
    assert _spouses(namespace) == {"孙立伟": "active"}
    found = contents(recall(key_client, "我老公的妹妹开了什么店？", user="zh1"))
    assert "孙小满在成都开了一家书店。" in found[:3]


def test_a_given_name_said_through_mem0_joins_the_full_name(key_client):
    response = key_client.post(
        "/v3/memories/add/",
        {
            "user_id": "m1",
            "infer": False,
            "messages": [
                {"role": "user", "content": "My sister Priya is married to Tom Hargreaves."},
                {"role": "user", "content": "Tom is a firefighter in Bristol."},
            ],
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    for filler in ("I repainted the hallway.", "My bike needs a new chain.", "I had soup for lunch."):
        add(key_client, filler, user="m1")
    found = contents(recall(key_client, "What does my sister's husband do?", user="m1"))
    assert "Tom is a firefighter in Bristol." in found[:3]


def test_two_people_with_one_given_name_stay_apart(key_client):
    first = add(key_client, "My colleague is Sam Ortiz.", user="t1")
    add(key_client, "My neighbour is Sam Becker.", user="t1")
    add(key_client, "Sam plays the trombone.", user="t1")
    people = entities(namespace_of(first))
    assert "sam" not in people["Sam Ortiz"].aliases
    assert "sam" not in people["Sam Becker"].aliases


@pytest.mark.parametrize(
    ("said", "person", "where"),
    [
        ("我去年搬到了上海。现在在腾讯工作。", None, None),
        ("我上个月搬到了杭州，现在在一家书店上班。", None, None),
        ("王芳目前在华为上班。", "王芳", "华为"),
        ("听说小林一直在银行工作。", "小林", "银行"),
    ],
)
def test_a_word_of_time_or_hearsay_opening_a_chinese_clause_is_no_ones_name(key_client, said, person, where):
    """"现在在腾讯工作" is "now working at Tencent": no person called 现 works at "在腾讯"; a name
    followed by 目前 / 一直 ends before it, and "听说" before one is not part of it."""
    first = add(key_client, said, user="zh-time")
    namespace = namespace_of(first)
    people = entities(namespace)
    assert not {"现", "后", "王芳目前", "听说小林", "在腾讯", "在一家书店"} & set(people)
    works = {r.subject.name: r.object.name for r in relations(namespace, predicate="works_at")}
    if person:
        assert works.get(person) == where
    else:
        assert not any(name in ("现", "后") for name in works)
