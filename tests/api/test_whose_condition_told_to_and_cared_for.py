# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width commas; so must the tests.
"""Whose condition a statement tells when it opens with someone who is usually no dependant:

- a statement told TO a tradesman, a landlord or a teacher with the polite 您 ("师傅您好，…我爸刚做完
  肺部手术回家，还在吸氧") tells the father's condition, a dependant's, pinned, as "师傅，…" and "老师你
  好，…" did; before, "师傅您…" was read as the statement opening with the tradesman, whose condition
  it then told;
- a partner or a sibling the user says they look after ("my husband has early-onset Parkinson's and
  I'm his main carer now") is in their care: pinned;
- the same people without the care or the address are someone else's, and so is a sister whose
  children the user minds ("I look after her kids on Fridays" is no care of her).

Through REST, mem0's route, MCP, an import and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import import_lines, mem0_add, pinned, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

TOLD_TO_SOMEONE = [
    "师傅您好，明天上午来修热水器的时候麻烦动静小点，我爸中风刚出院，在卧室躺着。",
    "師傅您好，我媽媽剛洗完腎回家，明天裝冷氣請小聲一點。",
    # Told to the boss lady: 老板娘 was read as 老板 (the boss) opening the statement.
    "老板娘，我今天下午两点要早点走，我女儿哮喘又发了，要带她去诊所拿吸入器。",
]
CARED_FOR = [
    "Looking for advice: my wife has MS and I'm her full-time carer now.",
    "my brother has severe epilepsy and lives with me, I'm his carer",
]
SOMEONE_ELSES = [
    "My wife has MS.",
    "师傅有高血压。",
    "My sister has lupus and I look after her kids on Fridays.",
    "老板娘有高血压，最近一直在吃降压药。",
]


@pytest.mark.parametrize("said", [*TOLD_TO_SOMEONE, *CARED_FOR])
def test_rest_and_mem0_pin_a_dependants_condition(key_client, said):
    assert pinned(rest_add(key_client, said)), said
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.filter(pinned=True).exists(), said


@pytest.mark.parametrize("said", SOMEONE_ELSES)
def test_someone_elses_condition_is_notpinned(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added" and not pinned(body), body


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    token = user_token_issue(user=owner).key
    told, cared, sister = m.adds(mcp_url, token, [TOLD_TO_SOMEONE[1], CARED_FOR[1], SOMEONE_ELSES[2]])
    assert pinned(told) and pinned(cared), (told, cared)
    assert not pinned(sister), sister


def test_the_chat_pins_the_condition_it_is_asked_to_remember(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {CARED_FOR[0]}"})

    assert MemoryEntry.objects.filter(pinned=True, content__icontains="MS").exists()


def test_an_import_reads_them_alike(key_client):
    import_lines(key_client, [TOLD_TO_SOMEONE[0], CARED_FOR[0], SOMEONE_ELSES[0], SOMEONE_ELSES[2]])

    pinned = set(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert any("中风" in content for content in pinned), pinned
    assert any("MS" in content and "carer" in content for content in pinned), pinned
    # The wife is in the user's care now (the line before said so, and the graph keeps it); the
    # sister whose children the user minds is not.
    assert SOMEONE_ELSES[0] in pinned and not any("lupus" in content for content in pinned), pinned
