# ruff: noqa: RUF001 -- Chinese users type full-width colons and commas; so must the tests.
"""A condition told under a work record's heading (a bed, a room, a cabin, a pupil's class, an
order, a booking) with nobody in it saying "I", "my" or "our" is a note of someone the user serves:
a nurse's of a patient, a teacher's of a pupil, a clerk's of a customer ("Ward 7, bay 2, bed 4:
coeliac…", "Saturday booking: wheelchair user…"). Before, such notes were pinned as the user's own
safety facts, a subject-less "coeliac" or "pregnant" read as the speaker's (3 of batch 56's 11
false pins). The same heading with the user's own words ("Booking note: I'm allergic to latex",
"Table 4: my son has a nut allergy") stays the user's to tell.

Through REST, mem0's route (`infer` false, and true with no model: the offline extraction), the
batch route, an import, MCP and the chat's "remember this"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, mem0_infer, pinned, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

RECORD_NOTES = [
    "Bed 6 - type 1 diabetic on a pump, check sugars at 2am.",
    "Room 9, cot 2: baby on home oxygen, sats checked hourly.",
    "Cabin 14: wheelchair user, needs the ramp at every stop.",
    "Table 7: pregnant, no raw fish or soft cheese.",
    "Order 5531: coeliac, must be prepared separately.",
    "Year 5, Leo M.: type 1 diabetic, hypo kit in the office.",
    "VIP 3号房：孕妇，不要放香薰。",
]
THE_USERS_OWN = [
    "Booking note: I'm allergic to latex, please use nitrile gloves.",
    "Table 4: my son has a severe nut allergy, can the kitchen check the dessert?",
    "Room 12: I'm type 1 and need a fridge for my insulin.",
]


@pytest.mark.parametrize("said", RECORD_NOTES)
def test_rest_and_mem0_keep_a_record_note_unpinned(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] in ("added", "pending_review") and not pinned(body), body
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.exists() and not MemoryEntry.objects.filter(pinned=True).exists(), said


@pytest.mark.parametrize("said", THE_USERS_OWN)
def test_the_users_own_words_under_a_heading_are_still_pinned(key_client, said):
    assert pinned(rest_add(key_client, said)), said


@pytest.mark.parametrize("said", [RECORD_NOTES[3], RECORD_NOTES[4], RECORD_NOTES[6]])
def test_mem0s_default_add_without_a_model_pins_no_record_note(
    key_client, django_capture_on_commit_callbacks, said
):
    mem0_infer(key_client, django_capture_on_commit_callbacks, said)
    assert not MemoryEntry.objects.filter(pinned=True).exists(), list(
        MemoryEntry.objects.values_list("content", "pinned")
    )


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [*RECORD_NOTES, *THE_USERS_OWN])
    read = [pinned(result) for result in results]
    assert read == [False] * len(RECORD_NOTES) + [True] * len(THE_USERS_OWN), read


def test_an_import_reads_them_alike(key_client):
    import_lines(key_client, RECORD_NOTES[:4])
    assert MemoryEntry.objects.count() >= 4 and not MemoryEntry.objects.filter(pinned=True).exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    token = user_token_issue(user=owner).key
    note, zh_note, own = m.adds(mcp_url, token, [RECORD_NOTES[0], RECORD_NOTES[6], THE_USERS_OWN[1]])
    assert not pinned(note) and not pinned(zh_note), (note, zh_note)
    assert pinned(own), own


@pytest.mark.parametrize("said", [RECORD_NOTES[2], RECORD_NOTES[6]])
def test_chat_remember_that_keeps_a_record_note_unpinned(owner, django_capture_on_commit_callbacks, said):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember this: {said}"})
    assert Message.objects.filter(role="assistant").exists()
    assert MemoryEntry.objects.exists(), said
    assert not MemoryEntry.objects.filter(pinned=True).exists(), list(
        MemoryEntry.objects.values_list("content", "pinned")
    )


def test_chat_remember_that_still_pins_the_users_own_words_under_a_heading(
    owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember this: {THE_USERS_OWN[0]}"})
    assert MemoryEntry.objects.filter(pinned=True, category="safety").exists(), list(
        MemoryEntry.objects.values_list("content", "pinned")
    )
