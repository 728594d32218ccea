"""Fixtures for privacy tests: an operator allowed to moderate, chat turns, and the erasure scan."""

from __future__ import annotations

from typing import Any

from django.db import connection

from chat.models import Conversation, Message
from chat.services import conversation_create, message_post, turn_reply


def say(user: Any, conversation: Conversation, text: str) -> tuple[Message, Message]:
    """One chat turn through the chat services (offline model in tests): (user message, reply)."""
    message = message_post(conversation=conversation, content=text)
    reply = turn_reply(user=user, conversation=conversation, user_message=message)
    message.refresh_from_db()
    return message, reply


def new_conversation(user: Any, title: str = "") -> Conversation:
    return conversation_create(user=user, title=title)


def scan_database(marker: str) -> dict[str, list[str]]:
    """Every table and column of the database whose text form contains `marker` (any case).

    All columns are cast to text (text, varchar, json, arrays, tsvector …), so nothing is skipped
    by type. django-q's pickled payloads are opaque to this; `scan_job_queue` decodes them.
    """
    hits: dict[str, list[str]] = {}
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = %s",
                [table],
            )
            for (column,) in cursor.fetchall():
                cursor.execute(
                    f'SELECT count(*) FROM "{table}" WHERE "{column}"::text ILIKE %s',  # noqa: S608
                    [f"%{marker}%"],
                )
                if cursor.fetchone()[0]:
                    hits.setdefault(table, []).append(column)
    return hits


def scan_job_queue(marker: str) -> list[str]:
    """Queued and finished django-q tasks whose decoded payload or result mentions `marker`."""
    from django_q.models import OrmQ, Task

    found = [f"queued {q.key}" for q in OrmQ.objects.all() if marker.casefold() in repr(q.task).casefold()]
    for task in Task.objects.all():
        if marker.casefold() in repr((task.func, task.args, task.kwargs, task.result)).casefold():
            found.append(f"task {task.id}")
    return found
