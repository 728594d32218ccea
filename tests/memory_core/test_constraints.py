"""Invariants are database constraints: bad rows are refused with a clear error, nothing half-written."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DataError, IntegrityError, transaction
from django.utils import timezone

from memory_core.errors import MemoryServiceError
from memory_core.models import MemoryEntry, MemoryEvent, Namespace
from memory_core.services import EntryDraft, memory_create, namespace_for_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ns(owner):
    return namespace_for_user(user=owner)


def _raw(ns: Namespace, **fields) -> MemoryEntry:
    values = {"namespace": ns, "type": "semantic", "source_kind": "api_import", "content": "I like tea"}
    values.update(fields)
    return MemoryEntry.objects.create(**values)


@pytest.mark.parametrize(
    ("fields", "constraint"),
    [
        ({"status": "forgotten"}, "memory_status_valid"),
        ({"type": "dream"}, "memory_type_valid"),
        ({"source_kind": "rumour"}, "memory_source_kind_valid"),
        ({"confidence": 1.5}, "memory_confidence_0_1"),
        ({"importance": -0.1}, "memory_importance_0_1"),
        ({"content": "   "}, "memory_content_not_blank"),
        ({"content": "x" * 2001}, "memory_content_max_length"),
        ({"valid_to": timezone.now() - timedelta(days=1)}, "memory_valid_window_ordered"),
        ({"type": "procedural", "status": "active"}, "memory_active_procedure_approved"),
        ({"embedding": [0.1] * 384}, "memory_embedding_has_model"),
    ],
)
def test_it_rejects_rows_that_break_an_invariant(ns, fields, constraint):
    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        _raw(ns, **fields)
    assert MemoryEntry.objects.count() == 0


def test_it_rejects_an_embedding_of_the_wrong_dimension(ns):
    with pytest.raises(DataError, match="expected 384 dimensions"), transaction.atomic():
        _raw(ns, embedding=[0.1] * 12, embedding_model="tiny")
    assert MemoryEntry.objects.count() == 0


def test_it_rejects_a_badly_formed_namespace_path(owner):
    with pytest.raises(IntegrityError, match="namespace_path_format"), transaction.atomic():
        Namespace.objects.create(path="user/../admin", kind="user", owner=owner)
    with pytest.raises(IntegrityError, match="namespace_user_has_owner"), transaction.atomic():
        Namespace.objects.create(path="user/nobody", kind="user")


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "y" * 2001}, "content"),
        ({"type": "dream"}, "type"),
        ({"confidence": 2}, "confidence"),
        ({"valid_to": timezone.now() - timedelta(days=3)}, "valid_to"),
    ],
)
def test_the_service_explains_bad_input_field_by_field(ns, fields, field):
    values = {"content": "I like tea", **fields}
    with pytest.raises(MemoryServiceError) as err:
        memory_create(namespace=ns, draft=EntryDraft(**values))
    assert field in err.value.field_errors
    assert MemoryEntry.objects.count() == 0
    assert MemoryEvent.objects.count() == 0


def test_a_failure_late_in_a_write_leaves_nothing_behind(ns):
    # The history row is refused (unknown actor kind) after the entry was inserted: both roll back.
    with pytest.raises(IntegrityError, match="event_actor_kind_valid"):
        memory_create(namespace=ns, draft=EntryDraft(content="I live in Lisbon", actor_kind="robot"))
    assert MemoryEntry.objects.count() == 0
    assert MemoryEvent.objects.count() == 0


def test_a_good_write_is_embedded_and_recorded(ns):
    entry = memory_create(namespace=ns, draft=EntryDraft(content="  I live in Lisbon  ", key="home_city"))
    entry.refresh_from_db()
    assert entry.content == "I live in Lisbon"
    assert len(entry.embedding) == 384
    assert entry.embedding_model == "all-MiniLM-L6-v2"
    assert entry.status == "active"
    event = MemoryEvent.objects.get(entry_ref=entry.pk)
    assert (event.action, event.data["content"]) == ("created", "I live in Lisbon")


def test_procedures_start_pending_review(ns):
    entry = memory_create(
        namespace=ns, draft=EntryDraft(content="Always answer in bullet points", type="procedural")
    )
    assert entry.status == "pending_review"
