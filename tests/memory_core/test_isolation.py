"""Namespace isolation through the public selectors: owner / other user / anonymous."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from memory_core.embeddings import get_embedder
from memory_core.errors import NotFound
from memory_core.models import MemoryEntry, MemoryStatus, NamespaceGrant
from memory_core.selectors import (
    memory_access,
    memory_entries_by_ids,
    memory_history,
    memory_list,
    memory_nearest,
)
from memory_core.services import EntryDraft, memory_create, namespace_create
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def test_it_lists_only_the_owners_entries(owner, other_user):
    mine = remember(owner, "I am severely allergic to peanuts")
    remember(other_user, "I play the cello")

    assert list(memory_list(actor=owner)) == [mine]
    assert [e.content for e in memory_list(actor=other_user)] == ["I play the cello"]
    assert MemoryEntry.objects.visible_to(other_user).filter(pk=mine.pk).count() == 0


def test_it_shows_nothing_to_anonymous(owner):
    remember(owner, "I live in Berlin")
    assert memory_list(actor=AnonymousUser()).count() == 0
    assert memory_list(actor=None).count() == 0


def test_it_answers_not_found_alike_for_missing_and_someone_elses(owner, other_user):
    secret = remember(owner, "My bank is Monzo")

    with pytest.raises(NotFound) as theirs:
        memory_access(actor=other_user, memory_id=secret.pk)
    with pytest.raises(NotFound) as missing:
        memory_access(actor=other_user, memory_id=uuid.uuid4())
    with pytest.raises(NotFound) as garbage:
        memory_access(actor=other_user, memory_id="../../etc/passwd")
    assert str(theirs.value) == str(missing.value) == str(garbage.value)
    with pytest.raises(NotFound):
        memory_history(actor=other_user, memory_id=secret.pk)
    assert memory_access(actor=owner, memory_id=str(secret.pk)) == secret


def test_it_never_recalls_another_users_entry_even_when_it_is_the_nearest(owner, other_user):
    allergy = remember(owner, "I am severely allergic to peanuts")
    remember(other_user, "I enjoy hiking in the Alps")
    query = get_embedder().embed_query("peanut allergy")

    hits = memory_nearest(actor=other_user, embedding=list(allergy.embedding), limit=10)
    assert allergy.pk not in {entry.pk for entry, _ in hits}
    assert [entry.content for entry, _ in hits] == ["I enjoy hiking in the Alps"]
    # The owner, asking the same thing, gets their entry first.
    assert memory_nearest(actor=owner, embedding=query, limit=1)[0][0] == allergy


def test_it_shares_only_approved_procedures_of_granted_namespaces(owner, other_user, operator):
    agent = namespace_create(path="agent/support", kind="agent")
    NamespaceGrant.objects.create(namespace=agent, user=owner)
    sop = memory_create(
        namespace=agent,
        draft=EntryDraft(content="Refunds above 100 EUR need a second approver", type="procedural"),
    )
    fact = memory_create(
        namespace=agent, draft=EntryDraft(content="The support agent runs on weekdays", type="semantic")
    )

    # Pending review: nobody's assistant sees it yet.
    assert not memory_list(actor=owner).filter(pk=sop.pk).exists()
    sop.status = MemoryStatus.ACTIVE
    sop.approved_at = timezone.now()
    sop.approved_by = operator
    sop.save()

    visible = set(memory_list(actor=owner).values_list("pk", flat=True))
    assert sop.pk in visible
    assert fact.pk not in visible
    assert not memory_list(actor=other_user).filter(pk=sop.pk).exists()


def test_entries_by_ids_come_back_in_the_order_asked_and_only_the_actors(owner, other_user):
    """mem0's add event, the chat's notices and the activity page list what a job stored in the
    order it stored it (a held rule before the condition kept from it); the database's own order
    is no promise, so every order asked is the order answered."""
    mine = [remember(owner, f"I keep bees in hive number {n}") for n in range(6)]
    theirs = remember(other_user, "I keep bees too")
    for order in ([5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 4, 3], [3, 3, 1]):
        ids = [str(mine[n].pk) for n in order]
        found = memory_entries_by_ids(actor=owner, ids=[*ids, str(theirs.pk), "not-an-id"])
        assert list(found) == list(dict.fromkeys(ids)), order
        assert [e.content for e in found.values()] == [mine[n].content for n in dict.fromkeys(order)]
