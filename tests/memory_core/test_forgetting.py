"""Forgetting and consolidation: decay, TTL, closed windows, merges, caps, dry runs, the command."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test import override_settings
from django.utils import timezone
from django_q.models import Schedule

from memory_core import forgetting
from memory_core.forgetting import (
    consolidate,
    decay,
    decay_score,
    expire_ended_windows,
    expire_ttl,
    forget_all,
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
from memory_core.schedules import SCHEDULES, install_schedules
from memory_core.services import namespace_for_user
from memory_core.tasks import run_forgetting
from tests.memory_core.helpers import FORGETTING_NOW, backdated, remember

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("decay_by_retention_alone")]

NOW = FORGETTING_NOW
_entry = backdated


def _active_daily(user: Any, *, days: int = 500, now: datetime = NOW) -> None:
    """The user used their memory every day up to `now`: the user's clock runs like the calendar."""
    namespace = namespace_for_user(user=user)
    today = now.astimezone(UTC).date()
    ActiveDay.objects.bulk_create(
        [ActiveDay(namespace=namespace, day=today - timedelta(days=n)) for n in range(days)],
        ignore_conflicts=True,
    )


def _status(entry: MemoryEntry) -> str:
    entry.refresh_from_db()
    return entry.status


def _ids(report: forgetting.PassReport) -> set:
    return {change.entry_id for change in report.changes}


def _remember_at(user: Any, content: str, *, at: datetime, **fields: Any) -> MemoryEntry:
    """Through the real service (so with a real embedding), then moved to `at`."""
    entry = remember(user, content, **fields)
    MemoryEntry.objects.filter(pk=entry.pk).update(recorded_at=at, valid_from=at, created_at=at)
    entry.refresh_from_db()
    return entry


# Decay ----------------------------------------------------------------------------------------


def test_it_archives_an_old_unimportant_unused_entry_and_spares_the_others(owner):
    _active_daily(owner)
    old = _entry(owner, "Mentioned a podcast once", days_old=200, importance=0.1)
    recent = _entry(owner, "Likes green tea", days_old=5, importance=0.1)
    pinned = _entry(owner, "Allergic to peanuts", days_old=200, importance=0.1, pinned=True)
    procedure = _entry(owner, "Answer in English", days_old=200, importance=0.1, type="procedural")
    used = _entry(
        owner,
        "Works at Acme",
        days_old=200,
        importance=0.1,
        access_count=50,
        last_accessed_at=NOW - timedelta(days=190),
    )

    report = decay(NOW)

    assert _ids(report) == {old.pk}
    assert _status(old) == MemoryStatus.ARCHIVED
    assert old.expired_at == NOW
    for spared in (recent, pinned, procedure, used):
        assert _status(spared) == MemoryStatus.ACTIVE
    assert decay_score(used, NOW) > forgetting.decay_threshold() > decay_score(old, NOW)

    event = MemoryEvent.objects.get(entry=old, action="archived")
    assert event.actor_kind == "job"
    assert event.reason.startswith("retention 0.0")
    assert event.data["status"] == "archived"
    assert "content" not in event.data
    assert report.changes[0].score == pytest.approx(decay_score(old, NOW))


@override_settings(FORGET_MAX_SHARE_PER_PASS=1.0)
def test_it_decides_at_the_same_age_in_sql_as_decay_score(owner):
    _active_daily(owner)
    # importance 0.5, never used: retention = 0.6 * 0.5 ** (age / 30) crosses 0.05 at 107.5 days.
    kept = _entry(owner, "Kept", days_old=107)
    archived = _entry(owner, "Archived", days_old=108)
    ancient = _entry(owner, "Ancient", days_old=365 * 100, importance=0, confidence=0)

    report = decay(NOW)

    assert _ids(report) == {archived.pk, ancient.pk}
    assert decay_score(kept, NOW) > 0.05 > decay_score(archived, NOW)
    assert decay_score(ancient, NOW) >= 0
    retention = dict(
        MemoryEntry.objects.filter(pk__in=[kept.pk, archived.pk, ancient.pk])
        .annotate(r=forgetting._retention_sql(NOW))
        .values_list("pk", "r")
    )
    for entry in (kept, archived, ancient):
        assert retention[entry.pk] == pytest.approx(decay_score(entry, NOW), rel=1e-9, abs=1e-300)


def test_it_does_not_decay_while_memory_is_paused(owner):
    entry = _entry(owner, "Mentioned a podcast once", days_old=400, importance=0.1)
    namespace = namespace_for_user(user=owner)
    namespace.memory_paused = True
    namespace.save(update_fields=["memory_paused"])

    assert decay(NOW).count == 0
    assert _status(entry) == MemoryStatus.ACTIVE


# TTL and validity windows ---------------------------------------------------------------------


def test_it_expires_an_episodic_entry_after_90_days_but_not_a_semantic_one(owner):
    _active_daily(owner)
    old_episode = _entry(owner, "Went to the dentist", type="episodic", days_old=91, importance=1)
    new_episode = _entry(owner, "Went to the cinema", type="episodic", days_old=89, importance=1)
    old_fact = _entry(owner, "Lives in Berlin", days_old=400, importance=1, access_count=100)
    pinned_episode = _entry(owner, "Had anaphylaxis", type="episodic", days_old=400, pinned=True)

    report = expire_ttl(NOW)

    assert _ids(report) == {old_episode.pk}
    assert _status(old_episode) == MemoryStatus.EXPIRED
    for kept in (new_episode, old_fact, pinned_episode):
        assert _status(kept) == MemoryStatus.ACTIVE
    event = MemoryEvent.objects.get(entry=old_episode, action="expired")
    assert event.actor_kind == "job"
    assert "90 days" in event.reason
    assert event.data == {"status": "expired", "pass": "expire_ttl", "rule": "ttl", "ttl_days": 90}


def test_it_counts_the_ttl_from_when_an_old_event_was_learned(owner):
    # The event happened a year ago but was told to the assistant last week.
    told_late = _entry(owner, "Moved flats last year", type="episodic", days_old=7)
    MemoryEntry.objects.filter(pk=told_late.pk).update(valid_from=NOW - timedelta(days=365))

    assert expire_ttl(NOW).count == 0


def test_it_honours_an_explicit_expiry_date_and_a_configured_ttl(owner):
    _active_daily(owner)
    deadline = _entry(owner, "Parcel code 4711", expires_at=NOW - timedelta(minutes=1))
    fact = _entry(owner, "Uses a standing desk", days_old=40)

    with override_settings(MEMORY_TTL_DAYS={"semantic": 30}):
        report = expire_ttl(NOW)

    assert _ids(report) == {deadline.pk, fact.pk}
    assert MemoryEvent.objects.get(entry=deadline, action="expired").data["rule"] == "expires_at"


def test_it_expires_an_entry_whose_validity_window_ended(owner):
    ended = _entry(owner, "Works at Initech", days_old=300, valid_to=NOW - timedelta(days=1))
    ending_later = _entry(owner, "Works at Acme", days_old=1, valid_to=NOW + timedelta(days=1))
    open_ended = _entry(owner, "Lives in Berlin", days_old=1)

    report = expire_ended_windows(NOW)

    assert _ids(report) == {ended.pk}
    assert _status(ended) == MemoryStatus.EXPIRED
    assert ended.expired_at == NOW
    assert _status(ending_later) == _status(open_ended) == MemoryStatus.ACTIVE
    event = MemoryEvent.objects.get(entry=ended, action="expired")
    assert (event.actor_kind, event.data["status"]) == ("job", "expired")
    assert event.reason.startswith("validity window ended")


# Caps, dry runs, idempotency ------------------------------------------------------------------


@override_settings(FORGET_MAX_SHARE_PER_PASS=1.0)
def test_it_holds_the_cap_and_continues_on_the_next_pass(owner):
    _active_daily(owner)
    entries = [_entry(owner, f"Trivia number {i}", days_old=300 + i, importance=0) for i in range(12)]

    first = decay(NOW, max_changes=5)
    second = decay(NOW, max_changes=5)
    third = decay(NOW, max_changes=5)

    assert (first.count, second.count, third.count) == (5, 5, 2)
    assert first.capped and second.capped and not third.capped
    assert not _ids(first) & _ids(second)
    assert MemoryEntry.objects.filter(status=MemoryStatus.ARCHIVED).count() == 12
    # The weakest (oldest) go first.
    assert _ids(first) == {entry.pk for entry in entries[-5:]}


@override_settings(FORGET_MAX_SHARE_PER_PASS=1.0)
def test_it_uses_the_configured_cap_by_default(owner):
    _active_daily(owner)
    for i in range(4):
        _entry(owner, f"Trivia number {i}", days_old=300, importance=0)

    with override_settings(FORGET_MAX_CHANGES_PER_PASS=3):
        assert decay(NOW).count == 3


def test_a_dry_run_changes_nothing_and_reports_what_the_real_run_does(owner):
    _active_daily(owner)
    ended = _entry(owner, "Works at Initech", days_old=10, valid_to=NOW - timedelta(days=1))
    # Due for the TTL and decayed too: only the TTL pass may report it.
    episode = _entry(owner, "Went to a concert", type="episodic", days_old=300, importance=0)
    faded = _entry(owner, "Trivia", days_old=300, importance=0)
    _remember_at(owner, "I live in Berlin", at=NOW - timedelta(days=2))
    duplicate = _remember_at(owner, "I live in Berlin.", at=NOW - timedelta(days=1))
    events_before = MemoryEvent.objects.count()
    statuses_before = dict(MemoryEntry.objects.values_list("pk", "status"))

    dry = forget_all(NOW, dry_run=True)

    assert MemoryEvent.objects.count() == events_before
    assert dict(MemoryEntry.objects.values_list("pk", "status")) == statuses_before
    assert [_ids(report) for report in dry] == [{ended.pk}, {episode.pk}, {faded.pk}, {duplicate.pk}]

    real = forget_all(NOW)

    assert [report.changes for report in real] == [report.changes for report in dry]
    assert MemoryEvent.objects.count() == events_before + 5  # one each, two for the merge


def test_running_the_passes_twice_is_idempotent(owner):
    _active_daily(owner)
    _entry(owner, "Works at Initech", days_old=10, valid_to=NOW - timedelta(days=1))
    _entry(owner, "Went to a concert", type="episodic", days_old=100)
    _entry(owner, "Trivia", days_old=300, importance=0)
    _remember_at(owner, "I live in Berlin", at=NOW - timedelta(days=2))
    _remember_at(owner, "I live in Berlin.", at=NOW - timedelta(days=1))

    first = forget_all(NOW)
    events = MemoryEvent.objects.count()
    second = forget_all(NOW)

    assert [report.count for report in first] == [1, 1, 1, 1]
    assert [report.count for report in second] == [0, 0, 0, 0]
    assert MemoryEvent.objects.count() == events


# Consolidation --------------------------------------------------------------------------------


def test_it_merges_near_duplicates_into_the_older_entry(owner):
    now = timezone.now()
    keeper = _remember_at(owner, "I live in Berlin", at=now - timedelta(days=3))
    duplicate = _remember_at(owner, "I live in Berlin.", at=now - timedelta(days=1))
    MemoryEntry.objects.filter(pk=duplicate.pk).update(
        evidence_count=2, access_count=4, last_accessed_at=now - timedelta(hours=1)
    )
    MemoryEntry.objects.filter(pk=keeper.pk).update(evidence_count=2)  # a tie: the older one stays
    for conversation in ("c1", "c2"):
        MemoryEvidence.objects.create(
            entry=duplicate, source_kind=SourceKind.EXTRACTED, source_conversation=conversation
        )
    evidence = set(MemoryEvidence.objects.filter(entry__in=[keeper, duplicate]).values_list("pk", flat=True))
    unrelated = remember(owner, "I play the cello")

    report = consolidate(now)

    assert [(c.entry_id, c.action, c.into) for c in report.changes] == [(duplicate.pk, "merged", keeper.pk)]
    assert report.changes[0].score >= 0.92
    keeper.refresh_from_db()
    duplicate.refresh_from_db()
    assert keeper.status == MemoryStatus.ACTIVE
    assert keeper.valid_to is None
    assert (keeper.evidence_count, keeper.access_count) == (4, 4)
    assert keeper.last_accessed_at == now - timedelta(hours=1)
    assert set(MemoryEvidence.objects.filter(entry=keeper).values_list("pk", flat=True)) == evidence
    assert not MemoryEvidence.objects.filter(entry=duplicate).exists()
    assert duplicate.status == MemoryStatus.SUPERSEDED
    assert duplicate.superseded_by_id == keeper.pk
    assert duplicate.valid_to == duplicate.expired_at == now
    assert _status(unrelated) == MemoryStatus.ACTIVE

    superseded = MemoryEvent.objects.get(entry=duplicate, action="superseded")
    merged = MemoryEvent.objects.get(entry=keeper, action="merged")
    assert superseded.actor_kind == merged.actor_kind == "job"
    assert "similarity" in superseded.reason and str(keeper.pk) in superseded.reason
    assert superseded.data["superseded_by"] == str(keeper.pk)
    assert merged.data["merged_from"] == str(duplicate.pk)
    assert merged.data["evidence_count"] == 4
    assert "content" not in superseded.data and "content" not in merged.data


def test_it_keeps_the_entry_with_more_evidence(owner):
    now = timezone.now()
    older = _remember_at(owner, "I live in Berlin", at=now - timedelta(days=3))
    stronger = _remember_at(owner, "I live in Berlin.", at=now - timedelta(days=1))
    MemoryEntry.objects.filter(pk=stronger.pk).update(evidence_count=3)

    report = consolidate(now)

    assert [(c.entry_id, c.into) for c in report.changes] == [(older.pk, stronger.pk)]
    stronger.refresh_from_db()
    assert stronger.evidence_count == 4


def test_it_never_merges_across_namespaces(owner, other_user):
    now = timezone.now()
    mine = remember(owner, "I live in Berlin")
    theirs = remember(other_user, "I live in Berlin")

    assert consolidate(now).count == 0
    assert _status(mine) == _status(theirs) == MemoryStatus.ACTIVE


def test_it_never_merges_a_statement_with_its_negation(owner):
    # MiniLM puts these two 0.97 apart: only the negation check keeps them apart.
    allergic = remember(owner, "I am allergic to peanuts")
    not_allergic = remember(owner, "I am not allergic to peanuts")
    # Not even with the similarity threshold at zero.
    assert forgetting._find_merges(threshold=0.0, cap=10) == []
    assert consolidate(timezone.now()).count == 0
    assert _status(allergic) == _status(not_allergic) == MemoryStatus.ACTIVE


def test_it_never_merges_statements_with_different_numbers(owner):
    remember(owner, "I have 2 children")
    remember(owner, "I have 3 children")

    assert forgetting._find_merges(threshold=0.0, cap=10) == []


def test_it_merges_a_pinned_entry_only_with_the_same_wording_and_keeps_it(owner):
    now = timezone.now()
    older = _remember_at(owner, "I am allergic to peanuts!", at=now - timedelta(days=3))
    pinned = _remember_at(owner, "I am allergic to peanuts", at=now - timedelta(days=1), pinned=True)
    reworded = remember(owner, "I'm allergic to peanuts", pinned=True)

    report = consolidate(now)

    assert [(c.entry_id, c.into) for c in report.changes] == [(older.pk, pinned.pk)]
    assert _status(pinned) == _status(reworded) == MemoryStatus.ACTIVE


def test_it_keeps_episodes_on_different_days_apart(owner):
    now = timezone.now()
    _remember_at(owner, "I went to the dentist", type="episodic", at=now - timedelta(days=30))
    _remember_at(owner, "I went to the dentist.", type="episodic", at=now - timedelta(days=2))

    assert consolidate(now).count == 0


# Command, task, schedule ----------------------------------------------------------------------


def test_the_command_dry_run_prints_what_it_would_do(owner):
    _active_daily(owner)
    faded = _entry(owner, "Trivia", days_old=300, importance=0)
    events_before = MemoryEvent.objects.count()
    out = StringIO()

    call_command("forget", "--dry-run", "--now", NOW.isoformat(), stdout=out)

    text = out.getvalue()
    assert "Dry run" in text
    assert "Decay: would archive 1 entry:" in text
    assert f"  {faded.pk}  retention 0.0" in text
    assert "Would change 1 entry" in text
    assert _status(faded) == MemoryStatus.ACTIVE
    assert MemoryEvent.objects.count() == events_before


def test_the_command_changes_and_counts(owner):
    _active_daily(owner, now=timezone.now())
    now = timezone.now()
    faded = _entry(owner, "Trivia", days_old=300, importance=0, now=now)
    ended = _entry(owner, "Works at Initech", days_old=10, valid_to=now - timedelta(days=1), now=now)
    out = StringIO()

    call_command("forget", "--max-changes", "10", stdout=out)

    text = out.getvalue()
    assert "Decay: archived 1 entry:" in text
    assert "Closed validity windows: expired 1 entry:" in text
    assert "Changed 2 entries" in text
    assert _status(faded) == MemoryStatus.ARCHIVED
    assert _status(ended) == MemoryStatus.EXPIRED


def test_the_command_refuses_a_future_now_without_dry_run(owner):
    faded = _entry(owner, "Trivia", days_old=300, importance=0)

    with pytest.raises(CommandError):
        call_command("forget", "--now", "2999-01-01", stdout=StringIO())
    assert _status(faded) == MemoryStatus.ACTIVE


def test_the_task_runs_every_pass_and_returns_counts(owner):
    _active_daily(owner, now=timezone.now())
    _entry(owner, "Trivia", days_old=300, importance=0, now=timezone.now())

    assert run_forgetting() == {
        "expire_ended_windows": 0,
        "expire_ttl": 0,
        "decay": 1,
        "consolidate": 0,
        "recall_log_pruned": 0,
        "graph_changes_pruned": 0,
    }


def test_the_forgetting_schedule_is_registered():
    assert ("memory-forgetting", "memory_core.tasks.run_forgetting", 60) in SCHEDULES
    install_schedules(SCHEDULES)
    assert Schedule.objects.get(name="memory-forgetting").func == "memory_core.tasks.run_forgetting"


@pytest.mark.django_db(transaction=True)
def test_it_skips_a_namespace_being_written_and_takes_it_on_the_next_run(owner):
    _active_daily(owner)
    entry = _entry(owner, "Trivia", days_old=300, importance=0)
    locked, release = threading.Event(), threading.Event()

    def writer() -> None:
        # What memory_add does while it decides: hold the namespace's row lock.
        try:
            with transaction.atomic():
                Namespace.objects.select_for_update().filter(pk=entry.namespace_id).first()
                locked.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert locked.wait(10)
        assert decay(NOW).count == 0
        assert _status(entry) == MemoryStatus.ACTIVE
    finally:
        release.set()
        thread.join()

    assert _ids(decay(NOW)) == {entry.pk}
