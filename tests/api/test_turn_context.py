"""A client storing a conversation one turn per call (mem0's add with `infer: false`, as mem0's
clients store chat) gets each turn read with the one before it, within a window: a bare answer is
found by what it answers. Facts added on their own (REST) are read alone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memory_core.models import MemoryEntry

pytestmark = pytest.mark.django_db

QUESTION = "Do you and Marco have any children yet?"
ANSWER = "Yes! Two of them, both still in nursery."


def _rest(client, content: str) -> dict:
    response = client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _mem0(client, content: str) -> None:
    body = {"messages": [{"role": "user", "content": content}], "user_id": "u1", "infer": False}
    assert client.post("/v3/memories/add/", body, format="json").status_code == 200


def _found(client, query: str) -> dict[str, dict[str, float]]:
    """Each item's breakdown: `context` is the similarity of the statement read with its context."""
    body = {"user_id": "u1", "query": query, "limit": 5}
    items = client.post("/api/v1/recall/", body, format="json").json()["items"]
    return {item["entry"]["content"]: item["breakdown"] for item in items}


def test_a_bare_answer_is_found_by_the_question_before_it(key_client):
    _mem0(key_client, QUESTION)
    _mem0(key_client, ANSWER)

    found = _found(key_client, "How many kids does the user have?")
    assert ANSWER in found, found
    # Read with the question it answers, the answer is far closer to a question about children.
    assert found[ANSWER]["context"] > found[ANSWER]["similarity"] + 0.1, found[ANSWER]


def test_facts_added_on_their_own_are_read_alone(key_client):
    _rest(key_client, QUESTION)
    _rest(key_client, ANSWER)

    found = _found(key_client, "How many kids does the user have?")
    if ANSWER in found:  # read alone: its context document is the statement itself
        assert found[ANSWER]["context"] == pytest.approx(found[ANSWER]["similarity"], abs=1e-3)


def test_a_turn_long_after_the_last_is_read_alone(key_client):
    _mem0(key_client, QUESTION)
    MemoryEntry.objects.update(recorded_at=timezone.now() - timedelta(hours=2))
    _mem0(key_client, ANSWER)
    _mem0(key_client, "The user repaints the fence every spring.")

    found = _found(key_client, "How many kids does the user have?")
    if ANSWER in found:  # read alone: its context document is the statement itself
        assert found[ANSWER]["context"] == pytest.approx(found[ANSWER]["similarity"], abs=1e-3)
