# ruff: noqa: RUF001  # full-width Chinese punctuation is what some of these tests are about
"""A "remember that …" longer than one memory holds (2,000 characters) is refused with the message,
on every way the chat is reached (the form, htmx, a new conversation), with a reason that says the
limit and the text kept in the box; nothing is saved or remembered, never a cut statement. The
REST API's chat turn: tests/api/test_conversations.py."""

from __future__ import annotations

import pytest

from chat.models import Conversation, Message
from memory_core.models import CONTENT_MAX_CHARS, MemoryEntry
from tests.chat.helpers import client_for, conversation

pytestmark = pytest.mark.django_db

# One sentence (no full stop inside) of about 2,300 characters.
LONG = "Remember that " + ", ".join(
    f"my shelf {i} holds old vinyl records from the seventies" for i in range(40)
)
LONG_ZH = "记住" + "，".join(f"我的第{i}个书架上放着七十年代的老唱片和我父亲留下的旧书" for i in range(90))


def _refused(response, text: str) -> str:
    assert response.status_code == 400
    body = response.content.decode()
    assert not Message.objects.exists() and not MemoryEntry.objects.exists()
    return body


def test_the_form_refuses_it_says_why_and_keeps_the_text(owner):
    assert len(LONG) > CONTENT_MAX_CHARS + 100
    conv = conversation(owner)
    body = _refused(client_for(owner).post(f"/c/{conv.pk}/send/", {"content": LONG}), LONG)
    assert "one memory holds at most 2,000" in body and "Nothing was sent" in body
    assert "my shelf 39 holds old vinyl records from the seventies</textarea>" in body


def test_htmx_swaps_in_only_the_reason_so_the_box_keeps_the_text(owner):
    conv = conversation(owner)
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {"content": LONG}, HTTP_HX_REQUEST="true")
    body = _refused(response, LONG)
    assert response["HX-Retarget"] == "#composer-error"
    assert body.lstrip().startswith('<p id="composer-error"') and "one memory holds at most 2,000" in body


def test_a_new_conversation_is_not_started_by_it(owner):
    for headers in ({}, {"HTTP_HX_REQUEST": "true"}):
        body = _refused(client_for(owner).post("/new/", {"content": LONG}, **headers), LONG)
        assert "one memory holds at most 2,000" in body
    assert not Conversation.objects.exists()


def test_in_chinese_the_reason_is_chinese(owner):
    conv = conversation(owner)
    client = client_for(owner)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    body = _refused(client.post(f"/c/{conv.pk}/send/", {"content": LONG_ZH}), LONG_ZH)
    assert "一条记忆最多 2,000 个字符" in body and "什么都没有发送" in body


def test_one_at_the_limit_is_kept_whole_and_an_incognito_one_is_not_refused(owner):
    conv = conversation(owner)
    words = "Remember that my grandmother's recipe book lists " + "plum cake, " * 150
    fits = words[: CONTENT_MAX_CHARS - 20].rsplit(",", 1)[0]
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {"content": fits})
    assert response.status_code == 302
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    assert entry.content.startswith("The user's grandmother's recipe book lists plum cake")
    assert not entry.content.endswith("…") and entry.content.count("plum cake") == fits.count("plum cake")

    incognito = conversation(owner, incognito=True)
    assert client_for(owner).post(f"/c/{incognito.pk}/send/", {"content": LONG}).status_code == 302
    assert MemoryEntry.objects.count() == 1
