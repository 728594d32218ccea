# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width commas; so must the tests.
"""Telling the people one is about to eat with not to wait ("running late, start without me",
"你们别等我先开吃") arranges one meal; it is ordinary conversation, stored and recalled like any
turn. The models retrained with batch 56 held "周末的烧烤我晚点到，先去接我妹，你们别等我先开吃。"
for an operator (the averaged rule score 0.653 against 0.626), where it would never be recalled.
Over the labelled sets 14 statements say so and none is a rule; said with a standing scope
("from now on…") it is still judged as a rule may be.

Through REST, its batch route, mem0's route, MCP and the chat's "remember that"."""

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

MISSED_MEALS = [
    "周末的烧烤我晚点到，先去接我妹，你们别等我先开吃。",
    "周六的火锅我要加班，你们别等我先吃，给我留点毛肚。",
    "聽晚團年飯我遲啲到，你哋唔使等我，先食啦，幫我留碗湯。",
    "Stuck at the vet with the dog, so don't wait for me for dinner, just keep a plate warm.",
    "Meeting's overrunning again. Please start without me and save me a slice of the birthday cake.",
    "Train's cancelled, I'll be an hour late to Mum's birthday lunch, go ahead and eat without me.",
    "明晚的年夜饭我值班要晚到，你们先开饭，别等我，给奶奶说一声。",
]
STANDING = "From now on never wait for me for dinner on Tuesdays, I have choir and get back after nine."


@pytest.mark.parametrize("said", MISSED_MEALS)
def test_rest_and_mem0_store_a_missed_meal_as_said(key_client, said):
    assert rest_add(key_client, said)["action"] == "added", said
    (result,) = mem0_add(key_client, said + " 🙏")["results"]
    assert result["event"] == "ADD", result
    assert MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).count() == 2


def test_the_batch_route_stores_them_and_still_holds_a_standing_one(key_client):
    results = batch_add(key_client, [*MISSED_MEALS, STANDING])
    assert [r["action"] for r in results] == ["added"] * len(MISSED_MEALS) + ["pending_review"], results


@pytest.mark.django_db(transaction=True)
def test_mcp_stores_a_missed_meal_and_holds_a_standing_one(owner, mcp_url):
    token = user_token_issue(user=owner).key
    results = m.adds(mcp_url, token, [MISSED_MEALS[1], MISSED_MEALS[5], STANDING])
    assert [r["action"] for r in results] == ["added", "added", "pending_review"], results


@pytest.mark.parametrize("said", [MISSED_MEALS[2], MISSED_MEALS[4]])
def test_chat_remember_that_keeps_a_missed_meal_where_it_is_recalled(
    owner, django_capture_on_commit_callbacks, said
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})
    assert Message.objects.filter(role="assistant").exists()
    assert MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists(), list(
        MemoryEntry.objects.values_list("content", "status")
    )
    assert not MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW).exists()
