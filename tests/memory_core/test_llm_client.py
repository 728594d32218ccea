"""The LLM client through the real `openai` package against the scripted OpenAI-protocol server."""

from __future__ import annotations

import time

import pydantic
import pytest

from memory_core.llm import (
    LLMError,
    LLMOutputError,
    LLMTimeout,
    LLMUnavailable,
    OfflineMode,
    OfflineProvider,
    OpenAIProvider,
    get_llm,
)
from tests.openai_server import deterministic_vector

QUESTION = [{"role": "user", "content": "What do you know about me?"}]


class Fact(pydantic.BaseModel):
    statement: str
    confidence: float


class Facts(pydantic.BaseModel):
    facts: list[Fact]


def test_it_answers_a_chat(openai_server, settings):
    settings.CHAT_MODEL = "chat-model-x"
    openai_server.reply_text("You like green tea.")

    result = get_llm().chat(QUESTION)

    assert result.text == "You like green tea."
    assert result.offline is False
    assert result.model == "chat-model-x"
    assert result.usage and result.usage["total_tokens"] > 0
    (request,) = openai_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["messages"] == QUESTION
    assert request.headers["authorization"] == "Bearer test-key"


def test_it_validates_structured_json_into_the_model(openai_server):
    openai_server.reply_json({"facts": [{"statement": "Likes green tea", "confidence": 0.9}]})

    facts = get_llm().complete_json(QUESTION, response_model=Facts)

    assert facts == Facts(facts=[Fact(statement="Likes green tea", confidence=0.9)])
    response_format = openai_server.requests[0].body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "Facts"
    assert response_format["json_schema"]["schema"] == Facts.model_json_schema()
    assert response_format["json_schema"]["strict"] is False


def test_it_retries_malformed_json_with_a_correction(openai_server, settings):
    settings.LLM_JSON_ATTEMPTS = 2
    openai_server.reply_raw('{"facts": [{"statement": "Likes tea"')
    openai_server.reply_json({"facts": []})

    assert get_llm().complete_json(QUESTION, response_model=Facts) == Facts(facts=[])

    assert len(openai_server.requests) == 2
    retry_messages = openai_server.requests[1].body["messages"]
    assert retry_messages[: len(QUESTION)] == QUESTION
    assert retry_messages[-2]["role"] == "assistant"
    assert retry_messages[-1]["role"] == "user"
    assert "JSON" in retry_messages[-1]["content"]


def test_it_gives_up_on_json_that_stays_malformed(openai_server, settings):
    settings.LLM_JSON_ATTEMPTS = 2
    openai_server.reply_raw("Sure! Here are the facts: tea.", times=3)

    with pytest.raises(LLMOutputError) as excinfo:
        get_llm().complete_json(QUESTION, response_model=Facts)

    assert len(openai_server.requests) == 2
    message = excinfo.value.message
    assert message.startswith("The language model did not return usable Facts data after 2 attempts")
    assert "not valid JSON" in message
    assert "Traceback" not in message
    assert excinfo.value.status_code == 502 and excinfo.value.code == "llm_bad_output"


def test_it_rejects_json_that_does_not_match_the_schema(openai_server, settings):
    settings.LLM_JSON_ATTEMPTS = 2
    openai_server.reply_json({"facts": [{"statement": "Likes tea"}]}, times=2)

    with pytest.raises(LLMOutputError) as excinfo:
        get_llm().complete_json(QUESTION, response_model=Facts)

    assert "does not match the schema" in excinfo.value.message
    assert "facts.0.confidence" in excinfo.value.message
    assert len(openai_server.requests) == 2


def test_it_times_out_after_a_bounded_number_of_attempts(openai_server, settings):
    settings.LLM_TIMEOUT_SECONDS = 0.3
    openai_server.delay(1.5, times=3)

    started = time.monotonic()
    with pytest.raises(LLMTimeout) as excinfo:
        get_llm().chat(QUESTION)

    assert len(openai_server.requests) == 1 + settings.LLM_MAX_RETRIES
    assert excinfo.value.message == "The language model did not answer within 0.3 s (3 attempts)."
    assert excinfo.value.status_code == 504
    # Three short timeouts plus the client's backoff (about 0.5 s, then 1 s), not a hang.
    assert time.monotonic() - started < 5


def test_it_retries_after_a_rate_limit(openai_server):
    openai_server.status(429, headers={"retry-after-ms": "10"})
    openai_server.reply_text("Back again.")

    assert get_llm().chat(QUESTION).text == "Back again."
    assert len(openai_server.requests) == 2
    assert openai_server.requests[1].headers["x-stainless-retry-count"] == "1"


def test_it_reports_unavailable_when_server_errors_outlast_the_retries(openai_server, settings):
    openai_server.status(500, headers={"retry-after-ms": "10"}, times=3)
    openai_server.reply_text("too late")

    with pytest.raises(LLMUnavailable) as excinfo:
        get_llm().chat(QUESTION)

    assert len(openai_server.requests) == 1 + settings.LLM_MAX_RETRIES
    assert excinfo.value.message == (
        "The language model service is failing (HTTP 500, 3 attempts); try again later."
    )
    assert excinfo.value.status_code == 503
    assert openai_server.pending == 1


def test_it_passes_on_the_servers_message_for_a_refused_request(openai_server):
    openai_server.status(400, body={"error": {"message": "model 'nope' does not exist", "type": "invalid"}})

    with pytest.raises(LLMError) as excinfo:
        get_llm().chat(QUESTION, model="nope")

    assert type(excinfo.value) is LLMError
    assert excinfo.value.message == (
        "The language model service refused the request (HTTP 400): model 'nope' does not exist"
    )
    assert len(openai_server.requests) == 1  # a 4xx other than 408/409/429 is not retried


def test_it_streams_the_deltas_in_order(openai_server):
    openai_server.reply_stream(["You ", "like ", "green ", "tea."])

    assert list(get_llm().stream_chat(QUESTION)) == ["You ", "like ", "green ", "tea."]
    assert openai_server.requests[0].body["stream"] is True


def test_it_maps_errors_while_streaming(openai_server):
    openai_server.status(503, headers={"retry-after-ms": "10"}, times=3)

    with pytest.raises(LLMUnavailable):
        list(get_llm().stream_chat(QUESTION))


def test_it_returns_embeddings_in_input_order(openai_server):
    vectors = [[float(i)] * 8 for i in range(3)]
    openai_server.embedding(vectors, out_of_order=True)

    result = get_llm().embed(["a", "b", "c"], model="text-embedding-3-small", dimensions=8)

    assert result == vectors
    body = openai_server.requests[0].body
    assert openai_server.requests[0].path == "/v1/embeddings"
    assert body["dimensions"] == 8
    assert body["input"] == ["a", "b", "c"]


def test_it_embeds_at_the_requested_dimension_by_default(openai_server):
    result = get_llm().embed(["tea", "coffee"], model="text-embedding-3-small", dimensions=384)

    assert [len(vector) for vector in result] == [384, 384]
    assert result[0] == deterministic_vector("tea", 384)
    assert openai_server.requests[0].body["dimensions"] == 384


def test_it_refuses_vectors_of_the_wrong_dimension(openai_server):
    openai_server.embedding([[0.1] * 4])

    with pytest.raises(LLMOutputError, match="not 8 numbers long"):
        get_llm().embed(["a"], model="text-embedding-3-small", dimensions=8)


def test_it_builds_the_provider_from_current_settings(openai_server, settings):
    assert isinstance(get_llm(), OpenAIProvider)
    assert get_llm().name == f"openai:{settings.CHAT_MODEL}"
    settings.OPENAI_API_KEY = ""
    assert isinstance(get_llm(), OfflineProvider)


def test_it_is_offline_without_a_key_and_shows_the_memories(settings):
    settings.OPENAI_API_KEY = ""
    llm = get_llm()
    messages = [
        {
            "role": "system",
            "content": "You are helpful.\n<memories>\n- Allergic to peanuts\n- Lives in Lyon\n</memories>\n",
        },
        *QUESTION,
    ]

    result = llm.chat(messages)

    assert isinstance(llm, OfflineProvider) and llm.offline is True
    assert result.offline is True
    assert result.text == (
        "I am running without a language model (offline mode), so I cannot compose a real answer.\n\n"
        "Here is what I remember that seems relevant:\n- Allergic to peanuts\n- Lives in Lyon"
    )
    assert "".join(llm.stream_chat(messages)) == result.text
    with pytest.raises(OfflineMode, match="rule-based extractor"):
        llm.complete_json(messages, response_model=Facts)
    with pytest.raises(OfflineMode):
        llm.embed(["tea"], model="text-embedding-3-small", dimensions=384)


def test_it_says_so_offline_when_nothing_is_remembered(settings):
    settings.OPENAI_API_KEY = ""

    result = get_llm().chat(QUESTION)

    assert result.text.endswith("I don't have any memories that seem relevant.")
    assert "offline mode" in result.text
