"""Two turns of one conversation at once (two tabs, two API clients): the every-N-turns counter
stays right, and the messages are handed to extraction once."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from rest_framework.test import APIClient

from api.services import user_token_issue
from chat.models import Conversation, Message
from memory_core.models import ExtractionJob

pytestmark = pytest.mark.django_db(transaction=True)


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {user_token_issue(user=user).key}")
    return client


def _post(client: APIClient, conversation_id: str, text: str) -> Any:
    response = client.post(
        f"/api/v1/conversations/{conversation_id}/messages/", {"content": text}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_two_turns_at_once_are_counted_both_and_extracted_once(owner, openai_server, settings):
    settings.CHAT_EXTRACT_EVERY_N_TURNS = 2
    client = _client(owner)
    conversation_id = client.post("/api/v1/conversations/", {}, format="json").json()["id"]

    # The model answers the two turns only once both are waiting for it: both messages are saved
    # and counted before either reply is, and the two replies are saved at the same moment.
    both_asked = threading.Barrier(2, timeout=20)
    racing = {"I live in Lisbon.", "I work as a nurse."}

    def answer(messages: list[dict[str, Any]]) -> str:
        if any('{"candidates"' in m["content"] for m in messages):
            return '{"candidates": []}'  # the extraction's call: nothing to learn here
        if messages[-1]["content"] in racing:
            both_asked.wait()
        return "Noted."

    openai_server.answer_with(answer)
    errors: list[BaseException] = []

    def turn(text: str) -> None:
        try:
            _post(client, conversation_id, text)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=turn, args=(text,)) for text in sorted(racing)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors

    # Two user messages with N = 2: one hand-over (not one per reply), holding both of them.
    jobs = ExtractionJob.objects.filter(trigger="every_n_turns")
    assert jobs.count() == 1
    conversation = Conversation.objects.get(pk=conversation_id)
    user_messages = list(conversation.messages.filter(role=Message.Role.USER).values_list("pk", flat=True))
    assert len(user_messages) == 2 and conversation.extracted_upto >= max(user_messages)
    assert conversation.unextracted_turns == 0

    # The count goes on from there: the next turn alone is not enough, the one after it is.
    _post(client, conversation_id, "I like tea.")
    assert jobs.count() == 1
    _post(client, conversation_id, "I have a cat.")
    assert jobs.count() == 2
