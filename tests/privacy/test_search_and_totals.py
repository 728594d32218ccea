"""/me/'s numbers and search (issue 32 item 4, issue 29 item 5): "All N" is the count the list shows
under the same status; a search by meaning lists what the engine's hybrid recall answers; a memory
replaced by its Chinese version is found by the English words it had, and says so."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from memory_core.lifecycle import memory_correct
from memory_core.models import MemoryStatus
from memory_core.recall import memory_recall
from tests.chat.helpers import client_for
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def page(client, **params) -> str:
    return client.get(reverse("privacy:index"), params).content.decode()


def listed(html: str) -> list[str]:
    return re.findall(r'<span class="content" id="c-[^"]+">([^<]+)</span>', html)


def test_all_n_is_the_number_of_memories_listed_under_the_same_status(owner):
    kept = [remember(owner, f"The user visited museum number {i}.") for i in range(4)]
    memory_correct(actor=owner, memory_id=kept[0].pk, content="The user visited museum number 40.")
    remember(owner, "The user was in Rome.", status=MemoryStatus.ARCHIVED)
    client = client_for(owner)

    current = page(client)
    count = re.search(r"· (\d+) memor(?:y|ies)</span>", current)
    assert count is not None and f"All {count.group(1)}<" in current and count.group(1) == "4"
    assert "with history 6" in current  # the whole history has its own, named link
    every = page(client, status="all")
    assert "All 6<" in every and "· 6 memories</span>" in every
    archived = page(client, status="archived")
    assert "All 1<" in archived and "· 1 memory</span>" in archived


def test_a_search_by_meaning_finds_what_the_apis_recall_answers(owner):
    allergy = remember(owner, "The user is severely allergic to peanuts.", category="safety", pinned=True)
    remember(owner, "The user plays the cello in an orchestra.")
    remember(owner, "The user works as a nurse in Leeds.")
    client = client_for(owner)

    for query in ("food I must avoid", "what must I not eat"):
        html = page(client, q=query)
        recalled = [item.entry.pk for item in memory_recall(actor=owner, query=query, record=False).items]
        assert allergy.pk in recalled, query  # the API's ranked items hold it …
        assert allergy.content in listed(html), query  # … and so does the page
        assert "cello" not in html and "nurse" not in html, query
        assert "related by meaning" in html  # found by meaning, not by its words: said


def test_a_memory_replaced_by_its_chinese_version_is_found_by_its_english_words(owner):
    english = remember(owner, "The user is allergic to peanuts.")
    chinese = memory_correct(actor=owner, memory_id=english.pk, content="用户对花生过敏。")
    client = client_for(owner)

    html = page(client, q="peanuts")
    assert listed(html) == [chinese.content]  # the current version, once
    assert "Found by an earlier version: “The user is allergic to peanuts.”" in html
    assert "· 1 memory</span>" in html
    # Its old wording is history, not in use: the current list does not show it as a memory.
    assert english.content not in listed(page(client))


def test_the_list_speaks_chinese(owner):
    remember(owner, "The user is allergic to peanuts.", category="safety", pinned=True)
    client = client_for(owner)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/me/"})
    html = page(client)
    for english in (
        "All 1",
        "Facts",
        "Current (in use, hidden, awaiting review)",
        "always recalled",
        "page 1 of 1",
    ):
        assert english not in html, english
    row = client.get(
        reverse("privacy:row", args=[listed_id(html)]), headers={"HX-Request": "true"}
    ).content.decode()
    for english in ("Open its page", "Correct", "Save the correction", "Erase…", "confidence", "History ("):
        assert english not in row, english


def listed_id(html: str) -> str:
    match = re.search(r'id="c-([0-9a-f-]{36})"', html)
    assert match is not None
    return match.group(1)
