# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so do these tests.
"""A condition told inside a message about something else (an expenses question, a late note, a change
of plans, a meeting arranged by voice without punctuation) is the user's or a dependant's safety
fact all the same: the statement is stored as said and pinned, on REST, mem0 and MCP, in English and
Chinese. So is a medicine named without its condition. Someone else's condition told in passing, and
ordinary turns of several clauses, are not pinned. Written for these tests alone: none of it is in
the labelled sets the models learned from."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core.judgement import medicines
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

IN_PASSING = [
    "Can you move my dentist appointment to the afternoon? I'm thirty weeks pregnant and mornings are rough.",
    "Running late for the 10 o'clock, sorry. My daughter's insulin pump alarm went off at drop-off.",
    # The models retrained with the self-description contrast set read it whole 0.58 the user's;
    # those retrained with batch 59 0.525 (under 0.532), those retrained with batch 60 pin it again.
    "帮我把下周的会都挪到下午吧，我每天早上要去医院做放疗，大概要一个月。",
    "下午我得早点走，我爸刚装了起搏器，今天要去医院复查。",
]
# Said by voice, no punctuation: the pauses are spaces, and a condition is one clause of many.
VOICE_INPUT = [
    "后天早上五点半在渔港码头集合 带好雨衣跟水桶 我糖尿病得先打针吃点东西 可能晚一刻钟到",
    "明早六点在山脚停车场碰头 头灯和登山杖自己带 我癫痫药得饭后吃 会晚十来分钟",
    "下午两点在图书馆三楼讨论 资料我打印好了 我对花生过敏 零食别买带坚果的 大概四点结束",
]
# More voice input for the other entry points, the user's and a dependant's, and one with none.
VOICE_INPUT_MORE = [
    "周日上午九点半在游泳馆门口见 泳镜我多带一副 我有哮喘 喷雾我自己带着 游完一起去饮茶",
    "下礼拜三晚上七点在小区门口集合 我儿子有癫痫 他的药我放在背包侧袋 大概九点回来",
]
VOICE_INPUT_NONE = "明天早上八点半在公司楼下集合 我开车 你们带好身份证 中午在服务区吃饭"
# A medicine named, its condition not.
MEDICINE_NAMED = [
    "Grandma's on rivaroxaban now, the GP switched her over from warfarin last week.",
    "I'm on lithium, remind me to book the blood level check before the 20th.",
    "Picked up Dad's tacrolimus from the hospital pharmacy on the way home, the queue was ages.",
]
NOT_PINNED = [
    "Priya from accounts is thirty weeks pregnant and finishing on Friday, we're getting her a card.",
    "Thanks for the lift on Sunday, the kids loved the beach and we'll definitely go again.",
    "Can you move the team lunch to Thursday? The usual place is shut for a refit, so book the Thai one.",
    "周末的烧烤我晚点到，先去接我妹，你们别等我先开吃。",
    "明天下午三点开会 我带投影仪 你们带电脑 会后一起吃饭",
    "周六早上七点地铁站见 我带水和面包 你们带点水果 爬完山去吃火锅",
]


def _pinned_as_said(said: str) -> None:
    kept = MemoryEntry.objects.get(content=said)
    assert (kept.status, kept.pinned) == (MemoryStatus.ACTIVE, True), said


@pytest.mark.parametrize(
    "said",
    IN_PASSING + VOICE_INPUT + MEDICINE_NAMED,
)
def test_rest_pins_a_condition_told_in_passing_and_recalls_it_always(key_client, said):
    body = rest_add(key_client, said)

    assert body["action"] == "added" and body["entry"]["pinned"] is True, body
    _pinned_as_said(said)
    recalled = key_client.post(
        "/api/v1/recall/", {"user_id": "u1", "query": "what's the weather like this weekend?"}, format="json"
    ).json()
    # Whatever was asked, it reaches the prompt (apart, or ranked when the query found it anyway).
    assert said in recalled["prompt_block"]


@pytest.mark.parametrize("said", [IN_PASSING[0], IN_PASSING[3], VOICE_INPUT[1], MEDICINE_NAMED[0]])
def test_mem0_pins_a_condition_told_in_passing(key_client, said):
    (result,) = mem0_add(key_client, said)["results"]

    assert result["event"] == "ADD" and "status" not in result, result
    _pinned_as_said(said)


@pytest.mark.django_db(transaction=True)
def test_mcp_pins_a_condition_told_in_passing(owner, mcp_url):
    said = IN_PASSING[1]
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])

    assert body["action"] == "added" and body["entry"]["pinned"] is True, body
    _pinned_as_said(said)


@pytest.mark.django_db(transaction=True)
def test_mcp_pins_a_condition_said_by_voice_and_not_an_arrangement(owner, mcp_url):
    said = [*VOICE_INPUT_MORE, VOICE_INPUT_NONE]
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, said)

    answers = [(b["action"], b["entry"]["pinned"]) for b in bodies]
    assert answers == [("added", True), ("added", True), ("added", False)], bodies
    for condition in VOICE_INPUT_MORE:
        _pinned_as_said(condition)


def test_an_import_pins_a_condition_said_by_voice_and_not_an_arrangement(key_client):
    body = key_client.post(
        "/api/v1/imports/",
        {"format": "text", "data": f"{VOICE_INPUT_MORE[1]}\n{VOICE_INPUT_NONE}\n", "user_id": "u1"},
        format="json",
    ).json()

    assert [r["action"] for r in body["results"]] == ["added"] * 2, body
    pinned = set(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert pinned == {VOICE_INPUT_MORE[1]}


def test_an_import_pins_conditions_told_in_passing_and_nothing_else(key_client):
    said = [IN_PASSING[1], MEDICINE_NAMED[2], NOT_PINNED[0], NOT_PINNED[3]]
    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": "\n".join(said) + "\n", "user_id": "u1"}, format="json"
    ).json()

    assert [r["action"] for r in body["results"]] == ["added"] * 4, body
    pinned = set(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert pinned == {IN_PASSING[1], MEDICINE_NAMED[2]}


@pytest.mark.parametrize(
    ("said", "condition"),
    [(f"Remember that: {MEDICINE_NAMED[2]}", "tacrolimus"), (f"记住 {VOICE_INPUT_MORE[0]}", "哮喘")],
    ids=["medicine named", "said by voice"],
)
def test_chat_remember_that_pins_a_condition_told_in_passing(
    owner, django_capture_on_commit_callbacks, said, condition
):
    client = client_for(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": said})
    assert Message.objects.filter(role="assistant").exists()
    kept = MemoryEntry.objects.get(content__contains=condition)
    assert (kept.status, kept.pinned) == (MemoryStatus.ACTIVE, True), kept.content


def test_someone_elses_condition_and_ordinary_turns_are_stored_unpinned(key_client):
    for said in NOT_PINNED:
        assert rest_add(key_client, said)["action"] == "added", said
    for said in NOT_PINNED:
        (result,) = mem0_add(key_client, said + " 🙂")["results"]
        assert result["event"] == "ADD", result
    assert not MemoryEntry.objects.filter(pinned=True).exists()
    assert MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).count() == 2 * len(NOT_PINNED)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Grandad is on apixaban and a statin.", ["apixaban"]),
        ("Mum's Eliquis is in the kitchen drawer", ["eliquis"]),
        ("two puffs of Ventolin before football", ["ventolin"]),
        ("Ella and Dr Gomez went to the shops for rice and sunflower oil.", []),
    ],
)
def test_medicine_names_are_read_generic_and_brand_and_ordinary_words_are_not(text, found):
    assert medicines.named(text) == found
