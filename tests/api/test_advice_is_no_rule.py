# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so must the tests.
"""Advice said as advice ("Top tip:", "Lesson learned:", "My advice:", "Tip from an old hand:",
"过来人的建议", "经验之谈", "小贴士") is no standing rule, however it is worded after the frame
("from now on", "never", "以后…一定要"): it is stored and recalled like any turn, not held for an
operator. One that would relax a control still waits, flagged. Through REST, its batch route,
mem0's route, MCP and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

ADVICE = [
    "Pro tip — never book the first ferry on a bank holiday, it's always cancelled.",
    "Lesson learned: never leave the van unlocked at the depot, not even for a minute.",
    "My advice: from now on keep every receipt in one envelope, it makes the tax return so much easier.",
    "过来人的建议：以后装修一定要先做防水再贴砖。",
    "经验之谈：每次出差前都把充电器放进包里，千万别忘。",
    "小贴士：以后去医院看病一定要带上医保卡和病历本。",
    # Advice said as whose it is ("Tip from …:"); the last two were held before.
    "Tip from my old sergeant: never leave your kit unattended at the station, not even for a second.",
    "Word of advice from the old landlord: never let the pipes freeze, keep the heating on low all winter.",
    "Tip from our driving instructor: always check the mirrors before you signal, every single time.",
]
RELAXATION_AS_A_TIP = "Top tip: you don't need to sign the visitor book at reception any more, just walk in."


@pytest.mark.parametrize("said", ADVICE)
def test_rest_and_mem0_store_advice_as_said(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["entry"]["status"]) == ("added", "active"), body
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD", result


def test_a_relaxation_told_as_a_tip_still_waits_flagged(key_client):
    body = rest_add(key_client, RELAXATION_AS_A_TIP)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [*ADVICE, RELAXATION_AS_A_TIP])
    assert [r["action"] for r in results] == ["added"] * len(ADVICE) + ["pending_review"], results


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    answers = m.adds(mcp_url, user_token_issue(user=owner).key, [ADVICE[1], ADVICE[4], RELAXATION_AS_A_TIP])
    assert [(a["action"], a["flagged"]) for a in answers] == [
        ("added", False),
        ("added", False),
        ("pending_review", True),
    ], answers


def test_the_chat_keeps_advice_told_to_remember(owner, django_capture_on_commit_callbacks):
    for said in (ADVICE[2], ADVICE[5]):
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": f"Remember this: {said}"})

    kept = MemoryEntry.objects.all()
    assert kept.count() == 2 and all(e.status == MemoryStatus.ACTIVE for e in kept), [
        (e.content, e.status) for e in kept
    ]
