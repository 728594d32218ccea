"""Two requests on one user's people at the same moment (a barrier releases both together): the
namespace lock serialises them, the loser gets a clean 404 (its entity is gone), never a 500, and
nothing is half-merged or brought back."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections

from api.services import user_token_issue
from memory_core.entities.models import Entity, EntityMention
from tests.api.conftest import client_with

pytestmark = pytest.mark.django_db(transaction=True)


def at_once(*calls: Any) -> list[int]:
    start = threading.Barrier(len(calls), timeout=30)
    statuses: list[int] = [0] * len(calls)

    def run(i: int, call: Any) -> None:
        try:
            start.wait()
            statuses[i] = call().status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return statuses


def people(client: Any) -> dict[str, str]:
    return {e["name"]: e["id"] for e in client.get("/api/v1/entities/").json()["results"]}


@pytest.fixture
def two(owner) -> tuple[Any, Any, str, str]:
    token = user_token_issue(user=owner).key
    a, b = client_with(token), client_with(token)
    for text in ("My friend Bea likes green tea.", "My colleague Beatrice plays chess."):
        assert a.post("/api/v1/memories/", {"content": text}, format="json").status_code == 201
    found = people(a)
    return a, b, found["Bea"], found["Beatrice"]


def test_two_merges_of_the_same_pair_in_opposite_directions(two):
    a, b, bea, beatrice = two
    statuses = at_once(
        lambda: a.post(f"/api/v1/entities/{bea}/merge/", {"into": beatrice}, format="json"),
        lambda: b.post(f"/api/v1/entities/{beatrice}/merge/", {"into": bea}, format="json"),
    )
    assert sorted(statuses) == [200, 404], statuses
    [left] = Entity.objects.filter(is_self=False)
    assert EntityMention.objects.filter(entity=left).values("entry").distinct().count() == 2


def test_a_correction_racing_an_erasure_does_not_bring_the_entity_back(two):
    a, b, bea, _beatrice = two
    statuses = at_once(
        lambda: a.delete(f"/api/v1/entities/{bea}/"),
        lambda: b.patch(f"/api/v1/entities/{bea}/", {"name": "Bea Silva"}, format="json"),
    )
    assert statuses[0] == 200 and statuses[1] in (200, 404), statuses
    assert not Entity.objects.filter(pk=bea).exists()
    assert set(people(a)) == {"Beatrice"}
