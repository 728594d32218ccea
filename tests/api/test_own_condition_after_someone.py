# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width punctuation; so must the tests.
"""A Chinese statement that opens with someone said bare, no one's ("同事", "婆婆", "師傅", "阿姨"),
and then speaks of the speaker's own condition ("婆婆说我怀孕了不能喝咖啡…", "師傅我有腰椎間盤突
出…") tells the speaker's condition: pinned. Before, it was read as the condition of the one it
opens with, who only said or asked something, or is who it is told to.

A partner said bare ("老婆怀孕了…", the user's wife), someone's ("闺蜜家儿子…") and one whose own
condition it is ("同事有高血压，我劝他…") are someone else's, not pinned. Through REST, the batch
route, mem0's route, MCP, an import and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, pinned, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

OWN = [
    "婆婆说我怀孕了不能喝咖啡，这有科学依据吗？",
    "師傅我有腰椎間盤突出，明天搬重物的活能不能換給別人？",
    "阿姨我对青霉素过敏，宿舍医务室开药的时候麻烦提醒一下。",
    "同事问我能不能一起去潜水，我有癫痫，这种情况可以去吗？",
]
SOMEONE_ELSES = [
    "老婆怀孕了，我这几天都不能出差。",
    "闺蜜家儿子有哮喘，我想送他一个空气净化器。",
    "同事有高血压，我劝他少喝酒。",
    "师傅有糖尿病，我让他少吃点甜的。",
]


@pytest.mark.parametrize("said", OWN)
def test_rest_and_mem0_pin_the_speakers_own_condition(key_client, said):
    assert pinned(rest_add(key_client, said)), said
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.filter(pinned=True).exists(), said


@pytest.mark.parametrize("said", SOMEONE_ELSES)
def test_someone_elses_condition_is_not_pinned(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added" and not pinned(body), body


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [OWN[0], OWN[1], SOMEONE_ELSES[0], SOMEONE_ELSES[2]])

    assert [pinned(result) for result in results] == [True, True, False, False], results


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    token = user_token_issue(user=owner).key
    mine, friends = m.adds(mcp_url, token, [OWN[2], SOMEONE_ELSES[1]])
    assert pinned(mine) and not pinned(friends), (mine, friends)


def test_an_import_reads_them_alike(key_client):
    import_lines(key_client, [OWN[1], SOMEONE_ELSES[3]])

    kept = set(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert any("腰椎" in content for content in kept), kept
    assert not any("糖尿病" in content for content in kept), kept


def test_the_chat_pins_the_condition_it_is_asked_to_remember(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"记住：{OWN[0]}"})

    assert MemoryEntry.objects.filter(pinned=True, content__contains="怀孕").exists()
