"""Recall and add on one user at the same time, overlapped on purpose: no deadlock, no error.

The write path holds its namespace lock while it merges into an entry; a recall of that entry
updates the entry's counters and inserts log rows that reference the namespace. With a FOR UPDATE
namespace lock those two waited on each other (PostgreSQL broke the cycle with a 500); the
pipeline's FOR NO KEY UPDATE lets the recall finish first.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_core.choices import AddAction
from memory_core.models import MemoryEntry, RecallLog
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall
from memory_core.services import namespace_for_user
from tests.concurrency_helpers import overlap

pytestmark = pytest.mark.django_db(transaction=True)


def _overlap(
    *, first_write: Callable[[], object], second_write: Callable[[], object], read: Callable[[], object]
) -> list[BaseException]:
    """Overlap a writer and a recall on purpose: the writer's transaction does `first_write`
    (holding its locks), the recall starts, and once it has finished or blocks on a lock the
    writer does `second_write` in the same transaction. Returns what either side raised."""
    return overlap(held=first_write, meanwhile=read, then=second_write)


def test_recall_during_an_add_that_merges_into_the_recalled_entry(owner):
    namespace = namespace_for_user(user=owner)
    allergy = memory_add(namespace=namespace, content="The user is allergic to peanuts.", pinned=True).entry
    outcomes: list[AddAction] = []

    def recall() -> None:
        result = memory_recall(actor=owner, query="Can I eat satay sauce?")
        assert [item.entry.pk for item in (*result.items, *result.always)] == [allergy.pk]

    errors = _overlap(
        # The namespace lock is held from the first write; with the old FOR UPDATE lock the
        # recall blocks holding the allergy row, and the merge into that row closes the cycle.
        first_write=lambda: memory_add(namespace=namespace, content="The user lives in Porto."),
        second_write=lambda: outcomes.append(
            memory_add(namespace=namespace, content=allergy.content, pinned=True).action
        ),
        read=recall,
    )

    assert errors == []
    assert outcomes == [AddAction.MERGED]
    allergy.refresh_from_db()
    assert (allergy.evidence_count, allergy.access_count) == (2, 1)
    assert RecallLog.objects.filter(entry=allergy).count() == 1
    assert MemoryEntry.objects.count() == 2


def test_recall_during_a_batch_that_merges_into_several_recalled_entries(owner):
    """A batch (one transaction) merging into two entries in the opposite order of recall's
    counter update: recall never waits on the writer, so there is no cycle."""
    namespace = namespace_for_user(user=owner)
    texts = ["The user is allergic to peanuts.", "The user is allergic to shellfish."]
    entries = [memory_add(namespace=namespace, content=t, pinned=True).entry for t in texts]
    low, high = sorted(entries, key=lambda e: e.pk)

    def recall() -> None:
        result = memory_recall(actor=owner, query="What am I allergic to?")
        assert {item.entry.pk for item in result.items} == {low.pk, high.pk}

    errors = _overlap(
        first_write=lambda: memory_add(namespace=namespace, content=high.content, pinned=True),
        second_write=lambda: memory_add(namespace=namespace, content=low.content, pinned=True),
        read=recall,
    )

    assert errors == []
    low.refresh_from_db()
    high.refresh_from_db()
    assert (low.evidence_count, high.evidence_count) == (2, 2)
    # Both recalled items are in the log; the row the writer held was not counted this time.
    assert RecallLog.objects.filter(entry__in=[low, high]).count() == 2
    assert (low.access_count, high.access_count) == (1, 0)
