# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so do these tests.
"""Two readings beside the learned models (batch 23's first score showed both).

A standing request built on the speaker's condition ("My knee replacement is still settling. From
now on please put my physio sessions on Mondays.") is a rule: its standing scope and a request's
word hold it for review on a score the rule model alone would not (the condition is kept at once,
pinned). "whenever" in a description ("she gets hives whenever she eats kiwi") is no such scope.

A condition told of a partner, flatmate or mentee the statement opens with is theirs: stored, not
pinned as the user's; the user's own and a child's stay pinned. Through REST, mem0's route, MCP and
the chat's "remember that"."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

STANDING_REQUESTS = [
    "My knee replacement is still settling. From now on please put my physio sessions on Mondays.",
    "我有甲减，每天早上空腹吃优甲乐，你每天早上七点提醒我一声。",
    "我有高血压，每天晚上九点吃药，你每天晚上提醒我一声别忘了。",
]
DESCRIBED_NOT_ASKED = [
    "My son gets nosebleeds whenever the heating is on.",
    "I always forget my keys lol",
    "我每次吃完火锅都拉肚子，哈哈",
]
OTHERS_CONDITIONS = [
    "My boyfriend's asthma is bad this week with the pollen.",
    "My mentee has a nut allergy, so I always check the biscuits at our meetings.",
    "Heads up, my flatmate's epilepsy meds changed so she's a bit tired.",
    # someone of the class, ward or team the user works with
    "我班上的阿哲有第一型糖尿病，段考那幾天我已經幫他申請帶血糖機跟點心進教室",
    "Two kids in my class have allergies: Omar (egg) and Bea (peanuts).",
    "A few kids in my class have asthma, so I keep spare inhalers in my desk.",
    "One of the residents on my unit has started on warfarin, so I watch for bruising.",
]
OWN_OR_A_CHILDS = [
    "My son has coeliac disease.",
    "My partner and I are both coeliac.",
    "I look after my dad, who has COPD and needs oxygen at night.",
]


def _rest(client, content: str) -> dict:
    body = {"user_id": uuid.uuid4().hex, "content": content}
    response = client.post("/api/v1/memories/", body, format="json")
    assert response.status_code in (200, 201), response.content
    return response.json()


def _mem0(client, content: str) -> list[dict]:
    body = {"messages": [{"role": "user", "content": content}], "user_id": uuid.uuid4().hex, "infer": False}
    response = client.post("/v3/memories/add/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["results"]


@pytest.mark.parametrize("said", STANDING_REQUESTS)
def test_a_standing_request_on_ones_condition_waits_and_its_condition_is_kept(key_client, said):
    body = _rest(key_client, said)
    assert body["action"] == "pending_review", body
    assert [a["entry"]["pinned"] for a in body["also"]] == [True]

    held, kept = _mem0(key_client, said)
    assert (held["event"], held["status"]) == ("NONE", "pending_review")
    assert kept["event"] == "ADD"


@pytest.mark.parametrize("said", DESCRIBED_NOT_ASKED)
def test_always_or_whenever_in_a_description_is_no_rule(key_client, said):
    assert _rest(key_client, said)["action"] == "added"
    [result] = _mem0(key_client, said)
    assert result["event"] == "ADD" and "status" not in result


@pytest.mark.parametrize("said", OTHERS_CONDITIONS)
def test_someone_elses_condition_is_kept_but_not_pinned(key_client, said):
    body = _rest(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is False
    [result] = _mem0(key_client, said)
    assert result["event"] == "ADD"
    assert not MemoryEntry.objects.filter(pinned=True).exists()


def test_ones_own_and_a_dependants_stay_pinned(key_client):
    for said in OWN_OR_A_CHILDS:
        body = _rest(key_client, said)
        assert body["action"] == "added" and body["entry"]["pinned"] is True, said


@pytest.mark.django_db(transaction=True)
def test_mcp_holds_the_request_and_leaves_the_flatmates_condition_unpinned(owner, mcp_url):
    held, other = m.adds(
        mcp_url, user_token_issue(user=owner).key, [STANDING_REQUESTS[0], OTHERS_CONDITIONS[2]]
    )
    assert held["action"] == "pending_review"
    assert other["action"] == "added" and other["entry"]["pinned"] is False


def test_the_chat_keeps_the_request_waiting_and_a_mentees_allergy_unpinned(
    owner, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": "记住：" + STANDING_REQUESTS[2]})
        client.post(reverse("chat:new"), {"content": "Remember that " + OTHERS_CONDITIONS[1]})

    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW, type="procedural").count() == 1
    mentee = MemoryEntry.objects.get(content__icontains="mentee")
    assert mentee.status == MemoryStatus.ACTIVE and not mentee.pinned
