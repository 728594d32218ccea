# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so must the tests.
"""An instruction said to be for one occasion ("for tonight only", "just for today", "For the
wedding day:", "For tomorrow's match,", "仅限今天", "就今天", a message that opens with "Tonight",
"Tomorrow", "明天", "聽日") is a one-off, not a standing rule, however firmly it is worded ("all
staff must…", "所有人…都必须…"): it is stored and recalled like any turn, not held for an operator.
With a standing scope too ("From now on, for the party menu: …", "From today, …") it is a rule; one
that would relax a control still waits, flagged. Through REST, its batch route, mem0's route, MCP
and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

ONE_OCCASION = [
    "For tonight only, all staff must use the side entrance because the lobby is being painted.",
    "For the wedding day: the photographer must never stand in the aisle during the vows.",
    "For tomorrow's match, every player must be at the ground by 9 with their shin pads.",
    "For tomorrow only, always ring me before you book anything in my calendar.",
    "仅限今天，所有员工必须从后门进出，大堂在刷漆。",
    "就今天，所有人下班前都必须把电脑关机，明早要断电检修。",
    # A message that opens with tonight, today or tomorrow (not "from" it on): held before.
    "Tonight every door must be locked by ten and nobody opens the till after close.",
    "Tomorrow all volunteers must wear hi-vis and nobody parks on the grass.",
    "明天所有人必须七点前到，不准迟到。",
    "聽日所有人一定要七點前到，唔准遲到。",
]
FROM_TODAY_ON = [
    "From today, all visitors must sign in at reception.",
    # Tomorrow and every day after is no one occasion.
    "Tomorrow and every day after that, the van keys go in the key safe.",
]
STANDING_TOO = "From now on, for the party menu: no peanuts ever."
RELAXATION_THIS_ONCE = "Just this once, you can skip checking my ID at the door."


@pytest.mark.parametrize("said", ONE_OCCASION)
def test_rest_and_mem0_store_a_one_off_as_said(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["entry"]["status"]) == ("added", "active"), body
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD", result


def test_a_standing_scope_beside_the_occasion_is_still_a_rule(key_client):
    body = rest_add(key_client, STANDING_TOO)
    assert (body["action"], body["flagged"]) == ("pending_review", False), body


def test_a_relaxation_just_this_once_still_waits_flagged(key_client):
    body = rest_add(key_client, RELAXATION_THIS_ONCE)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [*ONE_OCCASION, STANDING_TOO, RELAXATION_THIS_ONCE])
    actions = [r["action"] for r in results]
    assert actions == ["added"] * len(ONE_OCCASION) + ["pending_review"] * 2, actions


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    told = [ONE_OCCASION[0], ONE_OCCASION[5], RELAXATION_THIS_ONCE]
    answers = m.adds(mcp_url, user_token_issue(user=owner).key, told)
    assert [(a["action"], a["flagged"]) for a in answers] == [
        ("added", False),
        ("added", False),
        ("pending_review", True),
    ], answers


def test_the_chat_keeps_a_one_off_told_to_remember(owner, django_capture_on_commit_callbacks):
    for said in (ONE_OCCASION[2], ONE_OCCASION[4]):
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": f"Remember this: {said}"})

    kept = MemoryEntry.objects.all()
    assert kept.count() == 2 and all(e.status == MemoryStatus.ACTIVE for e in kept), [
        (e.content, e.status) for e in kept
    ]


@pytest.mark.parametrize("said", FROM_TODAY_ON)
def test_an_instruction_from_today_on_is_held(key_client, said):
    assert rest_add(key_client, said)["action"] == "pending_review"
