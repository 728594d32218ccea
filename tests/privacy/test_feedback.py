"""Feedback on a memory (mem0's `feedback`): an event in the memory's history, shown with its
rating on the user's page, refused for someone else's memory, emptied by erasure."""

from __future__ import annotations

import pytest
from django.test import Client

from memory_core.erasure import memory_erase
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.lifecycle import memory_feedback
from memory_core.models import EventAction, MemoryEvent
from tests.memory_core.helpers import remember
from tests.privacy.helpers import opened

pytestmark = pytest.mark.django_db


def test_it_shows_the_rating_and_reason_in_the_memorys_history(owner):
    entry = remember(owner, "The user prefers aisle seats.")
    memory_feedback(actor=owner, memory_id=entry.pk, rating="VERY_NEGATIVE", reason="Wrong, I said window.")
    client = Client()
    client.force_login(owner)
    page = opened(client, client.get("/me/").content.decode())
    assert "feedback (very_negative)" in page and "Wrong, I said window." in page


def test_it_refuses_bad_feedback_and_someone_elses_memory(owner, other_user):
    entry = remember(owner, "The user prefers aisle seats.")
    with pytest.raises(NotFound):
        memory_feedback(actor=other_user, memory_id=entry.pk, rating="POSITIVE")
    with pytest.raises(MemoryServiceError):
        memory_feedback(actor=owner, memory_id=entry.pk, rating="MEH")
    assert not MemoryEvent.objects.filter(action=EventAction.FEEDBACK).exists()


def test_erasure_empties_the_feedback(owner):
    entry = remember(owner, "The user prefers aisle seats.")
    memory_feedback(actor=owner, memory_id=entry.pk, rating="NEGATIVE", reason="Stale since March.")
    memory_erase(actor=owner, memory_id=entry.pk)
    assert not MemoryEvent.objects.filter(reason__icontains="Stale").exists()
    assert not MemoryEvent.objects.filter(data__feedback="NEGATIVE").exists()
