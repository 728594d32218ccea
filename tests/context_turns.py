"""The turns the context-vector tests add through mem0's route, and how they count what the local
model embeds (test_pooled_context.py, test_deferred_context.py)."""

from __future__ import annotations

from memory_core import judgement
from memory_core.embeddings import query_cache, texts_embedded

QUESTION = "Where should I go in the spring?"
ANSWER = "Lisbon, no question - the food alone is worth it!"
OTHERS = ["My sister just adopted a grey cat.", "I repaired the kitchen shelf yesterday."]
TURNS = [
    {"role": "user", "content": QUESTION},
    {"role": "assistant", "content": ANSWER},
    *({"role": "user", "content": other} for other in OTHERS),
]


def forget_vectors() -> None:
    """Nothing computed before counts: another process may serve the next call."""
    query_cache.clear()
    judgement.scores.cache_clear()


def add_turns(client, user_id: str, *messages: dict) -> int:
    """Texts the model embedded to add `messages` in one call of mem0's route."""
    before = texts_embedded()
    response = client.post(
        "/v3/memories/add/", {"user_id": user_id, "messages": list(messages), "infer": False}, format="json"
    )
    assert response.status_code == 200, response.content
    return texts_embedded() - before


def one_by_one(client, user_id: str, turns: list[dict] = TURNS) -> list[int]:
    """Texts embedded per call, the turns added one per call, each from a cold process."""
    counts = []
    for message in turns:
        forget_vectors()
        counts.append(add_turns(client, user_id, message))
    return counts
