# ruff: noqa: RUF001  # full-width Chinese punctuation is what some of these tests are about
""" "Don't always recall" and "Always recall" on a memory's page and in a row of /me/: the button
beside "always recalled", the message saying what changed, the line in the history, in English
and in Chinese; what the page refuses; and the user's choice kept when the same fact comes back
through the page's own forms (remember, correct)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from memory_core.lifecycle import memory_hide
from memory_core.models import MemoryEntry, MemoryEvent
from privacy.services import privacy_remember
from tests.chat.helpers import client_for
from tests.privacy.helpers import opened

pytestmark = pytest.mark.django_db

# A condition the write path pins as the user's safety fact (the slot of what they eat).
FACT = "I follow a gluten-free diet because of coeliac disease."
CORRECTED = "I follow a gluten-free diet, but oats are fine."

OFF = "Don't always recall"
ON = "Always recall"
OFF_DONE = "No longer always recalled: the assistant uses it only when it fits the question."
ON_DONE = "Always recalled: the assistant is given it with every answer."
OFF_HISTORY = "marked not always recalled by you: The user asked not to recall it with every answer."


@pytest.fixture
def coeliac(owner) -> MemoryEntry:
    """A condition the safety model pins as the user's safety fact."""
    entry = privacy_remember(user=owner, content=FACT, kind="fact").entry
    assert entry is not None and entry.pinned and entry.category == "safety"
    return entry


def chinese(user):
    client = client_for(user)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    return client


def facts(html: str) -> str:
    """The memory page's status line (tags and the always-recall button)."""
    match = re.search(r"<dt>[^<]*</dt><dd><span class=\"tag\">.*?</dd>", html, re.S)
    assert match is not None
    return match.group(0)


def test_the_memory_page_offers_it_beside_the_tag_and_says_what_changed(owner, coeliac):
    client = client_for(owner)
    url = reverse("privacy:memory", args=[coeliac.pk])
    status = facts(client.get(url).content.decode())
    assert "always recalled" in status and OFF in status
    assert f'action="{reverse("privacy:not_always_recall", args=[coeliac.pk])}"' in status
    assert "csrfmiddlewaretoken" in status

    response = client.post(reverse("privacy:not_always_recall", args=[coeliac.pk]), follow=True)

    assert response.redirect_chain == [(url, 302)]
    html = response.content.decode()
    assert OFF_DONE in html
    status = facts(html)
    assert "always recalled" not in status and ON in status and OFF not in status
    assert "Facts · general" in html and "safety" not in html.split("<h1", 1)[1]
    assert OFF_HISTORY in html
    entry = MemoryEntry.objects.get(pk=coeliac.pk)
    assert (entry.pinned, entry.category, entry.importance) == (False, "general", 0.8)

    html = client.post(reverse("privacy:always_recall", args=[coeliac.pk]), follow=True).content.decode()
    assert ON_DONE in html and "always recalled" in facts(html) and OFF in facts(html)
    assert "marked always recalled by you: The user asked to recall it with every answer." in html
    assert MemoryEntry.objects.get(pk=coeliac.pk).pinned


def test_in_chinese(owner, coeliac):
    client = chinese(owner)
    url = reverse("privacy:memory", args=[coeliac.pk])
    assert "不再总是调用" in facts(client.get(url).content.decode())

    html = client.post(reverse("privacy:not_always_recall", args=[coeliac.pk]), follow=True).content.decode()

    assert "不再总是调用：助手只在与问题相关时使用它。" in html
    assert "设为总是调用" in facts(html) and "总是调用</span>" not in facts(html)
    assert "标记为不总是调用 由你: 用户要求不必每次回答都调用它。" in html
    for english in (OFF, ON, OFF_DONE, "marked not always recalled", "The user asked not to"):
        assert english not in html, english

    html = client.post(reverse("privacy:always_recall", args=[coeliac.pk]), follow=True).content.decode()
    assert "已设为总是调用：助手每次回答都会得到它。" in html
    assert "标记为总是调用 由你: 用户要求每次回答都调用它。" in html


def test_a_row_of_the_list_changes_in_place_with_htmx(owner, coeliac):
    client = client_for(owner)
    rows = opened(client, client.get(reverse("privacy:index")).content.decode())
    assert OFF in rows and "always recalled" in rows

    partial = client.post(
        reverse("privacy:not_always_recall", args=[coeliac.pk]), headers={"HX-Request": "true"}
    ).content.decode()

    assert partial.lstrip().startswith(f'<li class="memory row status-active" id="memory-{coeliac.pk}"')
    summary = partial.split("</summary>", 1)[0]
    assert "always recalled" not in summary
    assert f'<p class="notice" role="status">{OFF_DONE}</p>' in partial
    assert f'hx-post="{reverse("privacy:always_recall", args=[coeliac.pk])}"' in partial
    assert OFF_HISTORY in partial

    partial = client.post(
        reverse("privacy:always_recall", args=[coeliac.pk]), headers={"HX-Request": "true"}
    ).content.decode()
    assert "always recalled" in partial.split("</summary>", 1)[0] and ON_DONE in partial


def test_a_memory_not_in_use_has_no_button_and_the_page_says_why_it_refuses(owner, coeliac):
    memory_hide(actor=owner, memory_id=coeliac.pk)
    events = MemoryEvent.objects.filter(entry_id=coeliac.pk).count()
    client = chinese(owner)
    url = reverse("privacy:memory", args=[coeliac.pk])
    html = client.get(url).content.decode()
    assert "不再总是调用" not in html and "设为总是调用" not in html

    refused = client.post(reverse("privacy:not_always_recall", args=[coeliac.pk]), follow=True)

    assert "只有使用中的记忆才能设置是否总是调用。" in refused.content.decode()
    entry = MemoryEntry.objects.get(pk=coeliac.pk)
    assert entry.pinned and entry.category == "safety" and entry.status == "hidden"
    assert MemoryEvent.objects.filter(entry_id=coeliac.pk).count() == events


def test_the_choice_holds_when_the_fact_is_said_again_and_when_it_is_corrected(owner, coeliac):
    client = client_for(owner)
    client.post(reverse("privacy:not_always_recall", args=[coeliac.pk]))

    client.post(reverse("privacy:remember"), {"content": FACT, "kind": "fact"})
    entry = MemoryEntry.objects.get(pk=coeliac.pk)
    assert entry.evidence_count == 2 and not entry.pinned and entry.category == "general"

    client.post(
        reverse("privacy:correct", args=[coeliac.pk]),
        {"content": CORRECTED},
    )
    new = MemoryEntry.objects.get(content=CORRECTED)
    assert new.status == "active" and not new.pinned and new.metadata["always_recall"] is False
    html = client.get(reverse("privacy:memory", args=[new.pk])).content.decode()
    assert "always recalled" not in facts(html) and ON in facts(html)
