"""A condition told of someone the statement names first ("Priya, our stage manager, has a
pacemaker", "One of my pupils, Kai, has type 1 diabetes") is theirs: the rules' reader, which reads
what the chat is asked to remember and what the offline extraction keeps (mem0 `infer`), read the
clause after the name as a note's subjectless "Has a pacemaker" and kept "The user has a
pacemaker", pinned as the user's own. Over the labelled English texts it did so for 46 statements
about a colleague, a pupil, a guest or a relative; a note's label ("Note: asthmatic, …") is still
the user's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memory_core.models import MemoryEntry
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (what was said, the condition's word)
NAMED_FIRST = [
    ("Priya, our stage manager, has a pacemaker, so keep the radio mics well away from her.", "pacemaker"),
    ("One of my pupils, Kai, has type 1 diabetes and checks his sugar at break.", "diabetes"),
    ("Our new volunteer at the food bank, Brenda, is allergic to latex.", "latex"),
    ("Ted, who comes in on Tuesdays, is on warfarin.", "warfarin"),
]


def _about_the_user(word: str) -> list[str]:
    return [
        entry.content
        for entry in MemoryEntry.objects.filter(content__icontains=word)
        if entry.content.lower().startswith("the user") or entry.pinned
    ]


@pytest.mark.parametrize(("said", "word"), NAMED_FIRST)
def test_the_chat_keeps_it_as_theirs(owner, django_capture_on_commit_callbacks, said, word):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})

    assert MemoryEntry.objects.filter(content__icontains=word).exists()
    assert _about_the_user(word) == []


@pytest.mark.parametrize(("said", "word"), NAMED_FIRST[1:3])
def test_mem0_infer_keeps_it_as_theirs(key_client, django_capture_on_commit_callbacks, said, word):
    body = {"messages": [{"role": "user", "content": said}], "user_id": "u1"}
    with django_capture_on_commit_callbacks(execute=True):
        queued = key_client.post("/v3/memories/add/", body, format="json").json()
    assert key_client.get(f"/v1/event/{queued['event_id']}/").json()["status"] == "SUCCEEDED"

    assert _about_the_user(word) == []


def test_a_notes_label_and_the_users_own_condition_are_still_the_users(
    owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "Remember that I'm allergic to latex."})

    assert MemoryEntry.objects.filter(content="The user is allergic to latex.", pinned=True).exists()


def test_mem0_infer_reads_a_notes_label_as_the_users(key_client, django_capture_on_commit_callbacks):
    body = {
        "messages": [{"role": "user", "content": "Note: asthmatic, inhaler before every run."}],
        "user_id": "u1",
    }
    with django_capture_on_commit_callbacks(execute=True):
        key_client.post("/v3/memories/add/", body, format="json")

    assert MemoryEntry.objects.filter(content="The user is asthmatic.", pinned=True).exists()
