"""Helpers for privacy tests: chat turns, and the erasure scan (`memory_core.scan`)."""

from __future__ import annotations

from typing import Any

from chat.models import Conversation, Message
from chat.services import conversation_create, message_post, turn_reply
from memory_core.scan import scan_database, scan_job_queue

__all__ = ["new_conversation", "say", "scan_database", "scan_job_queue"]


def say(user: Any, conversation: Conversation, text: str) -> tuple[Message, Message]:
    """One chat turn through the chat services (offline model in tests): (user message, reply)."""
    message = message_post(conversation=conversation, content=text)
    reply = turn_reply(user=user, conversation=conversation, user_message=message)
    message.refresh_from_db()
    return message, reply


def new_conversation(user: Any, title: str = "") -> Conversation:
    return conversation_create(user=user, title=title)
