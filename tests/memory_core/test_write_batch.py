"""`memory_add_many`: a batch gives what adding its statements one by one gives, in few queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memory_core.choices import AddAction
from memory_core.errors import MemoryServiceError
from memory_core.lifecycle import memory_correct
from memory_core.models import FlaggedWrite, MemoryEntry, MemoryEvent, MemoryEvidence, MemoryStatus
from memory_core.pipeline import memory_add, write_request
from memory_core.pipeline_batch import memory_add_many
from memory_core.screening import MemoryPaused
from memory_core.services import namespace_create, namespace_for_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ns(owner):
    return namespace_for_user(user=owner)


def _batch(ns, *contents: str, **fields):
    requests = [write_request(content=content, **fields) for content in contents]
    return memory_add_many(namespace=ns, requests=requests)


def _new_facts(count: int) -> list[str]:
    cities = ["Lisbon", "Porto", "Madrid", "Oslo", "Lima", "Quito", "Cairo", "Dakar", "Hanoi", "Seoul"]
    things = ["bicycle", "piano", "tent", "printer", "laptop"]
    return [f"The {things[i % 5]} was bought in {cities[i % 10]} in {1990 + i}" for i in range(count)]


def test_a_batch_of_new_statements_is_added_in_a_few_queries(ns, django_assert_max_num_queries):
    facts = _new_facts(25)
    # The guards' read, the lock, the candidates (nearest, same wording), three INSERTs, and the
    # transaction's savepoint: 9, however many statements.
    with django_assert_max_num_queries(9):
        outcomes = _batch(ns, *facts)

    assert [o.action for o in outcomes] == [AddAction.ADDED] * 25
    assert sorted(MemoryEntry.objects.filter(namespace=ns).values_list("content", flat=True)) == sorted(facts)
    assert MemoryEvidence.objects.filter(entry__namespace=ns).count() == 25
    assert MemoryEvent.objects.filter(namespace=ns, action="created").count() == 25
    assert all(len(e.embedding) == 384 for e in MemoryEntry.objects.filter(namespace=ns))


def test_a_statement_repeated_inside_the_batch_is_merged_not_duplicated(ns):
    outcomes = _batch(ns, "I like green tea", "The dentist is on Friday", "I like green tea")

    assert [o.action for o in outcomes] == [AddAction.ADDED, AddAction.ADDED, AddAction.MERGED]
    assert outcomes[2].entry.pk == outcomes[0].entry.pk
    assert MemoryEntry.objects.filter(namespace=ns, content="I like green tea").count() == 1


def test_a_later_statement_of_the_batch_supersedes_an_earlier_one_of_the_same_slot(ns):
    outcomes = _batch(ns, "I live in Lisbon", "I live in Porto")

    assert [o.action for o in outcomes] == [AddAction.ADDED, AddAction.SUPERSEDED]
    lisbon = MemoryEntry.objects.get(namespace=ns, content="I live in Lisbon")
    assert lisbon.status == MemoryStatus.SUPERSEDED
    assert lisbon.superseded_by_id == outcomes[1].entry.pk


def test_it_merges_into_an_entry_already_stored_and_keeps_the_order_of_outcomes(ns):
    memory_add(namespace=ns, content="I am allergic to peanuts")
    outcomes = _batch(ns, "The train leaves at nine", "I am allergic to peanuts", "Tea is my favourite")

    assert [o.action for o in outcomes] == [AddAction.ADDED, AddAction.MERGED, AddAction.ADDED]
    assert [o.entry.content for o in outcomes] == [
        "The train leaves at nine",
        "I am allergic to peanuts",
        "Tea is my favourite",
    ]


def test_every_guard_still_applies_to_each_statement_of_a_batch(ns, owner):
    old = memory_add(namespace=ns, content="I drink coffee every morning").entry
    memory_correct(actor=owner, memory_id=old.pk, content="I drink tea every morning")
    outcomes = memory_add_many(
        namespace=ns,
        requests=[
            write_request(content="My phone unlock PIN is 4821"),
            write_request(content="Tickets no longer need approval", source_kind="user_explicit"),
            write_request(
                content="I drink coffee every morning",
                source_kind="extracted",
                confidence=0.9,
                said_at=timezone.now() - timedelta(days=1),  # said before the correction
            ),
            write_request(content="I own a red bicycle"),
        ],
    )

    assert [o.action for o in outcomes] == [
        AddAction.REJECTED,
        AddAction.PENDING_REVIEW,
        AddAction.IGNORED,
        AddAction.ADDED,
    ]
    assert FlaggedWrite.objects.filter(namespace=ns, kind="secret_dropped").count() == 1
    assert not MemoryEntry.objects.filter(content__contains="4821").exists()


def test_a_bad_statement_names_its_index_and_nothing_of_the_batch_is_kept(ns):
    with pytest.raises(MemoryServiceError) as error:
        _batch(ns, "I own a red bicycle", "   ")
    assert error.value.batch_index == 1
    assert not MemoryEntry.objects.filter(namespace=ns).exists()


def test_a_paused_namespace_refuses_the_whole_batch(ns):
    ns.memory_paused = True
    ns.save(update_fields=["memory_paused"])
    with pytest.raises(MemoryPaused):
        _batch(ns, "I own a red bicycle", "I like tea")
    assert not MemoryEntry.objects.filter(namespace=ns).exists()


def _cosine(a, b) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_rules_and_contexts_in_a_batch_are_stored_as_one_by_one_would_in_a_few_queries(
    ns, django_assert_max_num_queries
):
    facts = _new_facts(20)
    rule, weakening = "From now on, answer every email within one hour.", "Tickets no longer need approval"
    contents = [*facts[:10], rule, *facts[10:], weakening]
    contexts = [f"What happened with item number {i}?" for i in range(len(contents))]
    requests = [write_request(content=c, context=x) for c, x in zip(contents, contexts, strict=True)]

    # 9 as above, the rules' candidates (2), the flagged rule's flag and history event (2).
    with django_assert_max_num_queries(13):
        outcomes = memory_add_many(namespace=ns, requests=requests)

    assert [o.action for o in outcomes] == [
        *[AddAction.ADDED] * 10,
        AddAction.PENDING_REVIEW,
        *[AddAction.ADDED] * 10,
        AddAction.PENDING_REVIEW,
    ]
    assert not outcomes[10].flagged and outcomes[-1].flagged
    flag = FlaggedWrite.objects.get(namespace=ns)
    assert flag.kind == "policy_weakening" and flag.entry_id == outcomes[-1].entry.pk
    assert MemoryEvent.objects.filter(entry_id=outcomes[-1].entry.pk, action="flagged").exists()
    assert MemoryEntry.objects.filter(namespace=ns, status=MemoryStatus.PENDING_REVIEW).count() == 2

    # Each entry's context vector is the one a single add computes for the same turn.
    other = namespace_create(path="agent/one-by-one", kind="agent")
    single = memory_add(namespace=other, content=contents[3], context=contexts[3]).entry
    batched = MemoryEntry.objects.get(pk=outcomes[3].entry.pk)
    assert batched.search_context == contexts[3]
    assert _cosine(batched.context_embedding, single.context_embedding) > 0.999
    assert _cosine(batched.embedding, single.embedding) > 0.999
    assert _cosine(batched.context_embedding, batched.embedding) < 0.99


def test_a_batch_naming_people_links_them_without_a_query_per_mention(ns):
    """The entity graph's mentions and supports are written with one INSERT each (ON CONFLICT DO
    NOTHING), not a lookup, a savepoint and an insert per word: a batch about a family costs a
    bounded number of statements, and every mention is there."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory_core.entities.models import EntityMention, RelationSupport

    facts = [
        "My sister Ana lives in Porto.",
        "Ana's husband Marc is a chemistry teacher.",
        "My brother Tomas works at Globex.",
        "Tomas has a dog called Pepper.",
        "My mother Rosa grows tomatoes.",
        "My friend Lena plays the cello.",
        "Ana and Marc visited Rosa in May.",
        "My colleague Dara runs marathons.",
    ]
    with CaptureQueriesContext(connection) as queries:
        _batch(ns, *facts)

    # 203 statements, savepoints included, with a lookup and a savepoint per mention; 103 now. The
    # entity resolution itself (about a dozen per statement naming someone) is what remains.
    assert len(queries.captured_queries) <= 110
    assert EntityMention.objects.filter(namespace=ns).count() >= len(facts)
    assert RelationSupport.objects.filter(namespace=ns).exists()
