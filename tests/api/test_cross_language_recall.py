# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""Cross-language recall (RECALL_TRANSLATE_QUERY): an English question finds a Chinese memory and
the reverse, with the default local embedding model; the language model (the scripted
OpenAI-protocol server) translates the question; its failure leaves the plain query's answer."""

from __future__ import annotations

from typing import Any

import pytest

from memory_core.recall import translation as query_translation

pytestmark = pytest.mark.django_db

CHINESE = ["我最喜欢看科幻电影。", "我女儿每周六上午学钢琴。", "我上个月开始学习潜水。"]
ENGLISH = ["I collect vintage fountain pens.", "My brother runs a bakery in Porto."]

# What a translator answers (human translations).
TRANSLATIONS = {
    "What kind of movies do I like?": "我喜欢什么样的电影？",
    "What does my daughter learn on Saturdays?": "我女儿周六学什么？",
    "我收集什么东西？": "What do I collect?",
}


def translator(messages: list[dict[str, Any]]) -> str:
    return TRANSLATIONS.get(messages[-1]["content"], "ok")


@pytest.fixture(autouse=True)
def _fresh_cache():
    query_translation.cache.clear()


@pytest.fixture
def memories(key_client, openai_server):
    openai_server.answer_with(translator)
    for content in CHINESE + ENGLISH:
        response = key_client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
        assert response.status_code == 201
    return key_client


def _recalled(client, query: str) -> list[str]:
    response = client.post("/api/v1/recall/", {"user_id": "u1", "query": query}, format="json")
    assert response.status_code == 200, response.content
    return [item["entry"]["content"] for item in response.json()["items"]]


def _best(client, query: str) -> str:
    response = client.post("/api/v1/recall/", {"user_id": "u1", "query": query}, format="json")
    items = response.json()["items"]
    return max(items, key=lambda item: item["score"])["entry"]["content"] if items else ""


def _translation_calls(server) -> list[str]:
    return [call.body["messages"][-1]["content"] for call in server.requests_to("/chat/completions")]


def test_it_is_off_by_default_and_then_an_english_question_misses_the_chinese_memory(memories, openai_server):
    assert "我最喜欢看科幻电影。" not in _recalled(memories, "What kind of movies do I like?")
    assert "我上个月开始学习潜水。" not in _recalled(memories, "Which sport did I take up last month?")
    # A kinship word is the exception: "my daughter" and 我女儿 are one person in the user's
    # people graph (memory_core.entities), so that memory is reached without any translation.
    assert _best(memories, "What does my daughter learn on Saturdays?") == "我女儿每周六上午学钢琴。"
    # The same memories are found in their own language.
    assert _best(memories, "我喜欢什么样的电影？") == "我最喜欢看科幻电影。"
    assert _translation_calls(openai_server) == []


def test_with_the_setting_on_english_questions_find_chinese_memories(memories, openai_server, settings):
    settings.RECALL_TRANSLATE_QUERY = True
    assert _best(memories, "What kind of movies do I like?") == "我最喜欢看科幻电影。"
    assert _best(memories, "What does my daughter learn on Saturdays?") == "我女儿每周六上午学钢琴。"
    calls = openai_server.requests_to("/chat/completions")
    assert [call.body["messages"][-1]["content"] for call in calls] == [
        "What kind of movies do I like?",
        "What does my daughter learn on Saturdays?",
    ]
    assert "Simplified Chinese" in calls[0].body["messages"][0]["content"]

    # The reverse: a Chinese question, an English memory.
    assert _best(memories, "我收集什么东西？") == "I collect vintage fountain pens."
    assert "English" in openai_server.requests_to("/chat/completions")[-1].body["messages"][0]["content"]

    # A question asked again is answered from the cache: no second model call.
    _recalled(memories, "What kind of movies do I like?")
    assert len(openai_server.requests_to("/chat/completions")) == 3


def test_the_recall_says_which_memories_the_translation_found(memories, settings):
    settings.RECALL_TRANSLATE_QUERY = True
    response = memories.post(
        "/api/v1/recall/", {"user_id": "u1", "query": "What kind of movies do I like?"}, format="json"
    )
    movie = next(i for i in response.json()["items"] if i["entry"]["content"] == "我最喜欢看科幻电影。")
    assert "translated" in movie["reasons"]


@pytest.mark.parametrize("failure", ["error", "timeout", "empty"])
def test_a_failing_translator_leaves_the_plain_querys_answer(memories, openai_server, settings, failure):
    plain = _recalled(memories, "I collect pens: which ones?")
    settings.RECALL_TRANSLATE_QUERY = True
    settings.RECALL_TRANSLATE_TIMEOUT_SECONDS = 0.5
    if failure == "error":
        openai_server.status(500, {"error": {"message": "upstream down"}})
    elif failure == "timeout":
        openai_server.delay(2.0)
    else:
        openai_server.reply_text("   ")

    assert _recalled(memories, "I collect pens: which ones?") == plain
    # One attempt, no retries: the recall does not wait for a second one.
    assert len(openai_server.requests_to("/chat/completions")) == 1


def test_no_model_call_when_the_memories_are_all_in_the_questions_language(
    key_client, openai_server, settings
):
    settings.RECALL_TRANSLATE_QUERY = True
    for content in ENGLISH:
        key_client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
    assert _best(key_client, "Who runs a bakery?") == "My brother runs a bakery in Porto."
    assert openai_server.requests_to("/chat/completions") == []


def test_without_a_language_model_the_setting_changes_nothing(key_client, settings):
    settings.RECALL_TRANSLATE_QUERY = True
    settings.OPENAI_API_KEY = ""
    for content in CHINESE:
        key_client.post("/api/v1/memories/", {"user_id": "u1", "content": content}, format="json")
    assert "我最喜欢看科幻电影。" not in _recalled(key_client, "What kind of movies do I like?")
