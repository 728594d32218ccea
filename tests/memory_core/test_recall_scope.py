"""What a recall may read, written as SQL (`memory_core.recall.scope`), selects exactly what the
querysets that define it select (`visible_to`, `in_namespaces`, `current`), case by case; and what
a user sees through recall follows from it (own memories, approved shared procedures, pause)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from memory_core.models import MemoryEntry, Namespace, NamespaceGrant, SourceKind
from memory_core.recall import memory_recall
from memory_core.recall import scope as recall_scope
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db

NOW = timezone.now()
DAY = timedelta(days=1)


def _entry(namespace: Namespace, content: str, **fields) -> MemoryEntry:
    values = {
        "type": "semantic",
        "status": "active",
        "source_kind": SourceKind.API_IMPORT,
        "valid_from": NOW - 100 * DAY,
        "recorded_at": NOW - 100 * DAY,
    }
    values.update(fields)
    if values["type"] == "procedural" and values["status"] != "pending_review":
        values.setdefault("approved_at", NOW - 100 * DAY)  # an active procedure was approved
    return MemoryEntry.objects.create(namespace=namespace, content=content, **values)


@pytest.fixture
def world(owner, other_user):
    """The owner's namespace with entries in every state, shared namespaces of every kind."""
    own = namespace_for_user(user=owner)
    _entry(own, "holds now")
    _entry(own, "replaced 10 days ago", status="superseded", valid_to=NOW - 10 * DAY)
    _entry(own, "ran out of time", status="expired", valid_to=NOW - 5 * DAY)
    _entry(own, "its TTL passed", expires_at=NOW - DAY)
    _entry(own, "its TTL is ahead", expires_at=NOW + 30 * DAY)
    _entry(own, "valid from next week", valid_from=NOW + 7 * DAY)
    _entry(own, "recorded 50 days ago", valid_from=NOW - 50 * DAY)
    _entry(own, "an own procedure", type="procedural")
    _entry(own, "an own procedure under review", type="procedural", status="pending_review")
    _entry(own, "hidden by the owner", status="hidden")
    _entry(own, "an episode", type="episodic")

    org = Namespace.objects.create(path="org/acme", kind="org")
    NamespaceGrant.objects.create(namespace=org, user=owner)
    _entry(org, "an approved org procedure", type="procedural")
    _entry(org, "an org procedure under review", type="procedural", status="pending_review")
    _entry(org, "an org fact", type="semantic")
    _entry(org, "a retired org procedure", type="procedural", status="superseded", valid_to=NOW - 3 * DAY)

    paused_agent = Namespace.objects.create(path="agent/paused", kind="agent", memory_paused=True)
    NamespaceGrant.objects.create(namespace=paused_agent, user=owner)
    _entry(paused_agent, "a procedure of a paused agent", type="procedural")

    # A grant on another person's own namespace shares nothing: only org and agent namespaces share.
    theirs = namespace_for_user(user=other_user)
    NamespaceGrant.objects.create(namespace=theirs, user=owner)
    _entry(theirs, "someone else's procedure", type="procedural")

    ungranted = Namespace.objects.create(path="org/other", kind="org")
    _entry(ungranted, "a procedure of an org never granted", type="procedural")
    return {"own": own, "org": org, "paused": paused_agent, "theirs": theirs, "ungranted": ungranted}


def _selected(where: tuple[str, list]) -> set[str]:
    sql, params = where
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT content FROM {recall_scope.ENTRY_TABLE} WHERE {sql}", params)  # noqa: S608
        return {row[0] for row in cursor.fetchall()}


def _reference(actor, at, types) -> set[str]:
    """The querysets' answer: visible to the actor, in the namespaces not paused, current at `at`."""
    readable = Namespace.objects.filter(memory_paused=False)
    ids = list(
        (readable.owned_by(actor) | readable.shared_with(actor)).values_list("pk", flat=True).distinct()
    )
    scope = MemoryEntry.objects.visible_to(actor).in_namespaces(ids).current(at=at)
    if types:
        scope = scope.filter(type__in=types)
    return set(scope.values_list("content", flat=True))


@pytest.mark.parametrize("at_days", [None, -7, -20, -60, -120, 3])
@pytest.mark.parametrize("types", [None, ["procedural"], ["semantic", "episodic"]])
def test_an_actors_scope_selects_what_the_querysets_select(world, owner, at_days, types):
    at = None if at_days is None else NOW + at_days * DAY

    scope = recall_scope.read(actor=owner)
    ours = _selected(scope.where(at=at, types=types))

    assert ours == _reference(owner, at, types)
    assert ours == set(scope.queryset(at=at, types=types).values_list("content", flat=True))
    if at_days in (None, -7, 3) and types != ["semantic", "episodic"]:
        assert "an approved org procedure" in ours  # the cases are not vacuous
    assert not ours & {"a procedure of a paused agent", "someone else's procedure", "an org fact"}


@pytest.mark.parametrize("at_days", [None, -7, -60])
def test_named_namespaces_are_read_whole_and_paused_ones_not_at_all(world, at_days):
    at = None if at_days is None else NOW + at_days * DAY
    named = [world["own"], world["org"], world["paused"]]

    scope = recall_scope.read(namespaces=named)
    ours = _selected(scope.where(at=at))

    assert sorted(scope.namespace_ids) == sorted([world["own"].pk, world["org"].pk])
    assert ours == set(MemoryEntry.objects.in_namespaces(scope.namespace_ids).current(at=at).values_list(
        "content", flat=True
    ))
    assert "an org fact" in ours  # a trusted caller's namespace is read whole, not procedures only


def test_an_owner_who_paused_memory_gets_nothing_not_even_shared_procedures(world, owner):
    Namespace.objects.filter(pk=world["own"].pk).update(memory_paused=True)

    scope = recall_scope.read(actor=owner, terms_of="procedure")
    recalled = memory_recall(actor=owner, query="which procedure applies?", record=False)

    assert scope.namespace_ids == []
    assert recalled.items == []


def test_what_a_user_recalls_is_their_own_and_approved_shared_procedures(world, owner):
    visible = _reference(owner, None, None)
    hidden = {
        "an org procedure under review", "an org fact", "a procedure of a paused agent",
        "someone else's procedure", "a procedure of an org never granted", "its TTL passed",
        "hidden by the owner", "valid from next week", "replaced 10 days ago",
    }  # fmt: skip
    assert {"an approved org procedure", "an own procedure", "holds now"} <= visible
    assert not visible & hidden

    for content in sorted(visible | hidden):  # each asked for in its own words
        recalled = {i.entry.content for i in memory_recall(actor=owner, query=content, record=False).items}
        assert recalled <= visible, content
        assert (content in recalled) == (content in visible), content


def test_recall_needs_an_actor_or_namespaces_not_both(owner, world):
    from memory_core.errors import MemoryServiceError

    with pytest.raises(MemoryServiceError):
        recall_scope.read(actor=owner, namespaces=[world["own"]])
    with pytest.raises(MemoryServiceError):
        recall_scope.read()
