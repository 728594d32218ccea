"""Corrections hold against paraphrase, and the two facets of work are one slot, through the
surfaces a client touches (REST, mem0's route with `infer: false`). The rule (docs/trust.md): a
value the user corrected away, said again without saying it changed, stays corrected; a statement
that says it changed or when ("moved back", "last month", "搬回") is news and replaces the
correction."""

from __future__ import annotations

import pytest

from memory_core.models import MemoryEntry, MemoryStatus
from tests.api.add_helpers import mem0_add, rest_add

pytestmark = pytest.mark.django_db


def _correct(client, memory_id: str, content: str) -> dict:
    response = client.patch(f"/api/v1/memories/{memory_id}/?user_id=u1", {"content": content}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _current() -> list[str]:
    return sorted(MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).values_list("content", flat=True))


CORRECTIONS = [
    # (said first, the user's correction, the old value said again in passing, then dated news)
    (
        "I live in Leeds.",
        "I live in York.",
        ["I'm based in Leeds.", "Leeds is where I live."],
        "I moved back to Leeds last month.",
    ),
    ("我住在成都。", "我住在重庆。", ["我住在成都", "我现居成都。"], "我上个月搬回成都了。"),
    (
        "I work at Umbrella Corp.",
        "I work at Wayne Enterprises.",
        ["I work at Umbrella Corp"],
        "I just started a new job at Umbrella Corp again.",
    ),
]


@pytest.mark.parametrize(
    ("first", "fixed", "in_passing", "news"), CORRECTIONS, ids=["en-city", "zh-city", "en-work"]
)
def test_a_corrected_value_said_in_passing_stays_corrected_until_news(
    key_client, first, fixed, in_passing, news
):
    wrong = rest_add(key_client, first)["entry"]
    corrected = _correct(key_client, wrong["id"], fixed)

    for again in in_passing:
        answer = rest_add(key_client, again)
        assert answer["action"] == "ignored", (again, answer)
        assert "corrected" in answer["reason"]
        assert _current() == [fixed], again
    mem0 = mem0_add(key_client, in_passing[0])["results"]
    assert [r["event"] for r in mem0] == ["NONE"] and "corrected" in mem0[0]["reason"], mem0
    assert _current() == [fixed]

    answer = rest_add(key_client, news)
    assert answer["action"] == "superseded", answer
    assert answer["replaced"] == corrected["id"]
    assert _current() == [news]


def test_another_claim_naming_the_corrected_value_is_kept(key_client):
    wrong = rest_add(key_client, "我住在成都。")["entry"]
    _correct(key_client, wrong["id"], "我住在重庆。")
    for other in ["我成都的朋友下周来看我。", "My cousin from Chengdu is visiting next week."]:
        assert rest_add(key_client, other)["action"] == "added", other
    assert "我住在重庆。" in _current()


def test_a_value_the_user_never_corrected_still_updates_as_before(key_client):
    rest_add(key_client, "I live in Leeds.")
    rest_add(key_client, "I live in York.")
    assert rest_add(key_client, "I live in Leeds.")["action"] == "superseded"
    assert _current() == ["I live in Leeds."]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I work at Northwind as an analyst.", "I just started a new job at Tailspin Toys."),
        ("I work as a nurse at St Mary's.", "Got hired by Contoso Pharma last week!"),
        ("我在阿里巴巴做数据分析师。", "我刚入职腾讯。"),
        ("I work at Northwind.", "I'm a line cook at Fourth Coffee now."),
    ],
)
def test_a_new_employer_ends_the_role_held_at_the_old_one(key_client, before, after):
    assert rest_add(key_client, before)["action"] == "added"
    assert rest_add(key_client, after)["action"] == "superseded"
    assert _current() == [after]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("I'm a nurse.", "I work at St Mary's Hospital."),
        ("I work at Contoso.", "I'm a nurse."),
        ("我是一名教师。", "我在北京四中工作。"),
    ],
)
def test_a_role_and_an_employer_that_do_not_contradict_are_both_kept(key_client, before, after):
    assert rest_add(key_client, before)["action"] == "added"
    assert rest_add(key_client, after)["action"] == "added"
    assert _current() == sorted([before, after])


@pytest.mark.django_db(transaction=True)
def test_over_mcp_a_corrected_value_said_again_stays_corrected(owner, mcp_url):
    import anyio

    from api.services import user_token_issue
    from tests.api import mcp_helpers as m

    token = user_token_issue(user=owner).key

    async def scenario() -> tuple[dict, dict, dict]:
        async with m.http_client(mcp_url, token) as client:
            wrong = await m.ok(client, "memory_add", content="I live in Harrogate.")
            await m.ok(client, "memory_correct", memory_id=wrong["entry"]["id"], content="I live in Ripon.")
            passing = await m.ok(client, "memory_add", content="Harrogate is where I live.")
            moved = await m.ok(client, "memory_add", content="I moved back to Harrogate in March.")
            # The news replaced the correction: Harrogate said again is no value taken back now.
            after = await m.ok(client, "memory_add", content="I live in Harrogate.")
            return passing, moved, after

    passing, moved, after = anyio.run(scenario)
    assert passing["action"] == "ignored" and "corrected" in passing["reason"], passing
    assert moved["action"] == "superseded", moved
    assert after["action"] != "ignored", after
    assert "I live in Ripon." not in _current()
