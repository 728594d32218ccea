"""Recall's neighbours: the turns said next to the best hits, taken from the caller's scope only."""

from __future__ import annotations

import pytest

from memory_core.choices import ActorKind
from memory_core.models import MemoryEntry, MemoryStatus, Namespace, SourceKind
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall

pytestmark = pytest.mark.django_db

TURNS = [
    "I spent the whole weekend in the workshop.",
    "I finally finished the stained glass window!",
    "Wow, the colours are amazing. Where is it going?",
    "It was made for a local church, to show time changing our lives.",
]
QUERY = "What was made for the local church?"


def _conversation(path: str, *, turn: bool = True) -> Namespace:
    """`TURNS` added one per call, as turns of a conversation or (`turn=False`) as statements."""
    namespace = Namespace.objects.create(path=path, kind="agent")
    for text in TURNS:
        memory_add(
            namespace=namespace,
            content=text,
            source_kind=SourceKind.API_IMPORT,
            actor_kind=ActorKind.API,
            exact=True,
            turn=turn,
        )
    return namespace


def _lifted(namespace: Namespace) -> dict[str, float]:
    result = memory_recall(namespaces=[namespace], query=QUERY, record=False)
    return {item.entry.content: item.breakdown["neighbour"] for item in result.items}


def test_the_two_turns_before_the_best_hit_are_lifted():
    lifted = _lifted(_conversation("agent/neighbours"))

    # Both within two turns of the best hit: its score. The first is three turns from it, and
    # gets only the score of a lesser hit it is next to.
    assert lifted[TURNS[1]] == lifted[TURNS[2]] > 0
    assert lifted[TURNS[0]] < lifted[TURNS[1]]


def test_a_turn_out_of_scope_is_skipped_and_the_next_one_in_scope_taken():
    namespace = _conversation("agent/neighbours")
    MemoryEntry.objects.filter(namespace=namespace, content=TURNS[1]).update(status=MemoryStatus.ARCHIVED)

    lifted = _lifted(namespace)

    assert TURNS[1] not in lifted
    # Now two turns before the best hit among what recall may return: lifted by it.
    assert lifted[TURNS[0]] == lifted[TURNS[2]] > 0


def test_statements_that_are_not_turns_lift_nothing():
    namespace = _conversation("agent/facts", turn=False)

    result = memory_recall(namespaces=[namespace], query=QUERY, record=False)

    assert all(item.breakdown["neighbour"] == 0 for item in result.items)
    assert result.scanned["neighbour"] == 0
