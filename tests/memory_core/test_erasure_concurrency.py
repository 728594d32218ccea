"""Recall and erase-all on one user at the same time, overlapped on purpose: neither fails.

A recall logs the entries it returns; an erase-all deletes them. Overlapped, the log row of an
entry being erased used to fail on its foreign key: the recall's (a 500) when the erasure
committed first, the erasure's (rolled back, a 500) when the recall's row committed between the
erasure's deletion of the log and its deletion of the entries.
"""

from __future__ import annotations

import pytest

from memory_core.erasure import memory_erase, memory_erase_all
from memory_core.models import ErasureReceipt, MemoryEntry, RecallLog
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall
from memory_core.services import namespace_for_user
from tests.concurrency_helpers import overlap

pytestmark = pytest.mark.django_db(transaction=True)

QUERY = "What am I allergic to?"


@pytest.fixture
def allergies(owner) -> list[MemoryEntry]:
    namespace = namespace_for_user(user=owner)
    texts = ["The user is allergic to peanuts.", "The user is allergic to shellfish."]
    return [memory_add(namespace=namespace, content=text, pinned=True).entry for text in texts]


def _erased(owner) -> bool:
    namespace = namespace_for_user(user=owner)
    return (
        not MemoryEntry.objects.filter(namespace=namespace).exists()
        and not RecallLog.objects.filter(namespace=namespace).exists()
    )


def test_a_recall_while_an_erase_all_is_committing_logs_nothing_and_fails_nothing(owner, allergies):
    """The recall reads the entries before the erasure commits and logs them after: the rows it
    would log are gone by then, so it logs none of them (it used to fail on the foreign key)."""
    recalled: list[int] = []

    def recall() -> None:
        recalled.append(len(memory_recall(actor=owner, query=QUERY).items))

    errors = overlap(held=lambda: memory_erase_all(actor=owner), meanwhile=recall)

    assert errors == []
    assert recalled == [2]  # what was there when the recall began
    assert _erased(owner)
    receipt = ErasureReceipt.objects.get(subject=owner)
    assert (receipt.entries, receipt.recalls) == (2, 0)


def test_an_erase_all_while_a_recall_is_committing_its_log_waits_and_erases_it(owner, allergies):
    """The recall's log rows are written in its caller's transaction; the erasure waits for it to
    commit, then deletes the rows with the entries (it used to fail on the foreign key at its own
    commit and roll back)."""

    def recall() -> None:
        assert len(memory_recall(actor=owner, query=QUERY).items) == 2

    errors = overlap(held=recall, meanwhile=lambda: memory_erase_all(actor=owner))

    assert errors == []
    assert _erased(owner)
    receipt = ErasureReceipt.objects.get(subject=owner)
    assert (receipt.entries, receipt.recalls) == (2, 2)


def test_erasing_one_memory_while_a_recall_is_committing_its_log(owner, allergies):
    peanuts = allergies[0]

    def recall() -> None:
        assert len(memory_recall(actor=owner, query=QUERY).items) == 2

    errors = overlap(held=recall, meanwhile=lambda: memory_erase(actor=owner, memory_id=peanuts.pk))

    assert errors == []
    assert not MemoryEntry.objects.filter(pk=peanuts.pk).exists()
    assert not RecallLog.objects.filter(entry_id=peanuts.pk).exists()
    assert RecallLog.objects.filter(entry=allergies[1]).count() == 1
