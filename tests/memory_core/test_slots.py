"""Slot inference for statements added without a key: the labelled statements
(tests/data/extraction/slots.jsonl), the same key as the offline extractor for every fact it
states, and what that means for direct adds through the write pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.choices import AddAction
from memory_core.extraction import RuleBasedExtractor
from memory_core.extraction.slots import Slot, infer_slot
from memory_core.models import MemoryEntry, MemoryStatus
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

DATA = Path(__file__).resolve().parent.parent / "data" / "extraction"
STATEMENTS = [json.loads(line) for line in (DATA / "slots.jsonl").read_text(encoding="utf-8").splitlines()]
UTTERANCES = [
    json.loads(line) for line in (DATA / "utterances.jsonl").read_text(encoding="utf-8").splitlines()
]


def test_the_labelled_statements_include_the_conservative_cases():
    assert len(STATEMENTS) >= 120
    assert sum(row["key"] is None for row in STATEMENTS) >= 40


@pytest.mark.parametrize("row", STATEMENTS, ids=[row["statement"][:60] or row["note"] for row in STATEMENTS])
def test_it_infers_the_labelled_slot_or_none(row):
    slot = infer_slot(row["statement"])

    assert (slot.key if slot else None) == row["key"], row["note"]
    if slot is not None:
        assert slot.category == row["category"]


def _candidates() -> list:
    extractor = RuleBasedExtractor()
    return [
        candidate
        for row in UTTERANCES
        for candidate in extractor.extract(
            [{"id": "m1", "role": "user", "content": row["text"], "created_at": "2026-11-20T10:00:00+00:00"}]
        )
    ]


def test_a_written_statement_gets_the_key_the_extractor_gave_it():
    candidates = _candidates()
    keyed = [c for c in candidates if c.key]
    assert len(keyed) > 300

    mismatched = [(c.content, c.key, getattr(infer_slot(c.content), "key", None)) for c in keyed]
    assert [m for m in mismatched if m[1] != m[2]] == []


def test_an_event_or_a_remembered_note_gets_no_slot():
    unkeyed = [c for c in _candidates() if not c.key]
    assert unkeyed

    assert [(c.content, infer_slot(c.content)) for c in unkeyed if infer_slot(c.content) is not None] == []


def test_a_safety_slot_is_pinned_and_an_order_is_episodic():
    assert infer_slot("Allergic to shellfish") == Slot(
        key="health.allergy.shellfish", category="safety", type="semantic", pinned=True, importance=0.95
    )
    order = infer_slot("The user's order #88231 still hasn't arrived.")
    assert order is not None and (order.key, order.type, order.pinned) == ("order.88231", "episodic", False)


@pytest.mark.parametrize("bad", ["", "   ", "\n", "?"])
def test_nothing_to_read_gives_no_slot(bad):
    assert infer_slot(bad) is None


@pytest.fixture
def ns(owner):
    return namespace_for_user(user=owner)


def _current(ns) -> list[str]:
    return sorted(
        MemoryEntry.objects.filter(namespace=ns, status=MemoryStatus.ACTIVE).values_list("content", flat=True)
    )


def test_a_mem0_fragment_supersedes_the_old_employer(ns):
    old = memory_add(namespace=ns, content="Works at Contoso")
    new = memory_add(namespace=ns, content="Works at Fabrikam")

    assert new.action == AddAction.SUPERSEDED and new.replaced.pk == old.entry.pk
    assert _current(ns) == ["Works at Fabrikam"]


def test_a_role_does_not_replace_the_employer(ns):
    memory_add(namespace=ns, content="The user works at Contoso.")
    memory_add(namespace=ns, content="The user works as a nurse.")

    assert _current(ns) == ["The user works as a nurse.", "The user works at Contoso."]


def test_someone_elses_fact_never_replaces_the_users(ns):
    memory_add(namespace=ns, content="The user lives in Paris.")
    memory_add(namespace=ns, content="The user is allergic to peanuts.")
    memory_add(namespace=ns, content="My sister lives in Rome")
    memory_add(namespace=ns, content="Alice is allergic to peanuts.")

    assert _current(ns) == [
        "Alice is allergic to peanuts.",
        "My sister lives in Rome",
        "The user is allergic to peanuts.",
        "The user lives in Paris.",
    ]
    assert MemoryEntry.objects.get(content="My sister lives in Rome").key == "family.sister.home_city"
    assert MemoryEntry.objects.get(content="Alice is allergic to peanuts.").key == ""


def test_an_ended_allergy_supersedes_it_across_languages(ns):
    first = memory_add(namespace=ns, content="用户对花生过敏")
    later = memory_add(namespace=ns, content="The user is no longer allergic to peanuts.")

    assert first.entry.key == "health.allergy.peanut" and first.entry.pinned
    assert later.action == AddAction.SUPERSEDED and later.replaced.pk == first.entry.pk
