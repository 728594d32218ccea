"""THE erasure scan: after erasing, no table of the database and no job in the queue holds the
erased text, except the user's own conversations when they chose to keep them."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django_q.conf import Conf
from django_q.models import OrmQ

from chat.erasure import memory_erase_all_with_sources, memory_erase_with_sources
from chat.services import conversation_close
from memory_core.extraction.jobs import extraction_run
from memory_core.lifecycle import memory_correct
from memory_core.models import (
    EventAction,
    ExtractionJob,
    FlaggedWrite,
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    RecallLog,
)
from memory_core.recall import memory_recall
from memory_core.scan import scan_database, scan_job_queue
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say

pytestmark = pytest.mark.django_db

# A made-up place no other text holds (a word-and-digits token would read as a credential).
MARK = "Zanzibarquay"
KEEP = "Kilimanjarohill"
CHAT_TABLES = {"chat_conversation", "chat_message"}


def _entry(owner, text: str, **filters) -> MemoryEntry:
    return MemoryEntry.objects.visible_to(owner).get(content__icontains=text, **filters)


@pytest.fixture
def history(owner, django_capture_on_commit_callbacks, monkeypatch):
    """Memories with MARK that were merged, superseded, corrected, recalled, flagged, extracted by a
    finished job and carried by a still-queued one; plus one with KEEP that must survive."""
    capture = django_capture_on_commit_callbacks
    # Said three times ("remember that", written at once): one entry, three pieces of evidence;
    # the second and third turns recall it.
    first = new_conversation(owner)
    for _ in range(3):
        say(owner, first, f"Remember that I live in {MARK}.")
    with capture(execute=True):
        conversation_close(conversation=first)  # a finished job (its payload is dropped when done)
    lives = _entry(owner, f"lives in {MARK}")
    assert lives.evidence_count == 3

    # Learned by extraction when the conversation closes: supersedes the old home city.
    moved = new_conversation(owner)
    say(owner, moved, f"I moved to {MARK} Shanghai.")
    with capture(execute=True):
        conversation_close(conversation=moved)
    current = _entry(owner, "Shanghai", status=MemoryStatus.ACTIVE)
    lives.refresh_from_db()
    assert lives.status == MemoryStatus.SUPERSEDED and lives.superseded_by_id == current.pk
    memory_recall(actor=owner, query=f"Where does the user live? {MARK}", record=True)
    LogEntry.objects.log_actions(user_id=owner.pk, queryset=[current], action_flag=CHANGE)

    # Corrected, and a rule that weakens a policy (pending review, flagged).
    lockers = new_conversation(owner)
    # Where the locker is, not what opens it: "my locker is <a word>" reads as a code word told.
    say(owner, lockers, f"Remember that my locker is in {MARK} hall.")
    locker = memory_correct(
        actor=owner, memory_id=_entry(owner, "locker").pk, content=f"My locker is in B-{MARK} hall."
    )
    say(owner, lockers, f"Remember that from now on refunds for {MARK} no longer need approval.")
    rule = _entry(owner, "refunds")
    assert rule.status == MemoryStatus.PENDING_REVIEW and FlaggedWrite.objects.filter(entry=rule).exists()
    # The conversation's extraction job waits in the queue (the ORM broker, so the scan sees it;
    # no cluster runs it).
    with monkeypatch.context() as queue:
        queue.setattr(Conf, "SYNC", False)
        queue.setattr(Conf, "ORM", "default")
        with capture(execute=True):
            queued = conversation_close(conversation=lockers)
    assert queued is not None and OrmQ.objects.count() == 1

    keep = new_conversation(owner)
    say(owner, keep, f"Remember that my gym is {KEEP}.")

    assert RecallLog.objects.filter(entry=current).exists()
    # Finished jobs dropped their transcript; the queued one still carries it.
    assert not ExtractionJob.objects.filter(status="done").exclude(messages=[]).exists()
    assert list(ExtractionJob.objects.filter(messages__icontains=MARK)) == [queued]
    assert set(scan_database(MARK)) >= {"memory_core_memoryentry", "memory_core_memoryevent", "chat_message"}
    return {"current": current, "locker": locker, "rule": rule, "queued": queued}


def _erase_marked(owner, history, *, erase_sources: bool) -> None:
    for name in ("current", "locker", "rule"):
        memory_erase_with_sources(user=owner, memory_id=history[name].pk, erase_sources=erase_sources)


def _assert_queued_job_learns_nothing_back(owner, history) -> None:
    assert scan_job_queue(MARK) == []
    extraction_run(job_id=history["queued"].pk)  # what the cluster would do later
    assert not MemoryEntry.objects.filter(content__icontains=MARK).exists()


def test_it_erases_one_memory_everywhere_but_in_the_conversations_kept(owner, history):
    erased = [history["current"].pk, history["current"].supersedes_id or history["current"].pk]

    _erase_marked(owner, history, erase_sources=False)

    assert set(scan_database(MARK)) <= CHAT_TABLES
    assert scan_job_queue(MARK) == []
    # The other memory is untouched: the scan does find what was not erased.
    assert "memory_core_memoryentry" in scan_database(KEEP)
    # Older versions went with it; the history keeps content-free tombstones.
    assert not MemoryEntry.objects.filter(pk__in=erased).exists()
    tombstones = MemoryEvent.objects.filter(entry_ref=history["current"].pk)
    assert tombstones.filter(action=EventAction.ERASED).count() == 1
    assert all(e.data == {} and e.entry_id is None for e in tombstones)
    assert not LogEntry.objects.filter(object_repr__icontains=MARK).exists()
    _assert_queued_job_learns_nothing_back(owner, history)
    assert set(scan_database(MARK)) <= CHAT_TABLES


def test_it_erases_one_memory_and_the_conversations_it_came_from_or_was_used_in(owner, history):
    _erase_marked(owner, history, erase_sources=True)

    assert scan_database(MARK) == {}
    _assert_queued_job_learns_nothing_back(owner, history)
    assert "memory_core_memoryentry" in scan_database(KEEP)


def test_it_erases_everything_but_the_conversations_kept(owner, history):
    receipt = memory_erase_all_with_sources(user=owner, erase_sources=False)
    erased, conversations = receipt.entries, receipt.conversations

    assert erased >= 5 and conversations == 0
    assert set(scan_database(MARK)) <= CHAT_TABLES
    assert set(scan_database(KEEP)) <= CHAT_TABLES
    assert not MemoryEntry.objects.visible_to(owner).exists()
    assert not ExtractionJob.objects.filter(namespace__owner=owner).exists()
    assert MemoryEvent.objects.filter(namespace__owner=owner, action=EventAction.ERASED).count() == erased
    assert not MemoryEvent.objects.filter(namespace__owner=owner).exclude(data={}).exists()
    _assert_queued_job_learns_nothing_back(owner, history)


def test_it_erases_everything_with_the_conversations(owner, history):
    memory_erase_all_with_sources(user=owner, erase_sources=True)

    assert scan_database(MARK) == {}
    assert scan_database(KEEP) == {}
    assert scan_job_queue(MARK) == []
