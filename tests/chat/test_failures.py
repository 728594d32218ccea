"""LLM failures against the scripted OpenAI-protocol server: nothing typed is lost, retry works."""

from __future__ import annotations

import json
import re

import pytest

from chat.models import Message
from chat.services import message_post, message_retry, turn_reply
from memory_core.llm import LLMOutputError, LLMTimeout, LLMUnavailable
from tests.chat.helpers import client_for, conversation, sse_events

pytestmark = pytest.mark.django_db

FAST = {"retry-after-ms": "5"}  # the client honours it, so its retries take no time


def _fails_then_retries(owner, exc_type, expected_error):
    conv = conversation(owner)
    message = message_post(conversation=conv, content="What is the capital of France?")
    with pytest.raises(exc_type):
        turn_reply(user=owner, conversation=conv, user_message=message)
    message.refresh_from_db()
    assert message.status == Message.Status.FAILED
    assert expected_error in message.error
    assert message.content == "What is the capital of France?"
    assert not Message.objects.filter(role="assistant").exists()

    message_retry(message=message)
    reply = turn_reply(user=owner, conversation=conv, user_message=message)
    message.refresh_from_db()
    assert message.status == Message.Status.COMPLETE and message.error == ""
    return reply


def test_it_keeps_the_message_on_5xx_and_retry_succeeds(owner, openai_server):
    openai_server.status(500, headers=FAST, times=3)  # the first try and both client retries
    reply = _fails_then_retries(owner, LLMUnavailable, "HTTP 500")
    assert reply.content == "ok"
    assert len(openai_server.requests_to("/chat/completions")) == 4


def test_it_keeps_the_message_on_429(owner, openai_server):
    openai_server.status(429, headers=FAST, times=3)
    _fails_then_retries(owner, LLMUnavailable, "rate-limiting")


def test_it_keeps_the_message_on_timeout(owner, openai_server, settings):
    settings.LLM_MAX_RETRIES = 0
    openai_server.delay(1.5)
    _fails_then_retries(owner, LLMTimeout, "did not answer within")


def test_it_never_saves_an_empty_reply(owner, openai_server):
    openai_server.reply_raw("   ")
    _fails_then_retries(owner, LLMOutputError, "empty reply")


def test_it_streams_a_failure_and_saves_no_partial_reply(owner, openai_server):
    openai_server.status(503, headers=FAST, times=3)
    conv = conversation(owner)
    client = client_for(owner)
    response = client.post(f"/c/{conv.pk}/send/", {"content": "Hello"}, HTTP_HX_REQUEST="true")
    stream_url = re.search(r'data-stream-url="([^"]+)"', response.content.decode()).group(1)
    events = sse_events(client.get(stream_url))
    assert [name for name, _ in events] == ["failed"]
    assert "HTTP 503" in json.loads(events[0][1])["error"]
    message = Message.objects.get()
    assert message.status == Message.Status.FAILED
    assert not Message.objects.filter(role="assistant").exists()

    # The failed turn shows the reason and a Retry button that streams again.
    turn = client.get(json.loads(events[0][1])["url"], HTTP_HX_REQUEST="true").content.decode()
    assert "HTTP 503" in turn and "Retry" in turn
    retried = client.post(f"/c/{conv.pk}/m/{message.pk}/retry/", HTTP_HX_REQUEST="true")
    assert 'data-stream-url="' in retried.content.decode()
    openai_server.reply_stream(["Hel", "lo ", "back"])
    events = sse_events(client.get(stream_url))
    assert [name for name, _ in events] == ["delta", "delta", "delta", "done"]
    assert Message.objects.get(role="assistant").content == "Hello back"


def test_it_shows_the_error_and_retry_without_javascript(owner, openai_server):
    openai_server.status(500, headers=FAST, times=3)
    conv = conversation(owner)
    client = client_for(owner)
    response = client.post(f"/c/{conv.pk}/send/", {"content": "Hello"}, follow=True)
    page = response.content.decode()
    assert "No reply: The language model service is failing (HTTP 500" in page
    message = Message.objects.get()
    assert f'action="/c/{conv.pk}/m/{message.pk}/retry/"' in page

    response = client.post(f"/c/{conv.pk}/m/{message.pk}/retry/", follow=True)
    assert response.status_code == 200
    assert Message.objects.get(role="assistant").content == "ok"
    assert "No reply:" not in response.content.decode()


def test_it_fails_the_message_when_recall_cannot_embed(owner, openai_server, settings):
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    openai_server.status(500, headers=FAST, times=3)  # the query embedding, before any chat call
    conv = conversation(owner)
    client = client_for(owner)
    response = client.post(f"/c/{conv.pk}/send/", {"content": "Hello"}, HTTP_HX_REQUEST="true")
    stream_url = re.search(r'data-stream-url="([^"]+)"', response.content.decode()).group(1)
    assert [name for name, _ in sse_events(client.get(stream_url))] == ["failed"]
    message = Message.objects.get()
    assert message.status == Message.Status.FAILED and "HTTP 500" in message.error
    assert not openai_server.requests_to("/chat/completions")


@pytest.mark.parametrize("body", ["<html><body>502 Bad Gateway</body></html>", '{"choices": [', ""])
def test_a_200_answer_that_is_not_json_fails_the_message_clearly(owner, openai_server, body):
    openai_server.raw_body(body, times=3)
    conv = conversation(owner)
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {"content": "Hello"}, follow=True)
    assert response.status_code == 200
    assert (
        "No reply: The language model service answered with something that is not"
        in response.content.decode()
    )
    message = Message.objects.get()
    assert message.status == Message.Status.FAILED and message.content == "Hello"
    assert not Message.objects.filter(role="assistant").exists()


def test_a_200_answer_that_is_not_json_is_a_502_in_the_api(owner, openai_server):
    from rest_framework.test import APIClient

    from api.services import user_token_issue

    openai_server.raw_body("<html>gateway</html>", times=3)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {user_token_issue(user=owner).key}")
    cid = client.post("/api/v1/conversations/", {}, format="json").json()["id"]
    response = client.post(f"/api/v1/conversations/{cid}/messages/", {"content": "Hi"}, format="json")
    assert response.status_code == 502
    assert "not a valid API response" in json.dumps(response.json())
    assert Message.objects.get(role="user").status == Message.Status.FAILED


def test_why_a_reply_failed_is_said_in_the_pages_language(owner, openai_server):
    openai_server.status(500, headers=FAST, times=3)
    conv = conversation(owner)
    client = client_for(owner)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    assert (
        client.post(f"/c/{conv.pk}/send/", {"content": "What is the capital of France?"}).status_code == 302
    )
    page = client.get(f"/c/{conv.pk}/").content.decode()
    assert "没有回复：语言模型服务出错（HTTP 500，尝试了 3 次）；请稍后再试。" in page  # noqa: RUF001
    assert "The language model service is failing" not in page
    english = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    assert "The language model service is failing (HTTP 500, 3 attempts); try again later." in english
