"""/me/'s forms say what they do (issue 32, item 8): a paste over a memory's limit is refused whole
with the reason and comes back in the box (never cut at 2,000 characters), in English and Chinese;
the erase dialog spells out what happens to the conversations that quote the memory, keeps them by
default, and deletes them only when asked."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat.models import Conversation
from memory_core.models import CONTENT_MAX_CHARS, MemoryEntry
from tests.chat.helpers import client_for, conversation, remember, say

pytestmark = pytest.mark.django_db


def test_a_long_paste_is_refused_whole_and_kept_in_the_box(owner):
    client = client_for(owner)
    text = "The user keeps bees on the roof. " * 80  # ~2,600 characters
    assert len(text.strip()) > CONTENT_MAX_CHARS
    response = client.post(reverse("privacy:remember"), {"content": text, "kind": "preference"})
    html = response.content.decode()
    assert response.status_code == 400
    assert f"{len(text.strip()):,} characters long" in html and "at most 2,000" in html
    assert "Nothing was saved" in html and text.strip()[:200] in html and text.strip()[-200:] in html
    assert '<option value="preference" selected>' in html  # the choice is kept too
    assert 'maxlength="2000"' not in html.split('class="remember"', 1)[1].split("</form>", 1)[0]
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()

    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/me/"})
    chinese = client.post(reverse("privacy:remember"), {"content": text}).content.decode()
    assert "Nothing was saved" not in chinese and "2,000" in chinese


def test_a_memory_within_the_limit_is_remembered(owner):
    response = client_for(owner).post(reverse("privacy:remember"), {"content": "The user keeps bees."})
    assert response.status_code == 302
    assert MemoryEntry.objects.filter(namespace__owner=owner, content__icontains="bees").exists()


def _quoted(owner) -> tuple[MemoryEntry, Conversation]:
    conv = conversation(owner)
    say(owner, conv, "Remember that I keep bees on the roof.")
    entry = MemoryEntry.objects.get(namespace__owner=owner, content__icontains="bees")
    return entry, conv


def test_the_erase_dialog_explains_both_choices_and_keeps_conversations_by_default(owner):
    entry, conv = _quoted(owner)
    client = client_for(owner)
    html = client.get(reverse("privacy:erase", args=[entry.pk])).content.decode()
    assert "Keep those conversations." in html and "Also delete those conversations." in html
    assert "replies that quoted it stay in those transcripts" in html
    assert "Each whole conversation is deleted, with every message in it" in html
    assert 'name="erase_sources" value="off" checked' in html

    response = client.post(reverse("privacy:erase", args=[entry.pk]), {"erase_sources": "off"})
    assert response.status_code == 302
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert Conversation.objects.filter(pk=conv.pk).exists()


def test_erasing_with_its_conversations_deletes_the_replies_that_quoted_it(owner):
    entry, conv = _quoted(owner)
    response = client_for(owner).post(reverse("privacy:erase", args=[entry.pk]), {"erase_sources": "on"})
    assert response.status_code == 302
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert not Conversation.objects.filter(pk=conv.pk).exists()


def test_a_long_correction_is_refused_whole_and_kept_in_its_form(owner):
    entry = remember(owner, "The user keeps bees.")
    client = client_for(owner)
    text = "The user keeps bees on the roof of the town hall. " * 50
    page = client.post(reverse("privacy:correct", args=[entry.pk]), {"content": text})
    html = page.content.decode()
    assert page.status_code == 400 and "Nothing was saved" in html and text.strip()[-100:] in html
    assert '<details class="correct" open>' in html
    row = client.post(
        reverse("privacy:correct", args=[entry.pk]), {"content": text}, headers={"HX-Request": "true"}
    )
    assert "Nothing was saved" in row.content.decode() and text.strip()[-100:] in row.content.decode()
    entry.refresh_from_db()
    assert entry.content == "The user keeps bees." and entry.status == "active"
