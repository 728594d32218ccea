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
# A pupil or a patient named with their class or their bed: someone at the user's work.
SLOTTED = [
    "Heads up for Friday's cover: Priya (Y7) has a severe sesame allergy and her lunch comes from home.",
    "Noah in 4C has epilepsy and always sits by the door in assemblies.",
    "Bed 9's gentleman is on warfarin, so no intramuscular injections for him.",
    "For the new lunchtime staff: Mia in Reception has a peanut allergy, her EpiPen hangs on the red peg.",
    "Oscar (Yr 5) is coeliac, so he only ever gets the gluten-free bread from the top shelf.",
    # held as rules, with what to do: no condition of the user's kept beside them
    "Freddie (Y4) has type 1 diabetes. If he looks pale and shaky, give him two glucose tabs from his "
    "left pocket and call his dad.",
    "Bed 6's baby has reflux and is on omeprazole, so keep him upright for twenty minutes after every feed.",
    "Ruby (Y2) carries an inhaler for her asthma. It goes with her to forest school and swimming, "
    "no exceptions.",
]
OWN_CHILD_IN_A_CLASS = "Our daughter in Year 3 has asthma and uses a blue inhaler."


@pytest.mark.parametrize("said", SERVED)
def test_rest_does_not_pin_the_condition_of_someone_served_at_work(key_client, said):
    assert not pinned(rest_add(key_client, said))


def test_mem0_and_the_batch_route_read_them_alike_and_keep_the_users_own(key_client):
    for said in SERVED[:2]:
        mem0_add(key_client, said)
        assert not MemoryEntry.objects.filter(content=said, pinned=True).exists(), said
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


@pytest.mark.parametrize("said", SLOTTED)
def test_rest_does_not_pin_a_pupils_or_patients_condition_named_with_their_class_or_bed(key_client, said):
    assert not pinned(rest_add(key_client, said))


def test_the_batch_route_mem0_and_mcp_read_class_and_bed_alike_and_keep_the_users_child(key_client):
    results = batch_add(key_client, [*SLOTTED[5:], OWN_CHILD_IN_A_CLASS])
    assert [pinned(r) for r in results] == [False, False, False, True], results
    mem0_add(key_client, SLOTTED[7])
    assert not MemoryEntry.objects.filter(pinned=True, content__contains="Ruby").exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_class_and_bed_alike(owner, mcp_url):
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, [SLOTTED[6], OWN_CHILD_IN_A_CLASS])
    assert [pinned(b) for b in bodies] == [False, True], bodies


def test_the_chat_and_an_import_read_class_and_bed_alike(
    key_client, owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {SLOTTED[1]}"})
    told = [
        "Kacper (Y10) is on methylphenidate, so he sits near the front in every lesson.",
        OWN_CHILD_IN_A_CLASS,
    ]
    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": "\n".join(told), "user_id": "u1"}, format="json"
    ).json()

    assert body["done"] == 2 and all(r["action"] in ("added", "pending_review") for r in body["results"]), (
        body
    )
    told_in_chat = MemoryEntry.objects.filter(content__contains="Noah")
    assert told_in_chat.exists() and not told_in_chat.filter(pinned=True).exists()
    assert not MemoryEntry.objects.filter(pinned=True, content__contains="Kacper").exists()
    assert MemoryEntry.objects.filter(pinned=True, content=OWN_CHILD_IN_A_CLASS).exists()
