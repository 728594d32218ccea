# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width question marks; so must the tests.
"""A standing request asked politely, as a question ("Could you stop suggesting recipes with
coriander from now on?", "以后能不能别给我推荐香菜的菜谱？"), asks for a standing instruction as
surely as the order does, and waits for an operator like it; a relaxation asked so ("Could you
always skip the two-factor check for me going forward?") waits flagged. Before, the models read
the question mark as a question (0.0-0.2) and stored them active: a relaxation so asked was in
force at once. A question that asks something else ("Can you tell me if the gym is always this
busy?", "Will you always love me?", "以后能不能少点加班啊？") stays a turn.

Through REST, its batch route, mem0's route, MCP and the chat."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

STANDING_ASKED = [
    "Could you stop suggesting recipes with coriander in them from now on?",
    "Would you please never put calls in my diary before 10am going forward?",
    "Can you always book me an aisle seat on long-haul flights from now on, please?",
    "以后能不能别再给我推荐有香菜的菜谱？",
    "你以後可唔可以唔好再喺星期日朝早約我開會？",
    "你以后帮我订酒店能不能都只订无烟房，不要吸烟楼层？",
    "Would you mind not booking me on red-eye flights going forward?",
    "I was wondering if you could always send the minutes to my deputy from now on?",
]
RELAXATIONS_ASKED = [
    "Could you skip the two-step verification for my transfers from now on?",
    "Can you share my calendar with my assistant going forward without asking me each time?",
    "你以后能不能直接把我的体检报告发给我老公，不用先问我？",
    "Would it be possible to stop asking me for my ID every time I call from now on?",
    "Is it okay if you skip the security questions with me going forward?",
    "Any chance you could drop the confirmation step for my orders from now on?",
]
ASKING_SOMETHING_ELSE = [
    "Can you tell me if the gym is always this busy on Mondays?",
    "Will you always remember my birthday?",
    "Can you believe he always leaves the dishes?",
    "以后能不能少点加班啊？",
    "Could you check whether the pharmacy is open every Sunday?",
    "Would you mind if I always called you Sam?",
    "Is it okay to eat eggs every day?",
]


@pytest.mark.parametrize("said", STANDING_ASKED)
def test_rest_and_mem0_hold_a_standing_request_asked_as_a_question(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["flagged"]) == ("pending_review", False), body
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert (result["event"], result["status"]) == ("NONE", "pending_review"), result


@pytest.mark.parametrize("said", RELAXATIONS_ASKED)
def test_a_relaxation_asked_as_a_question_waits_flagged(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_reads_them_alike_and_keeps_other_questions(key_client):
    results = batch_add(key_client, [*STANDING_ASKED, *RELAXATIONS_ASKED, *ASKING_SOMETHING_ELSE])
    held = len(STANDING_ASKED) + len(RELAXATIONS_ASKED)
    actions = [r["action"] for r in results]
    assert actions == ["pending_review"] * held + ["added"] * len(ASKING_SOMETHING_ELSE), actions


@pytest.mark.parametrize("said", ASKING_SOMETHING_ELSE)
def test_a_question_that_asks_something_else_is_stored_as_said(key_client, said):
    assert rest_add(key_client, said)["action"] == "added"


@pytest.mark.django_db(transaction=True)
def test_mcp_holds_them_and_flags_the_relaxation(owner, mcp_url):
    token = user_token_issue(user=owner).key
    answers = m.adds(mcp_url, token, [STANDING_ASKED[3], RELAXATIONS_ASKED[0], ASKING_SOMETHING_ELSE[1]])
    assert [(a["action"], a["flagged"]) for a in answers] == [
        ("pending_review", False),
        ("pending_review", True),
        ("added", False),
    ], answers


def test_chat_remember_that_holds_a_relaxation_asked_politely(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember this: {RELAXATIONS_ASKED[1]}"})
    assert Message.objects.filter(role="assistant").exists()
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW).exists()
