"""How the user wants to be answered is their own preference, kept active and applied; a standing
request that only mentions a style word in passing ("the tablets…", "on the waiting list…",
"book me a table…") is a rule, held for an operator. Before, any word starting like a style word
("tablets", "listening") anywhere in the statement and "for me" anywhere else made it a preference,
and such rules were stored active (batch 58: two of eight rules missed). Through REST, mem0's
route, the batch route, MCP and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

RULES = [
    "Since my chemo started, please never suggest any raw fish or unpasteurised cheese for me, the tablets "
    "leave my immune system weak.",
    "I'm on the waiting list for a hip op, so whenever you plan a walk with the group, always keep a bench "
    "stop every mile for me.",
    "My hands shake on the new tablets, so from now on book me a table near the door at every restaurant "
    "and ask them to serve drinks in a mug for me.",
]
PREFERENCES = [
    "Keep your replies to me short and in bullet points, please.",
    "Explain things to me in plain English, no jargon.",
    "回复我的时候请尽量简短。",
    "talk to me casually, no need to be so formal all the time",
]


@pytest.mark.parametrize("said", RULES)
def test_rest_and_mem0_hold_a_rule_that_mentions_a_style_word(key_client, said):
    assert rest_add(key_client, said)["action"] == "pending_review"
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW, type="procedural").count() == 1
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE, type="procedural").exists()


def test_the_batch_route_holds_the_rules_and_keeps_the_preferences(key_client):
    results = batch_add(key_client, [*RULES, *PREFERENCES])
    assert [r["action"] for r in results] == ["pending_review"] * len(RULES) + ["added"] * len(PREFERENCES)


@pytest.mark.django_db(transaction=True)
def test_mcp_holds_the_rule_and_keeps_the_preference(owner, mcp_url):
    held, kept = m.adds(mcp_url, user_token_issue(user=owner).key, [RULES[0], PREFERENCES[0]])
    assert (held["action"], kept["action"]) == ("pending_review", "added"), (held, kept)


def test_the_chat_holds_a_rule_told_to_remember(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {RULES[1]}"})
    held = MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW, type="procedural")
    assert held.count() == 1, [(e.content, e.status) for e in MemoryEntry.objects.all()]
