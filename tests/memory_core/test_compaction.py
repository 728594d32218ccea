"""The erasure disk pass: debounced requests, tables too big to rewrite at once waiting for the
nightly rewrite, and a pass that cannot finish leaving its receipts pending."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone
from django_q.models import Schedule

from memory_core.compaction import VACUUM_SCHEDULE, compaction_request, rewrite_due
from memory_core.erasure import memory_erase
from memory_core.models import ErasureReceipt
from memory_core.pipeline import memory_add
from memory_core.schedules import SCHEDULES
from memory_core.services import namespace_for_user
from memory_core.tasks import run_erasure_rewrite, run_erasure_vacuum
from tests.erasure_helpers import canary, files_with

pytestmark = pytest.mark.django_db(transaction=True)


def _erased(owner, marker: str) -> ErasureReceipt:
    namespace = namespace_for_user(user=owner)
    entry = memory_add(namespace=namespace, content=f"My locker is in the {marker} building.").entry
    # A row that stays, on the same page: VACUUM would otherwise drop the emptied page altogether.
    memory_add(namespace=namespace, content="The user prefers tea to coffee.")
    assert entry is not None
    return memory_erase(actor=owner, memory_id=entry.pk)


def test_requests_share_one_waiting_pass(settings):
    settings.ERASURE_VACUUM_DELAY_SECONDS = 90
    first = compaction_request()
    assert compaction_request().pk == first.pk == compaction_request().pk
    assert first.schedule_type == Schedule.ONCE and first.func == "memory_core.tasks.run_erasure_vacuum"
    assert timedelta(seconds=80) < first.next_run - timezone.now() <= timedelta(seconds=90)
    # The scheduler deletes a one-off schedule once its task is queued: the next erasure asks anew.
    first.delete()
    assert compaction_request().pk != first.pk
    assert Schedule.objects.filter(name=VACUUM_SCHEDULE).count() == 1


def test_big_tables_wait_for_the_nightly_rewrite(owner, settings):
    settings.ERASURE_REWRITE_NOW_MAX_MB = 0  # every table counts as big
    marker = canary()
    receipt = _erased(owner, marker)
    assert any(path.startswith("base/") for path in files_with(marker))  # dead rows, still in the files

    vacuumed = run_erasure_vacuum()

    # VACUUM only frees the space: whether a freed row's bytes survive depends on how the page is
    # compacted, so the receipt, not the file, is what says the rewrite is still owed.
    assert vacuumed["rewritten"] == 0 and vacuumed["vacuumed"] and not vacuumed["wal_retired"]
    receipt.refresh_from_db()
    assert receipt.vacuumed_at is not None and receipt.rewritten_at is None

    settings.ERASURE_REWRITE_HOUR = (timezone.localtime().hour + 12) % 24
    assert run_erasure_rewrite() == {"due": False}  # not the quiet hour, and not overdue
    settings.ERASURE_REWRITE_HOUR = timezone.localtime().hour

    rewritten = run_erasure_rewrite()

    assert rewritten["due"] is True and rewritten["wal_retired"] is True and rewritten["vacuumed"] == 0
    receipt.refresh_from_db()
    assert receipt.rewritten_at is not None
    assert files_with(marker) == []


def test_the_rewrite_is_due_at_night_or_when_a_receipt_waited_too_long(owner, settings):
    settings.ERASURE_REWRITE_MAX_HOURS = 20
    now = timezone.now()
    settings.ERASURE_REWRITE_HOUR = (timezone.localtime(now).hour + 6) % 24
    assert not rewrite_due(now=now)  # nothing pending
    receipt = _erased(owner, canary())
    assert not rewrite_due(now=now + timedelta(hours=1))
    assert rewrite_due(now=now + timedelta(hours=20, minutes=1))
    settings.ERASURE_REWRITE_HOUR = timezone.localtime(now).hour
    assert rewrite_due(now=now)
    ErasureReceipt.objects.filter(pk=receipt.pk).update(rewritten_at=timezone.now())
    assert not rewrite_due(now=now + timedelta(days=3))
    _erased(owner, canary())
    settings.ERASURE_REWRITE_HOUR = -1  # cron runs `erasure_compact --rewrite` instead
    assert not rewrite_due(now=now + timedelta(days=3))
    assert ("erasure-rewrite", "memory_core.tasks.run_erasure_rewrite", 60) in SCHEDULES


def test_a_pass_that_cannot_rewrite_everything_leaves_the_receipts_pending(owner, settings):
    settings.ERASURE_LOCK_TIMEOUT_SECONDS = 0.3
    settings.ERASURE_SNAPSHOT_WAIT_SECONDS = 0.3
    marker = canary()
    receipt = _erased(owner, marker)
    holding, release = threading.Event(), threading.Event()

    def long_reader() -> None:  # a transaction older than the pass, reading the memory table
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")  # keeps its snapshot
                cursor.execute("SELECT count(*) FROM memory_core_memoryentry")
                holding.set()
                release.wait(30)
        finally:
            connection.close()

    reader = threading.Thread(target=long_reader)
    reader.start()
    try:
        assert holding.wait(30)
        result = run_erasure_vacuum()
    finally:
        release.set()
        reader.join(30)

    assert "memory_core_memoryentry" in result["skipped"] and not result["wal_retired"]
    assert any("older than the pass" in note for note in result["notes"])
    receipt.refresh_from_db()
    assert receipt.vacuumed_at is not None and receipt.rewritten_at is None
    # The next pass, unhindered, finishes the job.
    assert run_erasure_vacuum()["receipts_rewritten"] == 1
    assert files_with(marker) == []
