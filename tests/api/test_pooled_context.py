"""`CONTEXT_VECTOR = "pooled"`: a turn's context vector without a second transformer pass.

Through mem0's route, as a client adds a conversation: the answer is found by a question about
the turn before it, and no context document reaches the model (texts counted by the embeddings
module itself, on the real local model: one text per turn, where the "document" mode embeds one
more per turn with a turn before it)."""

from __future__ import annotations

import pytest

from memory_core.models import MemoryEntry
from tests.context_turns import ANSWER, OTHERS, QUESTION, TURNS, add_turns, forget_vectors, one_by_one

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def pooled(settings):
    settings.CONTEXT_VECTOR = "pooled"
    forget_vectors()
    yield
    forget_vectors()


def assert_found_through_the_question(client, user_id: str) -> None:
    response = client.post(
        "/api/v1/recall/",
        {"user_id": user_id, "query": "Which city was suggested for the spring trip?"},
        format="json",
    )
    assert response.status_code == 200, response.content
    items = response.json()["items"]
    contents = [item["entry"]["content"] for item in items]
    assert contents.index(ANSWER) <= 1
    assert OTHERS[0] not in contents[: contents.index(ANSWER)]
    found = items[contents.index(ANSWER)]
    assert found["breakdown"]["context"] > found["breakdown"]["similarity"]


@pytest.fixture
def warm(key_client):
    """The same turns added once for another user: the guards' own per-text caches (clauses the
    judgement embeds) are warm, so what the model embeds next is the statements and contexts."""
    add_turns(key_client, "u0", *TURNS)


def test_a_turn_added_after_another_is_found_by_a_question_about_it_without_a_second_pass(
    key_client, settings, warm
):
    pooled = one_by_one(key_client, "u1")
    assert pooled == [1, 1, 1, 1]  # one model pass per turn

    entry = MemoryEntry.objects.filter(content=ANSWER).order_by("id")[1]  # u1's (u0's is first)
    assert entry.search_context == QUESTION
    assert list(entry.context_embedding) != list(entry.embedding)
    assert_found_through_the_question(key_client, "u1")

    settings.CONTEXT_VECTOR = "document"
    document = one_by_one(key_client, "u2")
    # Every turn after the first: its context vector from the turn before's stored vector, no pass.
    assert [d - p for d, p in zip(document, pooled, strict=True)] == [0, 1, 1, 1]
    assert pooled[0] == document[0]


def test_a_conversation_added_in_one_call_embeds_no_context_document(key_client, settings, warm):
    forget_vectors()
    pooled = add_turns(key_client, "u1", *TURNS)
    assert pooled == len(TURNS)  # one model pass per turn
    assert_found_through_the_question(key_client, "u1")

    settings.CONTEXT_VECTOR = "document"
    forget_vectors()
    document = add_turns(key_client, "u2", *TURNS)
    assert document - pooled == 3  # three turns have a turn before them


def test_a_statement_without_context_keeps_its_own_vector_as_context(key_client):
    response = key_client.post("/api/v1/memories/", {"user_id": "u1", "content": OTHERS[1]}, format="json")
    assert response.status_code == 201, response.content

    entry = MemoryEntry.objects.get(content=OTHERS[1])
    assert list(entry.context_embedding) == list(entry.embedding)


def test_reembed_computes_the_context_vector_as_the_write_path_does(key_client):
    from io import StringIO

    from django.core.management import call_command

    add_turns(key_client, "u1", *TURNS[:2])
    entry = MemoryEntry.objects.get(content=ANSWER)
    written = [float(x) for x in entry.context_embedding]
    MemoryEntry.objects.update(context_embedding=None)

    call_command("reembed", "--all", stdout=StringIO())

    entry.refresh_from_db()
    assert [float(x) for x in entry.context_embedding] == pytest.approx(written, abs=2e-3)
