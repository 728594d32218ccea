"""Forgetting on the user's clock: absence costs nothing, capacity takes the least valuable first,
protected categories stay, a pass takes at most a share, restores stick, consolidation refuses
different statements, and a pass overlapping a write neither waits nor deadlocks."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connections, transaction
from django.test import override_settings
from django.utils import timezone

from memory_core import forgetting
from memory_core.errors import Conflict, NotFound
from memory_core.forgetting import (
    clock_refresh,
    consolidate,
    decay,
    forget_all,
    forgetting_runs,
    memory_restore,
)
from memory_core.models import (
    ActiveDay,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    MemoryStatus,
    Namespace,
    SourceKind,
)
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall
from memory_core.services import namespace_for_user
from tests.concurrency_helpers import backend_pid, waits_on_a_lock
from tests.memory_core.helpers import FORGETTING_NOW, backdated, remember

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("decay_by_retention_alone")]

NOW = FORGETTING_NOW
_entry = backdated


def _active_days(user: Any, first: datetime, last: datetime) -> None:
    """The user used their memory on every day from `first` to `last`."""
    namespace = namespace_for_user(user=user)
    days = (last.date() - first.date()).days + 1
    ActiveDay.objects.bulk_create(
        [ActiveDay(namespace=namespace, day=first.date() + timedelta(days=n)) for n in range(days)],
        ignore_conflicts=True,
    )


def _status(entry: MemoryEntry) -> str:
    entry.refresh_from_db()
    return entry.status


def _archived() -> set:
    return set(MemoryEntry.objects.filter(status=MemoryStatus.ARCHIVED).values_list("pk", flat=True))


# The user's clock ---------------------------------------------------------------------------------


def test_a_year_of_absence_archives_and_expires_nothing(owner):
    # Learned a year and a half ago, used daily for a month, then nothing for over a year.
    learned = NOW - timedelta(days=500)
    _active_days(owner, learned, learned + timedelta(days=30))
    trivia = _entry(owner, "Mentioned a podcast once", days_old=500, importance=0.1)
    wedding = _entry(owner, "Got married on 12 June 2029", days_old=500)
    episode = _entry(owner, "Went to the dentist", type="episodic", days_old=500, importance=1)

    reports = forget_all(NOW)

    assert [report.count for report in reports] == [0, 0, 0, 0]
    assert _status(trivia) == _status(wedding) == _status(episode) == MemoryStatus.ACTIVE


def test_back_from_absence_the_clock_runs_again(owner):
    learned = NOW - timedelta(days=600)
    trivia = _entry(owner, "Mentioned a podcast once", days_old=600, importance=0.1)
    # Away for 400 days, then back and active every day: 0.28 * 0.5 ** (age / 30) < 0.05 after 75 days.
    back = learned + timedelta(days=400)
    _active_days(owner, back, back + timedelta(days=70))
    assert decay(back + timedelta(days=70)).count == 0

    _active_days(owner, back, back + timedelta(days=80))
    report = decay(back + timedelta(days=80))

    assert [change.entry_id for change in report.changes] == [trivia.pk]
    assert "81 active days since last use" in report.changes[0].reason


def test_the_clock_ticks_with_recalls_and_writes_but_not_with_jobs(owner, other_user):
    namespace = namespace_for_user(user=owner)
    idle = namespace_for_user(user=other_user)
    memory_add(
        namespace=namespace, content="I play the cello", source_kind="user_explicit", actor_kind="user"
    )
    remember(other_user, "I keep bees")  # a system write: no one used the namespace
    _entry(other_user, "Mentioned a podcast once", days_old=300, importance=0, now=timezone.now())
    decay()  # a job's own events make no day active either
    memory_recall(actor=owner, query="cello")

    clock_refresh()

    today = timezone.now().astimezone(UTC).date()
    assert list(ActiveDay.objects.filter(namespace=namespace).values_list("day", flat=True)) == [today]
    assert not ActiveDay.objects.filter(namespace=idle).exists()
    assert clock_refresh() == 0  # idempotent


def test_a_recall_or_a_confirmation_resets_an_entrys_clock(owner):
    _active_days(owner, NOW - timedelta(days=300), NOW)
    recalled = _entry(
        owner, "Plays chess", days_old=300, importance=0.1, last_accessed_at=NOW - timedelta(days=2)
    )
    confirmed = _entry(owner, "Drinks green tea", days_old=300, importance=0.1)
    confirmed.evidence.create(source_kind=SourceKind.EXTRACTED, created_at=NOW - timedelta(days=3))
    forgotten = _entry(owner, "Mentioned a podcast once", days_old=300, importance=0.1)

    with override_settings(FORGET_MAX_SHARE_PER_PASS=1.0):
        report = decay(NOW)

    assert {change.entry_id for change in report.changes} == {forgotten.pk}
    assert _status(recalled) == _status(confirmed) == MemoryStatus.ACTIVE


# Capacity, protection, the share cap --------------------------------------------------------------


def test_over_capacity_the_least_valuable_go_first_and_protected_ones_never(owner):
    _active_days(owner, NOW - timedelta(days=60), NOW)
    namespace = namespace_for_user(user=owner)
    Namespace.objects.filter(pk=namespace.pk).update(memory_capacity=6)
    weakest = _entry(owner, "Watched a film on a Tuesday", days_old=50, importance=0.1)
    weak = _entry(owner, "Had pasta for lunch", days_old=40, importance=0.2)
    used = _entry(
        owner, "Runs on Sundays", days_old=50, importance=0.1, access_count=30, last_accessed_at=NOW
    )
    strong = _entry(owner, "Works as a nurse", days_old=50, importance=0.9)
    confirmed = _entry(owner, "Likes jazz", days_old=50, importance=0.2, evidence_count=6)
    protected = [
        _entry(owner, "Allergic to penicillin", days_old=59, importance=0, category="safety"),
        _entry(owner, "Is called Alice", days_old=59, importance=0, category="profile"),
        _entry(owner, "Has a daughter, Mia", days_old=59, importance=0, category="relationship"),
        _entry(owner, "Prefers short answers", days_old=59, importance=0, category="preference"),
    ]
    # 9 active, budget 6: three go, the least valuable unprotected ones.

    with override_settings(FORGET_MAX_SHARE_PER_PASS=1.0):
        report = decay(NOW)

    assert [change.entry_id for change in report.changes] == [weakest.pk, weak.pk, confirmed.pk]
    assert all(_status(entry) == MemoryStatus.ACTIVE for entry in [used, strong, *protected])
    event = MemoryEvent.objects.get(entry=weakest, action="archived")
    assert event.reason.startswith("lowest value while over capacity (9 active entries, budget 6)")
    assert (event.data["rule"], event.data["budget"]) == ("capacity", 6)
    assert decay(NOW).count == 0  # back within budget


def test_the_capacity_setting_applies_where_a_namespace_has_no_budget_of_its_own(owner, other_user):
    for user in (owner, other_user):
        for i in range(4):
            _entry(user, f"Trivia number {i}", days_old=1 + i, importance=0.1)
    Namespace.objects.filter(pk=namespace_for_user(user=other_user).pk).update(memory_capacity=10)

    with override_settings(FORGET_CAPACITY=3, FORGET_MAX_SHARE_PER_PASS=1.0):
        report = decay(NOW)

    assert report.count == 1
    assert MemoryEntry.objects.get(pk=report.changes[0].entry_id).namespace == namespace_for_user(user=owner)


def test_nothing_protected_is_archived_however_old_and_over_budget(owner):
    _active_days(owner, NOW - timedelta(days=900), NOW)
    namespace = namespace_for_user(user=owner)
    Namespace.objects.filter(pk=namespace.pk).update(memory_capacity=1)
    for category in ("safety", "profile", "family", "preference", "relationship", "identity"):
        _entry(owner, f"A {category} fact", days_old=900, importance=0, category=category)

    assert forget_all(NOW)[2].count == 0
    assert not _archived()


def test_a_pass_archives_at_most_its_share_of_a_namespace(owner):
    _active_days(owner, NOW - timedelta(days=400), NOW)
    for i in range(40):
        _entry(owner, f"Trivia number {i}", days_old=300 + i, importance=0)

    first = decay(NOW)
    with override_settings(FORGET_MAX_SHARE_PER_PASS=0.5):
        second = decay(NOW)

    assert first.count == 4  # 10% of 40
    assert second.count == 18  # half of the 36 left
    # The weakest (oldest) went first.
    assert {MemoryEntry.objects.get(pk=c.entry_id).content for c in first.changes} == {
        f"Trivia number {i}" for i in range(36, 40)
    }


def test_a_dry_run_respects_the_share_and_the_budget_too(owner):
    _active_days(owner, NOW - timedelta(days=400), NOW)
    for i in range(20):
        _entry(owner, f"Trivia number {i}", days_old=300 + i, importance=0)

    dry = forget_all(NOW, dry_run=True)

    assert dry[2].count == 2
    assert not _archived()


# Visible and reversible -------------------------------------------------------------------------------


def test_a_restored_entry_is_used_again_and_never_archived_by_the_job_again(owner, other_user):
    _active_days(owner, NOW - timedelta(days=400), NOW)
    entry = _entry(owner, "Mentioned a podcast once", days_old=300, importance=0)
    decay(NOW)
    assert _status(entry) == MemoryStatus.ARCHIVED

    with pytest.raises(NotFound):
        memory_restore(actor=other_user, memory_id=entry.pk)
    restored = memory_restore(actor=owner, memory_id=entry.pk)
    again = memory_restore(actor=owner, memory_id=entry.pk)  # a double click changes nothing more

    assert restored.status == again.status == MemoryStatus.ACTIVE
    assert restored.expired_at is None
    event = MemoryEvent.objects.get(entry=entry, action="restored")
    assert (event.actor_kind, event.actor, event.data["from"]) == ("user", owner, "archived")
    Namespace.objects.filter(pk=entry.namespace_id).update(memory_capacity=1)
    _entry(owner, "Another", days_old=1)
    assert entry.pk not in {c.entry_id for c in decay(NOW + timedelta(days=1000)).changes}
    assert _status(entry) == MemoryStatus.ACTIVE


def test_only_archived_entries_can_be_restored(owner):
    superseded = _entry(owner, "Lived in Bonn", status=MemoryStatus.SUPERSEDED)

    with pytest.raises(Conflict):
        memory_restore(actor=owner, memory_id=superseded.pk)
    assert _status(superseded) == MemoryStatus.SUPERSEDED


def test_the_last_passes_are_summarised_for_the_user(owner, other_user):
    now = timezone.now()
    _active_days(owner, now - timedelta(days=400), now)
    Namespace.objects.filter(pk=namespace_for_user(user=owner).pk).update(memory_capacity=2)
    for i in range(3):
        _entry(owner, f"Fresh trivia {i}", days_old=1 + i, importance=0.1, now=now)
    _entry(owner, "Old trivia", days_old=300, importance=0, now=now)
    _entry(owner, "Works at Initech", days_old=10, valid_to=now - timedelta(days=1), now=now)
    _entry(other_user, "Not yours", days_old=300, valid_to=now - timedelta(days=1), now=now)

    with override_settings(FORGET_MAX_SHARE_PER_PASS=1.0):
        forget_all(now)

    [run] = forgetting_runs(actor=owner)
    assert dict(run.counts) == {"archived (decayed)": 1, "archived (capacity)": 1, "expired": 1}
    assert run.summary == "archived (capacity) 1, archived (decayed) 1, expired 1"


# Consolidation uses the write path's definition -------------------------------------------------------


def test_consolidation_never_merges_two_different_turns_of_one_speaker(owner):
    speaker = {"speaker": "Melanie"}
    short = remember(owner, "Thanks! Your support means a lot to me.", metadata=speaker)
    longer = remember(
        owner,
        "Thanks. Your support means a lot. I'll keep pushing forward and remember to enjoy "
        "every step of the way.",
        metadata=speaker,
    )

    # Not even with the vector threshold at zero: the statements differ.
    assert forgetting._find_merges(threshold=0.0, cap=10) == []
    assert consolidate(timezone.now()).count == 0
    assert _status(short) == _status(longer) == MemoryStatus.ACTIVE


def test_consolidation_still_merges_the_same_statement(owner):
    speaker = {"speaker": "Melanie"}
    first = remember(owner, "Thanks! Your support means a lot to me.", metadata=speaker)
    second = remember(owner, "Thanks, your support means a lot to me", metadata=speaker)

    report = consolidate(timezone.now())

    assert [(c.entry_id, c.into) for c in report.changes] == [(second.pk, first.pk)]


# A pass overlapping a write -------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_pass_during_a_chat_write_neither_waits_nor_deadlocks(owner):
    now = timezone.now()
    _active_days(owner, now - timedelta(days=400), now)
    namespace = namespace_for_user(user=owner)
    faded = _entry(owner, "Mentioned a podcast once", days_old=300, importance=0, now=now)
    berlin = remember(owner, "I live in Berlin")
    MemoryEntry.objects.filter(pk=berlin.pk).update(recorded_at=now - timedelta(days=300), importance=0)
    MemoryEvidence.objects.filter(entry=berlin).update(created_at=now - timedelta(days=300))
    write_holds_locks = threading.Barrier(2, timeout=10)
    pass_pid: list[int] = []
    pass_done = threading.Event()
    errors: list[BaseException] = []
    pass_blocked: list[bool] = []

    def chat_write() -> None:
        # "remember that I live in Berlin." said in a chat: merges into the faded entry, under the lock.
        try:
            with transaction.atomic():
                outcome = memory_add(
                    namespace=namespace,
                    content="I live in Berlin.",
                    source_kind="user_explicit",
                    actor_kind="user",
                    actor=owner,
                )
                assert outcome.action == "merged"
                write_holds_locks.wait()
                deadline = time.monotonic() + 10
                while not pass_done.is_set() and time.monotonic() < deadline:
                    if pass_pid and waits_on_a_lock(pass_pid[0]):
                        pass_blocked.append(True)
                        break
                    time.sleep(0.01)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def forgetting_pass() -> None:
        try:
            pass_pid.append(backend_pid())
            write_holds_locks.wait()
            forget_all(now)
        except BaseException as exc:
            errors.append(exc)
        finally:
            pass_done.set()
            connections.close_all()

    threads = [threading.Thread(target=chat_write), threading.Thread(target=forgetting_pass)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert not errors
    assert not pass_blocked  # it skipped the busy namespace instead of waiting for it
    assert _status(berlin) == _status(faded) == MemoryStatus.ACTIVE
    berlin.refresh_from_db()
    assert berlin.evidence_count == 2
    # The next run: the podcast has faded; Berlin was just confirmed, so it stays.
    forget_all(now)
    assert _status(faded) == MemoryStatus.ARCHIVED
    assert _status(berlin) == MemoryStatus.ACTIVE
