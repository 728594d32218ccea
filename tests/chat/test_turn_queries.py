"""A chat turn costs a fixed, small number of queries, however much is remembered or was said."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chat.services import message_post, turn_reply
from tests.chat.helpers import conversation, remember, say

pytestmark = pytest.mark.django_db

# Statements of one whole turn (save the message, recall, prompt, save the reply, triggers),
# savepoints aside: 8 today — 4 of them the recall's (namespaces with the query terms, term
# statistics, candidates, recall log), 4 the chat's own (save the message with its
# conversation's activity and every-N-turns counter, the namespace with the style preferences, the
# history, save the reply with the message marked answered). Issue 15's goal is 10.
MAX_TURN_QUERIES = 8


def _turn_queries(user, conv, text: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        message = message_post(conversation=conv, content=text)
        reply = turn_reply(user=user, conversation=conv, user_message=message)
    assert reply.reply_to_id == message.pk
    statements = [q["sql"].lstrip() for q in captured.captured_queries]
    return sum(1 for sql in statements if not sql.startswith(("SAVEPOINT", "RELEASE")))


def test_a_turn_costs_the_same_few_queries_for_many_memories_and_a_long_conversation(owner, openai_server):
    remember(owner, "The user likes apples.", category="preference")
    short = conversation(owner)
    say(owner, short, "Hello there")
    few = _turn_queries(owner, short, "Which fruit do I like?")

    for i in range(30):
        remember(owner, f"The user visited city number {i} in {2000 + i}.", category="event")
    long = conversation(owner)
    for i in range(12):
        say(owner, long, f"Tell me about fruit number {i}.")
    many = _turn_queries(owner, long, "Which fruit do I like?")

    assert few <= MAX_TURN_QUERIES, few
    assert many == few
