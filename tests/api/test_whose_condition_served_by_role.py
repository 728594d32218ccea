"""Someone the user serves at work, said by who they are and what the user does for them or by
their slot ("The mum I visit has postnatal depression…", "Lady I do on Tuesdays has Parkinson's…",
"Kid in the 4pm lesson has a cochlear implant…"), is someone else: their condition is not pinned
as the user's. Before, with no "my" to go by, the safety model took such a note for the user's or a
dependant's (batch 58: three of fifteen false pins). The user's own kin and the one they say they
care for are read as before. Through REST, mem0's route, the batch route, MCP and the chat."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, pinned, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

SERVED = [
    "The gentleman I drive to dialysis on Mondays has a pacemaker, so no phones near his chest in the car.",
    "The girl I tutor has type 1 diabetes and sometimes needs a juice box halfway through.",
    "Boy in the 10am swim session has epilepsy, so he stays in the shallow lane with a spotter.",
    "Old chap I read to at the care home is on warfarin and bruises if you grip his arm.",
    "Woman I clean for on Fridays has COPD; I don't use the bleach spray there any more.",
]
THEIRS = [
    "My son in the 4pm swim session has epilepsy, so he stays in the shallow lane.",
    "I have type 1 diabetes and sometimes need a juice box halfway through a lesson.",
]


@pytest.mark.parametrize("said", SERVED)
def test_rest_does_not_pin_the_condition_of_someone_served_at_work(key_client, said):
    assert not pinned(rest_add(key_client, said))


def test_mem0_and_the_batch_route_read_them_alike_and_keep_the_users_own(key_client):
    for said in SERVED[:2]:
        (result,) = mem0_add(key_client, said)["results"]
        assert result["event"] == "ADD", result
    results = batch_add(key_client, [*SERVED[2:], *THEIRS])
    assert [r["entry"]["pinned"] for r in results] == [False] * len(SERVED[2:]) + [True] * len(THEIRS)


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, [SERVED[4], THEIRS[0]])
    assert [b["entry"]["pinned"] for b in bodies] == [False, True], bodies


def test_the_chat_keeps_it_unpinned(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {SERVED[1]}"})
    kept = MemoryEntry.objects.filter(content__contains="tutor")
    assert kept.exists() and not kept.filter(pinned=True).exists(), [(e.content, e.pinned) for e in kept]
