# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""The multilingual path: EMBEDDING_BACKEND=openai against an OpenAI-compatible endpoint serving a
multilingual model, `manage.py reembed`, recall across languages, and a model of the wrong size.

The endpoint is the scripted OpenAI-protocol server standing in for a multilingual model: texts
about the same thing get nearby vectors whatever their language (a small concept table), as
paraphrase-multilingual-MiniLM-L12-v2 or text-embedding-3-small give them.
"""

from __future__ import annotations

import math
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memory_core.embeddings import LOCAL_MODEL_NAME
from memory_core.models import MemoryEntry
from tests.openai_server import deterministic_vector
from tests.vectors import stored_as

pytestmark = pytest.mark.django_db

MODEL = "paraphrase-multilingual-MiniLM-L12-v2"

# Words (English and Chinese) of each concept the stand-in model knows.
CONCEPTS = {
    "allergy": ("allerg", "peanut", "过敏", "花生"),
    "work": ("work", "job", "employ", "工作", "公司", "上班"),
    "home": ("live", "home", "city", "住", "家"),
    "pet": ("dog", "cat", "pet", "狗", "猫", "宠物"),
    "tea": ("tea", "drink", "茶", "喝"),
}

MEMORIES = [
    "我对花生过敏。",
    "我在腾讯公司工作。",
    "我住在上海。",
    "我家有一只叫豆豆的狗。",
    "我每天早上喝绿茶。",
]


def multilingual_vector(text: str, dimensions: int) -> list[float]:
    """One axis per concept the text mentions, plus a little of the text's own hashed vector."""
    noise = deterministic_vector(text, dimensions)
    vector = [0.15 * x for x in noise]
    lowered = text.lower()
    for axis, words in enumerate(CONCEPTS.values()):
        if any(word in lowered for word in words):
            vector[axis] += 1.0
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


@pytest.fixture
def multilingual(openai_server, settings):
    """The settings an operator would write: the openai backend, the endpoint, a multilingual model."""
    openai_server.embed_with(multilingual_vector)
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = MODEL
    return openai_server


def _reembed(*args: str) -> str:
    out = StringIO()
    call_command("reembed", *args, stdout=out)
    return out.getvalue()


def _best(client, query: str) -> str:
    """The best-scoring memory recalled (pinned and profile facts come first whatever the score)."""
    response = client.post("/api/v1/recall/", {"user_id": "u1", "query": query}, format="json")
    assert response.status_code == 200, response.content
    items = response.json()["items"]
    return max(items, key=lambda item: item["score"])["entry"]["content"] if items else ""


def test_switching_to_a_multilingual_model_and_reembedding_recalls_across_languages(
    key_client, settings, openai_server
):
    # Written with the default local model (English-trained).
    for content in MEMORIES:
        response = key_client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
        assert response.status_code == 201
    assert set(MemoryEntry.objects.values_list("embedding_model", flat=True)) == {LOCAL_MODEL_NAME}

    # The operator switches to the multilingual model and re-embeds.
    openai_server.embed_with(multilingual_vector)
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = MODEL
    assert f"Would re-embed 5 entries with {MODEL}" in _reembed("--dry-run")
    output = _reembed()

    assert f"Re-embedded 5 entries with {MODEL} (0 already current)." in output
    assert set(MemoryEntry.objects.values_list("embedding_model", flat=True)) == {MODEL}
    sent = [text for call in openai_server.requests_to("/embeddings") for text in call.body["input"]]
    assert set(MEMORIES) <= set(sent)
    for call in openai_server.requests_to("/embeddings"):
        assert call.body["model"] == MODEL and call.body["dimensions"] == 384

    # English questions, no word in common with the Chinese memories: found by meaning.
    assert _best(key_client, "Am I allergic to anything?") == "我对花生过敏。"
    assert _best(key_client, "Where is my job?") == "我在腾讯公司工作。"
    assert _best(key_client, "Which city is my home?") == "我住在上海。"
    # And Chinese questions too.
    assert _best(key_client, "我有宠物吗？") == "我家有一只叫豆豆的狗。"
    assert _best(key_client, "What do I like to drink in the morning?") == "我每天早上喝绿茶。"

    # A memory written now is embedded by the endpoint at once.
    response = key_client.post(
        "/api/v1/memories/", {"user_id": "u1", "content": "My cat is called Mimi."}, format="json"
    )
    assert response.status_code == 201
    assert MemoryEntry.objects.get(content="My cat is called Mimi.").embedding_model == MODEL
    assert "Re-embedded 0 entries" in _reembed()


def test_reembed_also_moves_the_context_embedding_to_the_new_model(key_client, multilingual, settings):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL = LOCAL_MODEL_NAME
    key_client.post("/api/v1/memories/", {"user_id": "u1", "content": "我对花生过敏。"}, format="json")
    # As an entry learned from a conversation has it: the turn it answers.
    MemoryEntry.objects.filter(content="我对花生过敏。").update(search_context="你有什么过敏吗？")
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = MODEL

    _reembed()

    stored = MemoryEntry.objects.get(content="我对花生过敏。")
    expected = multilingual_vector("你有什么过敏吗？\n我对花生过敏。", 384)
    assert stored_as(stored.context_embedding, expected)
    statement = multilingual_vector("我对花生过敏。", 384)
    assert stored_as(stored.embedding, statement)


def test_a_model_of_another_size_is_refused_with_a_clear_message(key_client, multilingual, settings):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_MODEL = LOCAL_MODEL_NAME
    key_client.post("/api/v1/memories/", {"user_id": "u1", "content": "我对花生过敏。"}, format="json")
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "bge-m3"
    # An endpoint that ignores `dimensions` and answers with its model's own 1024.
    multilingual.embed_with(lambda text, _dimensions: multilingual_vector(text, 1024))

    with pytest.raises(CommandError) as caught:
        _reembed()

    message = str(caught.value)
    assert "not 384 numbers long for model 'bge-m3' (got 1024)" in message
    assert "set EMBEDDING_MODEL to a model that gives 384 dimensions" in message
    assert "Entries re-embedded so far are kept; run again to continue." in message
    assert set(MemoryEntry.objects.values_list("embedding_model", flat=True)) == {LOCAL_MODEL_NAME}

    # Writing through the API says so too, and stores nothing half-done.
    body = {"user_id": "u1", "content": "我住在上海。"}
    response = key_client.post("/api/v1/memories/", body, format="json")
    assert response.status_code >= 400
    assert "not 384 numbers long for model 'bge-m3' (got 1024)" in response.content.decode()
    assert not MemoryEntry.objects.filter(content="我住在上海。").exists()
