"""A queryset compiled once per shape (`memory_core.prepared`) sends the ORM's statement with each
call's values and reads back what the ORM reads; a queryset that depends on anything but its
arguments is refused rather than frozen."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.models import Value
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pgvector import Vector

from memory_core import prepared, reconciliation
from memory_core.embeddings import get_embedder
from memory_core.lifecycle import memory_correct, memory_hide
from memory_core.models import MemoryEntry, Namespace
from memory_core.pipeline import memory_add
from memory_core.reading.slots import related_slot_keys
from memory_core.services import namespace_for_user
from memory_core.write_request import WriteRequest

pytestmark = pytest.mark.django_db


def _entries(namespace_id: int, at, words: tuple[str, ...]):
    return (
        MemoryEntry.objects.in_namespaces([namespace_id])
        .current(at=at)
        .filter(content__in=words)
        .annotate(mark=Value("found"))
        .order_by("content")
    )


def test_it_reads_what_the_orm_reads_with_each_calls_values(owner):
    namespace = namespace_for_user(user=owner)
    for content in ("The user plays the cello", "The user lives in Leeds", "The user owns a cat"):
        memory_add(namespace=namespace, content=content)
    asked = (("The user plays the cello", "The user owns a cat"), ("The user lives in Leeds", "nothing"))
    for words in asked:
        now = timezone.now()
        found = prepared.run("test entries", _entries, [namespace.pk, now, words])
        expected = list(_entries(namespace.pk, None, words))
        assert [(e.pk, e.content, e.embedding, e.metadata, e.valid_from) for e in found] == [
            (e.pk, e.content, e.embedding, e.metadata, e.valid_from) for e in expected
        ]
        assert [e.mark for e in found] == ["found"] * len(expected)  # type: ignore[attr-defined]
        assert all(not e._state.adding and e._state.db == "default" for e in found)
    # The instant is a value like the others: before the entries were written, none held.
    past = prepared.run("test entries", _entries, [namespace.pk, now - timedelta(days=1), words])
    assert past == []


def test_it_sends_one_statement_the_orms_own(owner):
    namespace = namespace_for_user(user=owner)
    words = ("a", "b")
    prepared.run("test statement", _entries, [namespace.pk, timezone.now(), words])
    with CaptureQueriesContext(connection) as captured:
        prepared.run("test statement", _entries, [namespace.pk, timezone.now(), words])
    [query] = captured.captured_queries
    assert query["sql"].startswith('SELECT "memory_core_memoryentry"."id"')
    assert "'found' AS \"mark\"" in query["sql"]


def test_a_queryset_that_reads_the_clock_itself_is_refused(owner):
    namespace = namespace_for_user(user=owner)

    def reads_the_clock(namespace_id: int):
        return MemoryEntry.objects.in_namespaces([namespace_id]).current()

    with pytest.raises(ValueError, match="not one of its arguments"):
        prepared.run("test clock", reads_the_clock, [namespace.pk])


def test_a_value_transformed_before_the_statement_is_refused(owner):
    namespace = namespace_for_user(user=owner)

    def upper_cased(namespace_id: int, content: str):
        return MemoryEntry.objects.filter(namespace_id=namespace_id, content=content.upper())

    with pytest.raises(ValueError, match="not one of its arguments"):
        prepared.run("test upper", upper_cased, [namespace.pk, "the user"])


@pytest.mark.django_db(transaction=True)
def test_a_lock_outside_a_transaction_is_refused_as_the_orm_refuses_it(owner):
    namespace = namespace_for_user(user=owner)

    def locked(namespace_id: int):
        return Namespace.objects.select_for_update().filter(pk=namespace_id)

    with transaction.atomic():
        assert prepared.run("test lock", locked, [namespace.pk]) == [namespace]
    with pytest.raises(TransactionManagementError):
        prepared.run("test lock", locked, [namespace.pk])
    with pytest.raises(TransactionManagementError):
        list(locked(namespace.pk))  # as the ORM itself


def test_a_writes_candidates_are_the_orms_for_every_role(owner):
    """`reconciliation.candidates` runs prepared: the nearest, the same wording (a hidden entry
    too), the key slot and the values corrected away, as its queryset reads them."""
    namespace = namespace_for_user(user=owner)
    lisbon = memory_add(namespace=namespace, content="The user lives in Lisbon.", key="location.home_city")
    memory_correct(actor=owner, memory_id=lisbon.entry.pk, content="The user lives in Lyon.")
    porto = memory_add(namespace=namespace, content="The user supports FC Porto.")
    memory_hide(actor=owner, memory_id=porto.entry.pk)
    memory_add(namespace=namespace, content="The user plays the cello.")
    memory_add(namespace=namespace, content="Always answer in French.", type="procedural")
    embedder = get_embedder()
    for content, type, key in [
        ("The user lives in Lisbon.", "semantic", "location.home_city"),
        ("The user supports FC Porto.", "semantic", ""),
        ("the user plays the cello.", "semantic", ""),
        ("Always answer in French.", "procedural", ""),
    ]:
        request = WriteRequest(content=content, type=type, key=key, embedding=embedder.embed([content])[0])
        with transaction.atomic():
            found = reconciliation.candidates(namespace.pk, request)
            keys = tuple(related_slot_keys(key)) if key and type != "procedural" else ()
            vector = Vector(request.embedding).to_text()
            rows = list(
                reconciliation._candidates(
                    type, type != "procedural", namespace.pk, None, vector, content, keys
                )
            )
        expected = {(e.pk, e.role, round(e.distance, 6), e.status, e.content) for e in rows}  # type: ignore[attr-defined]
        got = [*found.duplicates, *found.slots, *found.corrected]
        assert {(e.pk, e.role, round(e.distance, 6), e.status, e.content) for e in got} == expected  # type: ignore[attr-defined]
        assert len(got) == len(rows) > 0
