"""Archiving needs a reason: within its budget an active namespace keeps everything but the clearly
negligible; over its budget the least valuable go first, and what questions recalled goes last."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings

from memory_core.forgetting import decay, decay_score
from memory_core.models import ActiveDay, MemoryEntry, MemoryEvent, MemoryStatus, Namespace
from memory_core.services import namespace_for_user
from tests.memory_core.helpers import FORGETTING_NOW, backdated

pytestmark = pytest.mark.django_db

NOW = FORGETTING_NOW


def _entry(user: Any, content: str, *, days_old: float, **fields: Any) -> MemoryEntry:
    return backdated(user, content, days_old=days_old, **{"type": "episodic", **fields})


def _active_daily(user: Any, days: int = 800) -> None:
    """The user used their memory every day: their clock runs like the calendar."""
    namespace = namespace_for_user(user=user)
    ActiveDay.objects.bulk_create(
        [ActiveDay(namespace=namespace, day=NOW.date() - timedelta(days=n)) for n in range(days)],
        ignore_conflicts=True,
    )


def _statuses(*entries: MemoryEntry) -> list[str]:
    return [MemoryEntry.objects.get(pk=entry.pk).status for entry in entries]


@override_settings(FORGET_MAX_SHARE_PER_PASS=1.0)
def test_within_its_budget_an_active_namespace_loses_only_the_clearly_negligible(owner):
    _active_daily(owner)
    Namespace.objects.filter(pk=namespace_for_user(user=owner).pk).update(memory_capacity=100)
    # All faded far below the threshold after 400 days of daily use; only one is negligible.
    negligible = _entry(owner, "Mentioned a podcast once", days_old=400, importance=0.1)
    fact = _entry(owner, "Works at Acme", days_old=400, type="semantic", importance=0.1)
    default_importance = _entry(owner, "Went to Lisbon for the wedding", days_old=400)
    recalled = _entry(
        owner,
        "Ran a half marathon",
        days_old=400,
        importance=0.1,
        access_count=1,
        last_accessed_at=NOW - timedelta(days=300),
    )
    confirmed = _entry(owner, "Tried pottery", days_old=400, importance=0.1, evidence_count=2)
    with override_settings(FORGET_DECAY_MIN_IDLE_DAYS=500):
        assert decay(NOW).count == 0  # not idle long enough yet
    for entry in (negligible, fact, default_importance, recalled, confirmed):
        assert decay_score(entry, NOW) < 0.05

    report = decay(NOW)

    assert [(change.entry_id, change.rule) for change in report.changes] == [(negligible.pk, "decayed")]
    assert _statuses(fact, default_importance, recalled, confirmed) == [MemoryStatus.ACTIVE] * 4
    assert MemoryEvent.objects.get(entry=negligible, action="archived").data["rule"] == "decayed"


@override_settings(FORGET_MAX_SHARE_PER_PASS=1.0)
def test_over_budget_never_recalled_entries_go_first_lowest_value_first(owner):
    _active_daily(owner)
    namespace = namespace_for_user(user=owner)
    # Recalled once, long ago: the lowest retention of all, yet a question needed it.
    recalled = _entry(
        owner,
        "Ran a half marathon",
        days_old=350,
        importance=0.1,
        access_count=1,
        last_accessed_at=NOW - timedelta(days=300),
    )
    older = _entry(owner, "Had pasta for lunch", days_old=60)
    trivial = _entry(owner, "Watched a film on a Tuesday", days_old=20, importance=0.1)
    new = _entry(owner, "Bought a new lamp", days_old=2)
    important = _entry(owner, "Signed the lease on the flat", days_old=60, importance=0.9)
    assert decay_score(recalled, NOW) < decay_score(older, NOW) < decay_score(trivial, NOW)
    assert decay_score(trivial, NOW) < decay_score(important, NOW) < decay_score(new, NOW)
    Namespace.objects.filter(pk=namespace.pk).update(memory_capacity=3)

    report = decay(NOW)

    # 5 active, budget 3: two go, the never-recalled ones of least retention.
    assert [(change.entry_id, change.rule) for change in report.changes] == [
        (older.pk, "capacity"),
        (trivial.pk, "capacity"),
    ]
    assert _statuses(recalled, new, important) == [MemoryStatus.ACTIVE] * 3

    # Tighter still: once nothing never-recalled is left but the strongest, value decides again.
    Namespace.objects.filter(pk=namespace.pk).update(memory_capacity=1)
    assert [change.entry_id for change in decay(NOW).changes] == [important.pk, new.pk]
    assert _statuses(recalled) == [MemoryStatus.ACTIVE]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("FORGET_DECAY_TYPES", ["episodic", "memories"]),
        ("FORGET_DECAY_MAX_IMPORTANCE", 1.5),
        ("FORGET_DECAY_MIN_IDLE_DAYS", -1),
    ],
)
def test_a_bad_decay_setting_is_refused_clearly_and_archives_nothing(owner, name, value):
    _active_daily(owner)
    entry = _entry(owner, "Mentioned a podcast once", days_old=400, importance=0.1)

    with override_settings(**{name: value}), pytest.raises(ValueError, match=name):
        decay(NOW)

    assert _statuses(entry) == [MemoryStatus.ACTIVE]
