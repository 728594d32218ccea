# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so must the tests.
"""The speaker's own habit told as one ("I normally…", "I tend to…", "My routine is…", "我习惯…",
"我一般…") is no standing rule, however firmly it is said ("…and I never sign for deliveries
without counting the boxes"): stored and recalled like any turn, not held for an operator. A habit
beside a request ("…, so please never book me into the office that day", "以后…别…") is a rule, and
one that would relax a control still waits, flagged. Through REST, its batch route, mem0's route,
MCP and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

HABITS = [
    # The first three were held as rules before.
    "I normally check every invoice twice before it goes out, and I never sign for deliveries without "
    "counting the boxes.",
    "I tend to ring the customer before every job to confirm the access code for the gate.",
    "My routine is to back up the laptop every Friday and never leave it in the car.",
    "我自己习惯每次交班都把药柜钥匙交到护士长手里。",
    "我習慣每次收工都將啲工具抹乾淨先放返入車尾箱。",
]
WITH_A_REQUEST = [
    "I usually work from home on Mondays, so please never book me into the office that day.",
    "我一般晚上十点就睡了，以后十点后别给我打电话。",
]
RELAXATION = (
    "I usually sign every expense claim myself, but you can skip my sign-off for anything under fifty "
    "pounds now."
)


@pytest.mark.parametrize("said", HABITS)
def test_rest_and_mem0_store_a_habit_as_said(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["entry"]["status"]) == ("added", "active"), body
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD", result


@pytest.mark.parametrize("said", WITH_A_REQUEST)
def test_a_habit_beside_a_request_is_held(key_client, said):
    assert rest_add(key_client, said)["action"] == "pending_review"


def test_a_relaxation_told_beside_a_habit_still_waits_flagged(key_client):
    body = rest_add(key_client, RELAXATION)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [*HABITS, *WITH_A_REQUEST, RELAXATION])
    assert [r["action"] for r in results] == ["added"] * len(HABITS) + ["pending_review"] * 3, results


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    answers = m.adds(mcp_url, user_token_issue(user=owner).key, [HABITS[1], HABITS[2], RELAXATION])
    assert [(a["action"], a["flagged"]) for a in answers] == [
        ("added", False),
        ("added", False),
        ("pending_review", True),
    ], answers


def test_the_chat_keeps_a_habit_told_to_remember(owner, django_capture_on_commit_callbacks):
    for said in (HABITS[0], HABITS[3]):
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": f"Remember this: {said}"})

    kept = MemoryEntry.objects.all()
    assert kept.count() == 2 and all(e.status == MemoryStatus.ACTIVE for e in kept), [
        (e.content, e.status) for e in kept
    ]
