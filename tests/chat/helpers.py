"""Plain helpers for chat tests: conversations, turns and memories through the real services."""

from __future__ import annotations

from typing import Any

from django.test import Client

from chat.models import Conversation, Message
from chat.services import conversation_create, message_post, turn_reply
from memory_core.models import MemoryEntry
from memory_core.services import EntryDraft, memory_create, namespace_for_user


def client_for(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def conversation(user: Any, **fields: Any) -> Conversation:
    return conversation_create(user=user, **fields)


def say(user: Any, conv: Conversation, text: str) -> tuple[Message, Message]:
    """One complete turn; returns (the user's message, the reply)."""
    message = message_post(conversation=conv, content=text)
    reply = turn_reply(user=user, conversation=conv, user_message=message)
    message.refresh_from_db()
    return message, reply


def remember(user: Any, content: str, **fields: Any) -> MemoryEntry:
    outer = {name: fields.pop(name) for name in ("reason", "status", "embedding") if name in fields}
    return memory_create(
        namespace=namespace_for_user(user=user), draft=EntryDraft(content=content, **fields), **outer
    )


def pause_memory(user: Any) -> None:
    namespace = namespace_for_user(user=user)
    namespace.memory_paused = True
    namespace.save(update_fields=["memory_paused"])


def sse_events(response: Any) -> list[tuple[str, str]]:
    """The (event, data) pairs of a server-sent-events response; comments are skipped."""
    body = b"".join(response.streaming_content).decode()
    events = []
    for block in body.split("\n\n"):
        lines = [line for line in block.splitlines() if line and not line.startswith(":")]
        if lines:
            fields = dict(line.split(": ", 1) for line in lines)
            events.append((fields["event"], fields["data"]))
    return events
