# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width colons; so must the tests.
""" "Remember this: …", "Don't forget this — …", "Keep the following in mind: …", "记住这个：…",
"记住以下几点：…" ask the chat to keep what follows as surely as "remember that …" does. Before,
"this" after "remember" was read as the thing to remember ("remember this place?"), so a
condition told that way was left to a background extraction that may never run, and nothing was
kept. "Remember this place?", "记住这个地方" and "你記得…嗎？" still ask nothing to be kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat.models import Message
from memory_core.models import MemoryEntry, MemoryStatus
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (what the user said, a word the pinned fact keeps)
TOLD_THIS_WAY = [
    ("Remember this: I'm allergic to latex, so nitrile gloves only.", "latex"),
    ("remember this please - my daughter is type 1 diabetic", "diabetic"),
    ("Don't forget this: my dad is on warfarin.", "warfarin"),
    ("Keep the following in mind: I'm 30 weeks pregnant.", "pregnant"),
    ("记住这个：我对青霉素过敏。", "青霉素"),
    ("麻烦你记住以下几点：我儿子有癫痫。", "癫痫"),
    ("Note that I'm allergic to sulfa drugs.", "sulfa"),
    ("For the record, my son has epilepsy and carries buccal midazolam.", "epilepsy"),
    ("Please make a note: I'm on lithium.", "lithium"),
    ("请记得我对花生过敏。", "花生"),
    ("你要记住我老婆怀孕了", "怀孕"),
    ("幫我記低：我個仔對雞蛋過敏", "雞蛋"),
]
ASKING_NOTHING = [
    "Remember this place? We had our first date there.",
    "记住这个地方",
    "帮我记住这个。",
    "你記得我對花生過敏嗎？",
    "I need to note that down somewhere.",
]


def _say(owner, capture, content: str) -> None:
    with capture(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": content})
    assert Message.objects.filter(role="assistant").exists()


@pytest.mark.parametrize(("said", "word"), TOLD_THIS_WAY)
def test_a_condition_told_after_remember_this_is_kept_and_pinned(
    owner, django_capture_on_commit_callbacks, said, word
):
    _say(owner, django_capture_on_commit_callbacks, said)
    kept = MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE, pinned=True, category="safety")
    assert any(word in entry.content for entry in kept), list(
        MemoryEntry.objects.values_list("content", "pinned")
    )


@pytest.mark.parametrize("said", ASKING_NOTHING)
def test_remember_this_with_nothing_after_it_keeps_nothing(owner, django_capture_on_commit_callbacks, said):
    _say(owner, django_capture_on_commit_callbacks, said)
    assert not MemoryEntry.objects.filter(content__in=["这个地方。", "这个。", "This place?"]).exists()
    assert not MemoryEntry.objects.filter(pinned=True).exists()
