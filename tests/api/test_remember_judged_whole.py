# ruff: noqa: RUF001 -- Chinese users type full-width commas and colons; so must the tests.
"""What the chat's "remember that …" keeps is judged as a direct write judges it: whole. A remark
whose first sentence alone reads as a rule, and which as said is none, is kept at once, as REST
keeps the same words; before, the chat judged the first sentence alone, held it for an operator
and the remark was never recalled. And the words a request opens with ("only", "stop", "never",
"don't") decide nothing by themselves: the rule model does ("Don't worry about the cake, …" was
held for review as an instruction)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat.models import Conversation, Message
from memory_core import judgement
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api.add_helpers import rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (a remark of two sentences, its first, which the rule model holds alone)
REMARKS = [
    (
        "Night buses run every twenty minutes at weekends. Caught the 2am one home, not bad at all.",
        "Night buses run every twenty minutes at weekends.",
    ),
    ("图书馆一次可以借十二本书。我借了十一本，已经很克制了。", "图书馆一次可以借十二本书。"),
    (
        "The pool is adults only after seven. We went last night and had it to ourselves.",
        "The pool is adults only after seven.",
    ),
]
# Remarks that open with a word an instruction may open with.
OPENINGS = [
    "Remember: only the two of us are going, the others bailed.",
    "Don't forget, stop-start traffic on the M6 added an hour to the drive.",
    "Remember that never been to Lisbon before, so I'm open to tips.",
    "Keep in mind: don't worry about the cake, it survived the drive.",
]


def _say(owner, text: str, capture) -> str:
    with capture(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": text})
    conversation = Conversation.objects.latest("created_at")
    return Message.objects.filter(conversation=conversation, role="assistant").latest("id").content


@pytest.mark.parametrize(("remark", "first"), REMARKS)
def test_a_remark_whose_first_sentence_reads_as_a_rule_is_kept_as_rest_keeps_it(
    owner, key_client, django_capture_on_commit_callbacks, remark, first
):
    # The premise: alone, the first sentence is held, and the whole is not (when a retrain moves
    # either, this test needs other wordings).
    assert judgement.policy(first).is_rule and not judgement.policy(remark).is_rule

    said = f"记住：{remark}" if remark[0] > "\u2e80" else f"Remember that {remark}"
    reply = _say(owner, said, django_capture_on_commit_callbacks)

    kept = list(MemoryEntry.objects.filter(namespace__owner=owner))
    assert kept and all(e.status == MemoryStatus.ACTIVE and e.type != "procedural" for e in kept), [
        (e.content, e.status, e.type) for e in kept
    ]
    assert "approve" not in reply.lower() and "review" not in reply.lower(), reply
    # Kept whole, the sentences after the first with it.
    assert any(remark[-8:].rstrip("。.") in e.content for e in kept), [e.content for e in kept]

    body = rest_add(key_client, remark)
    assert body["action"] == "added", body


@pytest.mark.parametrize("said", OPENINGS)
def test_a_remark_opening_with_an_instructions_word_is_not_held_as_a_rule(
    owner, django_capture_on_commit_callbacks, said
):
    _say(owner, said, django_capture_on_commit_callbacks)

    kept = list(MemoryEntry.objects.filter(namespace__owner=owner))
    assert kept and all(e.status == MemoryStatus.ACTIVE and e.type != "procedural" for e in kept), [
        (e.content, e.status, e.type) for e in kept
    ]


def test_a_rule_said_over_two_sentences_still_waits_whole(owner, django_capture_on_commit_callbacks):
    # The other side: a first sentence that is no rule alone and a whole that is, kept whole.
    said = "Remember that Maya is coeliac. Whenever she eats here, nothing from the shared fryer."
    _say(owner, said, django_capture_on_commit_callbacks)

    held = MemoryEntry.objects.get(namespace__owner=owner, status=MemoryStatus.PENDING_REVIEW)
    assert held.type == "procedural" and "shared fryer" in held.content and "coeliac" in held.content
