# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
"""A sibling, an aunt, a cousin or an in-law the user says lives with them is of the household the
user looks after: their condition is a dependant's, pinned ("My brother-in-law moved in with us
after his stroke and he's on blood thinners now", "我舅舅跟我们住, 他有心脏病"). Before, a statement
opening with such kin was read as someone else's whatever it said of the household.

Living together is no condition itself ("My brother lives with me, he's a nurse"), a cold is none,
one who does not live with the user or only visits is someone else's, and a partner who lives with
them is theirs too.
Through REST, the batch route, mem0's route, MCP, an import and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, pinned, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

AT_HOME = [
    "My brother-in-law moved in with us after his stroke and he's on blood thinners now.",
    "My aunt has lived with us since the spring; she has type 1 diabetes.",
    "我表妹住在我家，她对花生严重过敏。",
    "我舅舅跟我们住，他有心脏病，在吃阿司匹林。",
    "我表妹住喺我屋企，佢對花生過敏。",  # Cantonese: lives at my home
]
NOT_A_DEPENDANTS = [
    "My brother lives with me, he's a nurse.",
    "My sister lives with us and she's got a cold.",
    "My sister-in-law doesn't live with us, she has asthma.",
    "我小姨子有哮喘，不跟我们住。",
    "My boyfriend lives with me and he has epilepsy.",
    "我妹妹跟我住，她在读大学。",
    # A visit is no household.
    "My sister-in-law is staying with us for a few weeks between jobs, she has asthma.",
    "我表哥下周来出差住我家，他有高血压。",
]


@pytest.mark.parametrize("said", AT_HOME)
def test_rest_and_mem0_pin_the_condition_of_kin_at_home(key_client, said):
    assert pinned(rest_add(key_client, said)), said
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.filter(pinned=True).exists(), said


@pytest.mark.parametrize("said", NOT_A_DEPENDANTS)
def test_living_together_alone_pins_nothing(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added" and not pinned(body), body


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [AT_HOME[0], AT_HOME[3], NOT_A_DEPENDANTS[0], NOT_A_DEPENDANTS[3]])

    assert [pinned(result) for result in results] == [True, True, False, False], results


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    token = user_token_issue(user=owner).key
    aunt, cousin, brother = m.adds(mcp_url, token, [AT_HOME[1], AT_HOME[2], NOT_A_DEPENDANTS[0]])
    assert pinned(aunt) and pinned(cousin), (aunt, cousin)
    assert not pinned(brother), brother


def test_an_import_reads_them_alike(key_client):
    import_lines(key_client, [AT_HOME[0], AT_HOME[3], NOT_A_DEPENDANTS[2], NOT_A_DEPENDANTS[4]])

    kept = set(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert any("blood thinners" in content for content in kept), kept
    assert any("舅舅" in content for content in kept), kept
    assert not any("asthma" in content or "boyfriend" in content for content in kept), kept


def test_the_chat_pins_the_condition_it_is_asked_to_remember(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {AT_HOME[1]}"})

    assert MemoryEntry.objects.filter(pinned=True, content__icontains="diabetes").exists()
