"""The list on /me/: pages with totals, filters that survive paging, search by words and meaning,
select-many with Undo (erasure waits out its Undo window, then is final)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memory_core.models import ErasureReceipt, MemoryEntry, MemoryStatus, NamespaceGrant, Tombstone
from memory_core.moderation import procedure_create
from memory_core.recall import memory_recall
from memory_core.services import EntryDraft, memory_create, namespace_create, namespace_for_user
from privacy.bulk import pending_erasures_run
from privacy.models import PendingErasure
from tests.chat.helpers import client_for
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def many(user, n: int, **fields) -> list[MemoryEntry]:
    namespace = namespace_for_user(user=user)
    return [
        memory_create(
            namespace=namespace, draft=EntryDraft(content=f"The user owns bicycle number {i}.", **fields)
        )
        for i in range(n)
    ]


def rows(html: str) -> int:
    return html.count('class="memory row')


def test_the_list_is_paged_with_totals_and_filters_survive_paging(owner):
    many(owner, 60)
    many(owner, 50, type="episodic", category="event")
    client = client_for(owner)

    first = client.get(reverse("privacy:index")).content.decode()
    assert rows(first) == 50 and "page 1 of 3 · 110 memories" in first
    assert "Facts 60" in first and "Events 50" in first and "All 110" in first

    events = client.get(reverse("privacy:index"), {"type": "events"}).content.decode()
    assert "page 1 of 1 · 50 memories" in events
    facts = client.get(reverse("privacy:index"), {"type": "facts", "page": 2}).content.decode()
    assert rows(facts) == 10 and "page 2 of 2 · 60 memories" in facts
    assert 'href="?type=facts&amp;page=1"' in facts  # the way back keeps the filter

    searched = client.get(reverse("privacy:index"), {"q": "bicycle", "type": "facts"}).content.decode()
    assert rows(searched) == 50 and "page 1 of 2 · 60 memories" in searched
    assert 'href="?q=bicycle&amp;type=facts&amp;page=2"' in searched  # a search survives paging too
    second = client.get(
        reverse("privacy:index"), {"q": "bicycle", "type": "facts", "page": 2}
    ).content.decode()
    assert rows(second) == 10 and 'value="bicycle"' in second


def test_search_finds_by_meaning_and_by_words_in_any_order(owner):
    allergy = remember(owner, "The user is severely allergic to peanuts.", category="safety")
    remember(owner, "The user plays the cello in an orchestra.")
    client = client_for(owner)

    for query in ("peanuts allergy", "allergic peanuts", "nut allergy"):
        html = client.get(reverse("privacy:index"), {"q": query}).content.decode()
        assert allergy.content in html and "cello" not in html, query
    html = client.get(reverse("privacy:index"), {"q": "music instrument"}).content.decode()
    assert "cello" in html and "peanuts" not in html
    assert MemoryEntry.objects.get(pk=allergy.pk).access_count == 0  # a search is not a use


def _by_words(html: str) -> str:
    """The rows of a result page that were not found by meaning alone."""
    rows = html.split('<li class="memory row')[1:]
    return "".join(row for row in rows if "related by meaning" not in row)


def _found(client, query: str) -> str:
    return client.get(reverse("privacy:index"), {"q": query}).content.decode()


def test_search_matches_words_as_typed_stems_beginnings_identifiers_and_chinese(owner):
    peanuts = remember(owner, "The user is allergic to peanuts.")
    refund = remember(owner, "Refund order RF20260629001 is waiting for approval.")
    chinese = remember(owner, "用户对花生过敏。家住三楼。")
    mixed = remember(owner, "订单号RF20260700042已经退款。")
    volvo = remember(owner, "The user drives a red Volvo estate.")
    japanese = remember(owner, "The user is studying Japanese at night school.")
    client = client_for(owner)

    cases = {
        "peanut": [peanuts],  # the stem: "peanut" finds "peanuts"
        "Peanuts ALLERGIC": [peanuts],  # any case, any order
        "aller": [peanuts],  # the beginning of a word
        "RF2026": [refund, mixed],  # the beginning of an identifier, in English or Chinese text
        "rf20260629001": [refund],
        "花生": [chinese],  # a Chinese word
        "过敏": [chinese],
        "三楼": [chinese],
        "退款": [mixed],
        "RF20260700042 退款": [mixed],
        "volv": [volvo],
        "studies Japanese": [japanese],  # a stem no substring finds ("studying")
    }
    for query, expected in cases.items():
        html = _found(client, query)
        for entry in expected:
            assert entry.content in html, query
        assert f"{len(expected)} memor" in html or len(expected) < 2, query
    # Every word must be there: a second word none of them holds finds nothing by words (recall may
    # still list it as close in meaning, and then says so).
    assert refund.content not in _by_words(_found(client, "RF2026 zebra"))
    assert volvo.content not in _found(client, "RF2026")
    assert refund.content not in _found(client, "Volvo")
    # Query syntax is text, not an operator: no error, and the identifier is still found.
    for query in ("RF2026':* | !", "& | ! ( ) :*", "'", "\\"):
        response = client.get(reverse("privacy:index"), {"q": query})
        assert response.status_code == 200, query
    assert refund.content in _found(client, "RF2026':* | !")


def test_a_word_search_pages_through_every_match_and_keeps_the_filters(owner):
    many(owner, 60)
    namespace = namespace_for_user(user=owner)
    for i in range(50):
        memory_create(namespace=namespace, draft=EntryDraft(content=f"Visited Lisbon harbour on day {i}."))
    client = client_for(owner)

    first = client.get(reverse("privacy:index"), {"q": "bicy"}).content.decode()
    assert rows(first) == 50 and "page 1 of 2 · 60 memories" in first and "Lisbon" not in first
    assert 'href="?q=bicy&amp;page=2"' in first
    second = client.get(reverse("privacy:index"), {"q": "bicy", "page": 2}).content.decode()
    assert rows(second) == 10 and "page 2 of 2 · 60 memories" in second and "Lisbon" not in second
    shown = {int(n) for n in re.findall(r"bicycle number (\d+)\.", first + second)}
    assert shown == set(range(60))  # each match once, across the pages
    # A page past the end shows the last; one that is not a number, the first.
    past = client.get(reverse("privacy:index"), {"q": "bicy", "page": 99}).content.decode()
    assert rows(past) == 10 and "page 2 of 2 · 60 memories" in past
    for wrong in ("x", "-3", "0"):
        odd = client.get(reverse("privacy:index"), {"q": "bicy", "page": wrong}).content.decode()
        assert rows(odd) == 50 and "page 1 of 2 · 60 memories" in odd, wrong
    none = client.get(reverse("privacy:index"), {"q": "zebra", "page": 2}).content.decode()
    assert rows(none) == 0 and "bicycle" not in none


def test_bulk_hide_offers_undo(owner):
    entries = many(owner, 3)
    client = client_for(owner)
    ids = [str(e.pk) for e in entries[:2]]

    response = client.post(reverse("privacy:bulk"), {"action": "hide", "ids": ids, "back": "type=facts"})
    assert response.status_code == 302 and response.url == "/me/?type=facts"
    assert set(MemoryEntry.objects.filter(status="hidden").values_list("pk", flat=True)) == {
        e.pk for e in entries[:2]
    }
    page = client.get(response.url).content.decode()
    assert "Hidden: the assistant will not use 2 memories." in page and ">Undo</button>" in page

    client.post(reverse("privacy:bulk"), {"action": "unhide", "ids": ids})
    assert not MemoryEntry.objects.filter(status="hidden").exists()


def test_bulk_erase_waits_for_its_undo_window_then_is_final(owner):
    keep, gone = remember(owner, "The user lives in Lisbon."), remember(owner, "The user plays the cello.")
    client = client_for(owner)

    client.post(reverse("privacy:bulk"), {"action": "erase", "ids": [str(keep.pk), str(gone.pk)]})
    page = client.get(reverse("privacy:index")).content.decode()
    assert "Erasing 2 memories for good in 30 seconds." in page
    assert "Lisbon" not in page.split('id="memory-list"')[1]  # listed nowhere meanwhile
    assert memory_recall(actor=owner, query="Where does the user live?", record=False).items == []
    pending = PendingErasure.objects.get()
    client.post(reverse("privacy:bulk_undo_erase"), {"pending": pending.pk})
    assert MemoryEntry.objects.get(pk=keep.pk).status == MemoryStatus.ACTIVE
    assert "Lisbon" in client.get(reverse("privacy:index")).content.decode()

    client.post(reverse("privacy:bulk"), {"action": "erase", "ids": [str(gone.pk)]})
    assert pending_erasures_run(now=timezone.now()) == 0  # still within the window
    assert pending_erasures_run(now=timezone.now() + timedelta(seconds=31)) == 1
    assert not MemoryEntry.objects.filter(pk=gone.pk).exists() and ErasureReceipt.objects.count() == 1
    assert Tombstone.objects.exists()  # not learned again
    undo = client.post(reverse("privacy:bulk_undo_erase"), {"pending": pending.pk + 1}, follow=True)
    assert "Nothing to undo" in undo.content.decode()


def test_someone_elses_memories_are_left_alone(owner, other_user):
    theirs = remember(other_user, "The user is allergic to shellfish.")
    response = client_for(owner).post(reverse("privacy:bulk"), {"action": "erase", "ids": [str(theirs.pk)]})
    assert response.status_code == 302
    assert not PendingErasure.objects.exists()
    assert MemoryEntry.objects.get(pk=theirs.pk).status == MemoryStatus.ACTIVE
    bad = client_for(owner).post(
        reverse("privacy:bulk"), {"action": "drop", "ids": [str(theirs.pk)]}, follow=True
    )
    assert "Choose hide, use again or erase." in bad.content.decode()


def test_the_page_count_agrees_with_the_rows_for_every_type_and_status(owner, moderator):
    """The count under the list comes from the totals' one grouped count: it must match the rows
    listed, for shared procedures, preferences and every status filter alike."""
    NamespaceGrant.objects.create(namespace=namespace_create(path="org/acme", kind="org"), user=owner)
    procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    many(owner, 3)
    many(owner, 2, category="preference")
    many(owner, 2, type="episodic", category="event")
    for entry in MemoryEntry.objects.filter(namespace__owner=owner)[:2]:
        MemoryEntry.objects.filter(pk=entry.pk).update(status=MemoryStatus.HIDDEN)
    client = client_for(owner)
    for status in ["current", "all", "active", "hidden", "superseded"]:
        for group in ["", "facts", "preferences", "events", "procedures"]:
            html = client.get(reverse("privacy:index"), {"status": status, "type": group}).content.decode()
            n = rows(html)
            assert f"· {n} memor{'y' if n == 1 else 'ies'}</span>" in html, (status, group, n)
    everything = client.get(reverse("privacy:index"), {"status": "all"}).content.decode()
    assert rows(everything) == 8 and "All 8" in everything and "Procedures 1" in everything


def test_rows_are_compact_and_opening_one_loads_its_details(owner):
    """A page of the list carries each row's statement and tags only: its source, history and
    actions come when it is opened (with htmx; without, its link leads to the memory's page)."""
    entries = many(owner, 50)
    client = client_for(owner)

    html = client.get(reverse("privacy:index")).content.decode()
    assert rows(html) == 50 and html.count('class="row-body" hx-get="/me/memories/') == 50
    assert "History (" not in html and "Save the correction" not in html and "confidence" not in html
    # Sign out, remember, pause, the bulk actions and the language switch: one form each, none per row.
    assert html.count('name="csrfmiddlewaretoken"') == 5
    assert len(html.encode()) < 60_000, len(html.encode())

    url = reverse("privacy:row", args=[entries[0].pk])
    body = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "History (1)" in body and "Save the correction" in body and "Don't use this" in body
    assert "confidence 100%" in body and "<html" not in body
    assert client.get(url).url == reverse("privacy:memory", args=[entries[0].pk])
