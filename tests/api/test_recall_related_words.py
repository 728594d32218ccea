"""Recall finds a memory said in other words than the question's (memory_core.term_vectors)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Q

from memory_core.models import RelatedTerm, TermVector
from memory_core.scan import scan_database
from memory_core.tasks import run_context_vectors
from tests.erasure_helpers import canary

pytestmark = pytest.mark.django_db

MEMORIES = (
    "The user booked a table at the Thai place for Friday.",
    "The user's kids are mad about the dinosaur exhibit at the museum.",
    "The user is reading a novel about a lighthouse keeper.",
    "The user's sister teaches piano to children on Saturdays.",
    "The user went to a jazz concert with friends last month.",
    "The user wants to repaint the kitchen green.",
)


def add(client, content: str) -> dict:
    response = client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["entry"]


def recall(client, query: str) -> list[dict]:
    response = client.post("/api/v1/recall/", {"user_id": "u1", "query": query}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def lexeme(word: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT (tsvector_to_array(to_tsvector('english', %s)))[1]", [word])
        return cursor.fetchone()[0]


def test_a_question_in_other_words_finds_the_memory_by_a_related_word(key_client):
    for content in MEMORIES:
        add(key_client, content)
    run_context_vectors()  # what the cluster runs soon after the writes: the new words' vectors too

    items = recall(key_client, "What do my children like?")

    assert items[0]["entry"]["content"] == "The user's sister teaches piano to children on Saturdays."
    kids = items[1]
    assert kids["entry"]["content"] == "The user's kids are mad about the dinosaur exhibit at the museum."
    # "kids" for "children": a keyword match, below the memory that says "children" itself
    assert 0 < kids["breakdown"]["keyword"] < items[0]["breakdown"]["keyword"]
    assert "keyword" in kids["reasons"]


def test_only_the_callers_own_words_are_related(key_client):
    theirs = {"user_id": "u2", "content": "u2 coaches children at a chess club."}
    assert key_client.post("/api/v1/memories/", theirs, format="json").status_code == 201
    add(key_client, "The user's kids are mad about the dinosaur exhibit at the museum.")
    run_context_vectors()
    assert TermVector.objects.filter(term="children").exists()

    items = recall(key_client, "What do my children like?")

    # u1 never wrote "children": its vector, there for u2, is not read for u1's recall
    assert [item["breakdown"]["keyword"] for item in items] == [0] * len(items)


def test_erasure_removes_the_words_vector_and_pairs(key_client):
    word = canary()
    add(key_client, "The user feeds the birds in the garden.")
    memory = add(key_client, f"The user keeps a parrot called {word}.")
    run_context_vectors()
    assert TermVector.objects.filter(term=lexeme(word)).exists()
    assert RelatedTerm.objects.filter(term="parrot", related="bird").exists()

    assert key_client.delete(f"/api/v1/memories/{memory['id']}/").status_code == 204

    assert not TermVector.objects.filter(term__in=[lexeme(word), "parrot"]).exists()
    assert not RelatedTerm.objects.filter(Q(term="parrot") | Q(related="parrot")).exists()
    assert TermVector.objects.filter(term="bird").exists()  # still held by the other memory
    assert scan_database(word) == {}
