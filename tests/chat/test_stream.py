"""The reply stream (server-sent events) and the turn partial swapped in after it."""

from __future__ import annotations

import json

import pytest

from chat.models import Message
from chat.services import message_post
from memory_core.llm import OFFLINE_PREAMBLE
from tests.chat.helpers import client_for, conversation, remember, say, sse_events

pytestmark = pytest.mark.django_db


def test_it_streams_the_reply_then_points_at_the_final_turn(owner):
    remember(owner, "The user is allergic to peanuts.", category="safety", pinned=True)
    conv = conversation(owner)
    message = message_post(conversation=conv, content="What should I cook?")
    response = client_for(owner).get(f"/c/{conv.pk}/m/{message.pk}/stream/")
    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache"
    events = sse_events(response)
    assert events[-1] == ("done", json.dumps({"url": f"/c/{conv.pk}/m/{message.pk}/"}))
    streamed = "".join(json.loads(data)["text"] for name, data in events if name == "delta")
    reply = Message.objects.get(role="assistant")
    assert streamed.strip() == reply.content
    assert str(OFFLINE_PREAMBLE) in streamed and "peanuts" in streamed


def test_it_streams_the_scripted_chunks(owner, openai_server):
    openai_server.reply_stream(["Paris", " is the", " capital."])
    conv = conversation(owner)
    message = message_post(conversation=conv, content="Capital of France?")
    events = sse_events(client_for(owner).get(f"/c/{conv.pk}/m/{message.pk}/stream/"))
    assert [json.loads(d)["text"] for n, d in events if n == "delta"] == ["Paris", " is the", " capital."]
    assert Message.objects.get(role="assistant").content == "Paris is the capital."


def test_it_never_generates_twice(owner):
    conv = conversation(owner)
    message, _reply = say(owner, conv, "Hello")
    events = sse_events(client_for(owner).get(f"/c/{conv.pk}/m/{message.pk}/stream/"))
    assert [name for name, _ in events] == ["done"]
    assert Message.objects.filter(role="assistant").count() == 1


def test_it_does_not_retry_a_failed_message_on_get(owner):
    conv = conversation(owner)
    message = message_post(conversation=conv, content="Hello")
    Message.objects.filter(pk=message.pk).update(status=Message.Status.FAILED, error="HTTP 500")
    events = sse_events(client_for(owner).get(f"/c/{conv.pk}/m/{message.pk}/stream/"))
    assert [name for name, _ in events] == ["failed"]
    assert Message.objects.get().status == Message.Status.FAILED


def test_it_renders_a_turn_alone_for_htmx(owner):
    entry = remember(owner, "The user lives in Lisbon.", category="profile")
    conv = conversation(owner)
    message, reply = say(owner, conv, "Where do I live?")
    client = client_for(owner)
    for url in (f"/c/{conv.pk}/m/{message.pk}/", f"/c/{conv.pk}/m/{reply.pk}/"):
        page = client.get(url, HTTP_HX_REQUEST="true").content.decode()
        assert page.lstrip().startswith(f'<li class="turn" id="m-{message.pk}"')
        assert "<html" not in page
        assert "<summary>used 1 memory</summary>" in page and f"/me/memories/{entry.pk}/" in page


def test_it_redirects_a_turn_opened_without_htmx(owner):
    conv = conversation(owner)
    message, _ = say(owner, conv, "Hello")
    response = client_for(owner).get(f"/c/{conv.pk}/m/{message.pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"/c/{conv.pk}/#m-{message.pk}"


def test_it_puts_a_failed_message_back_in_line_on_retry(owner):
    conv = conversation(owner)
    message = message_post(conversation=conv, content="Hello")
    Message.objects.filter(pk=message.pk).update(status=Message.Status.FAILED, error="HTTP 500")
    page = (
        client_for(owner).post(f"/c/{conv.pk}/m/{message.pk}/retry/", HTTP_HX_REQUEST="true").content.decode()
    )
    assert "data-stream-url" in page and "HTTP 500" not in page
    message.refresh_from_db()
    assert message.status == Message.Status.PENDING and message.error == ""


def test_it_does_not_answer_twice_on_retry(owner):
    conv = conversation(owner)
    message, _ = say(owner, conv, "Hello")
    client = client_for(owner)
    response = client.post(f"/c/{conv.pk}/m/{message.pk}/retry/", follow=True)
    assert "already has a reply" in response.content.decode()
    page = client.post(f"/c/{conv.pk}/m/{message.pk}/retry/", HTTP_HX_REQUEST="true").content.decode()
    assert "data-stream-url" not in page
    assert Message.objects.filter(role="assistant").count() == 1
