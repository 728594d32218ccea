"""Erasure from the privacy page, end to end and down to the disk: a canary said in chat, merged
with a duplicate, superseded by a correction, recalled twice and learned again by an extraction
job is erased with its sources; then no column of any table, no statistic, no queued task, and
after the disk pass no table file nor WAL segment of the embedded server holds it.

These tests commit (VACUUM needs committed rows and no open transaction)."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from chat.erasure import memory_erase_all_with_sources, memory_erase_with_sources
from chat.models import Conversation
from chat.services import conversation_close
from memory_core.erasure import memory_erase
from memory_core.extraction import RuleBasedExtractor
from memory_core.extraction.jobs import extraction_enqueue, extraction_run
from memory_core.lifecycle import memory_correct
from memory_core.models import (
    ErasureReceipt,
    ExtractionJob,
    ExtractionStatus,
    MemoryEntry,
    MemoryStatus,
    RecallLog,
)
from memory_core.scan import scan_database, scan_statistics
from memory_core.services import namespace_for_user
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say
from tests.erasure_helpers import (
    analyze,
    assert_nothing_in_sql,
    canary,
    disk_pass_leaves_nothing,
    files_with,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _current(user, marker: str) -> MemoryEntry:
    return MemoryEntry.objects.visible_to(user).get(content__icontains=marker, status=MemoryStatus.ACTIVE)


def live_history(user, marker: str) -> MemoryEntry:
    """The canary's whole life in chat; returns its current version."""
    first = new_conversation(user, title=f"Moving to {marker}")
    say(user, first, f"Remember that I live in {marker}.")
    say(user, first, f"Remember that I live in {marker}.")  # the duplicate merges: more evidence
    said = _current(user, marker)
    assert said.evidence_count == 2
    corrected = memory_correct(actor=user, memory_id=said.pk, content=f"I live in {marker} Old Town.")
    asked = new_conversation(user)
    say(user, asked, "Where do I live?")  # recalled, and quoted by the offline reply
    say(user, asked, "Which town is my home?")
    assert RecallLog.objects.filter(entry=corrected).count() >= 2
    moved = new_conversation(user)
    say(user, moved, f"I moved to {marker} Shanghai.")
    conversation_close(conversation=moved)  # the extraction job runs (synchronous in tests)
    current = _current(user, marker)
    corrected.refresh_from_db()
    assert current.pk != corrected.pk and corrected.superseded_by_id == current.pk
    assert ExtractionJob.objects.filter(namespace__owner=user, status=ExtractionStatus.DONE).exists()
    return current


def test_the_page_erases_a_memory_with_its_sources_down_to_the_disk(owner, other_user, admin_user):
    marker, kept = canary(), canary("Kilimanjaro")
    current = live_history(owner, marker)
    say(other_user, new_conversation(other_user), f"Remember that my gym is {kept}.")
    analyze()
    assert scan_statistics(marker)  # the sampled chat columns quote it
    assert {"memory_core_memoryentry", "chat_message", "chat_conversation"} <= set(scan_database(marker))

    client = Client()
    client.force_login(owner)
    response = client.post(reverse("privacy:erase", args=[current.pk]), {"erase_sources": "on"})

    assert response.status_code == 302
    assert_nothing_in_sql(marker)
    receipt = ErasureReceipt.objects.get(subject=owner)
    assert (receipt.entries, receipt.conversations) == (3, 3)
    assert receipt.messages >= 8 and receipt.evidence >= 3 and receipt.history >= 5
    assert receipt.recalls >= 2 and receipt.jobs >= 1
    disk_pass_leaves_nothing(marker, [receipt])
    # What was not erased is still found, in SQL and in the files: the scans do see live data.
    assert "memory_core_memoryentry" in scan_database(kept)
    assert any(path.startswith("base/") for path in files_with(kept))
    # The user sees the receipt, without content, and exports it.
    page = client.get(reverse("privacy:activity")).content.decode()
    assert "Erasure receipts" in page and "3 memories" in page and "3 conversations" in page
    [exported] = client.get(reverse("privacy:export")).json()["erasures"]
    assert exported["counts"]["entries"] == 3 and exported["rewritten_at"] and exported["via"] == "app"
    # Operators see it in the admin.
    operator = Client()
    operator.force_login(admin_user)
    listing = operator.get("/admin/memory_core/erasurereceipt/")
    assert listing.status_code == 200 and str(receipt.subject_ref) in listing.content.decode()


def test_erase_all_while_an_extraction_runs_leaves_nothing(owner, monkeypatch):
    marker = canary()
    live_history(owner, marker)
    queued = extraction_enqueue(
        namespace=namespace_for_user(user=owner),
        source_conversation="ticket-1",
        messages=[{"id": "1", "role": "user", "content": f"My favourite café is {marker}-B on the square."}],
        trigger="api",
    )
    assert queued is not None
    running = ExtractionJob.objects.create(
        namespace=namespace_for_user(user=owner),
        idempotency_key="running",
        source_conversation="ticket-2",
        messages=[{"id": "1", "role": "user", "content": f"I work at {marker} Labs."}],
    )
    extract = RuleBasedExtractor.extract
    seen: dict[str, object] = {}

    def erase_all_meanwhile(self, messages):
        def user_erases() -> None:  # another request, while the model "answers"
            try:
                seen["receipt"] = memory_erase_all_with_sources(user=owner, erase_sources=True)
            except BaseException as exc:
                seen["error"] = exc
            finally:
                connection.close()

        thread = threading.Thread(target=user_erases)
        thread.start()
        thread.join(timeout=60)
        return extract(self, messages)

    monkeypatch.setattr(RuleBasedExtractor, "extract", erase_all_meanwhile)

    assert extraction_run(job_id=running.pk) is None  # erased while it ran: nothing written
    monkeypatch.undo()
    assert extraction_run(job_id=queued.pk) is None  # the queued task, run later by the cluster

    assert "error" not in seen
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()
    assert not Conversation.objects.filter(user=owner).exists()
    assert_nothing_in_sql(marker)
    receipt = seen["receipt"]
    assert isinstance(receipt, ErasureReceipt) and receipt.jobs >= 3 and receipt.conversations == 3
    disk_pass_leaves_nothing(marker, [receipt])


def test_a_burst_of_erasures_shares_one_disk_pass(owner):
    markers = [canary() for _ in range(3)]
    entries = []
    for marker in markers:
        say(owner, new_conversation(owner), f"Remember that my favourite café is {marker}.")
        entries.append(_current(owner, marker))

    receipts = [memory_erase_with_sources(user=owner, memory_id=e.pk, erase_sources=True) for e in entries]

    disk_pass_leaves_nothing(markers, receipts)


def test_the_disk_pass_refuses_to_run_inside_a_transaction():
    from memory_core.compaction import compaction_run
    from memory_core.errors import MemoryServiceError

    with transaction.atomic(), pytest.raises(MemoryServiceError, match="transaction"):
        compaction_run()


def test_erasure_commands_find_and_then_clean(owner, capsys):
    marker = canary()
    say(owner, new_conversation(owner), f"Remember that my favourite café is {marker}.")
    entry = _current(owner, marker)

    with pytest.raises(SystemExit) as found:
        call_command("erasure_verify", marker)
    out = capsys.readouterr().out
    assert found.value.code == 1
    assert "table memory_core_memoryentry: " in out and "content" in out and "file base/" in out

    memory_erase(actor=owner, memory_id=entry.pk)
    Conversation.objects.filter(user=owner).delete()
    call_command("erasure_compact", "--rewrite")
    assert "WAL retired" in capsys.readouterr().out

    call_command("erasure_verify", marker)
    assert "Not found anywhere." in capsys.readouterr().out
