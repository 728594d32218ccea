"""Recall and erase-all on one user at the same time, overlapped on purpose: neither fails.

A recall logs the entries it returns; an erase-all deletes them. Overlapped, the log row of an
entry being erased used to fail on its foreign key: the recall's (a 500) when the erasure
committed first, the erasure's (rolled back, a 500) when the recall's row committed between the
erasure's deletion of the log and its deletion of the entries.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from django.db import connection, connections, transaction

from memory_core.erasure import memory_erase, memory_erase_all
from memory_core.models import ErasureReceipt, MemoryEntry, RecallLog
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db(transaction=True)

QUERY = "What am I allergic to?"


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def _waits_on_a_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return bool(row) and row[0] == "Lock"


def _overlap(*, held: Callable[[], object], meanwhile: Callable[[], object]) -> list[BaseException]:
    """`held` runs in a transaction that stays open until `meanwhile`, started on a second
    connection once `held` has run, has finished or waits on a lock; then it commits. Returns
    what either side raised."""
    held_done = threading.Barrier(2, timeout=10)
    other_pid: list[int] = []
    other_done = threading.Event()
    errors: list[BaseException] = []

    def holder() -> None:
        try:
            with transaction.atomic():
                held()
                held_done.wait()
                deadline = time.monotonic() + 10
                while not other_done.is_set() and time.monotonic() < deadline:
                    if other_pid and _waits_on_a_lock(other_pid[0]):
                        break
                    time.sleep(0.01)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def other() -> None:
        try:
            other_pid.append(_backend_pid())
            held_done.wait()
            meanwhile()
        except BaseException as exc:
            errors.append(exc)
        finally:
            other_done.set()
            connections.close_all()

    threads = [threading.Thread(target=holder), threading.Thread(target=other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return errors


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

    errors = _overlap(held=lambda: memory_erase_all(actor=owner), meanwhile=recall)

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

    errors = _overlap(held=recall, meanwhile=lambda: memory_erase_all(actor=owner))

    assert errors == []
    assert _erased(owner)
    receipt = ErasureReceipt.objects.get(subject=owner)
    assert (receipt.entries, receipt.recalls) == (2, 2)


def test_erasing_one_memory_while_a_recall_is_committing_its_log(owner, allergies):
    peanuts = allergies[0]

    def recall() -> None:
        assert len(memory_recall(actor=owner, query=QUERY).items) == 2

    errors = _overlap(held=recall, meanwhile=lambda: memory_erase(actor=owner, memory_id=peanuts.pk))

    assert errors == []
    assert not MemoryEntry.objects.filter(pk=peanuts.pk).exists()
    assert not RecallLog.objects.filter(entry_id=peanuts.pk).exists()
    assert RecallLog.objects.filter(entry=allergies[1]).count() == 1
