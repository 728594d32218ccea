"""Reads for the chat: a user reaches only their own conversations."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet

from chat.models import Conversation, Message
from memory_core.errors import NotFound


def conversation_access(*, user: Any, conversation_id: Any) -> Conversation:
    """The user's conversation; NotFound alike for missing and for someone else's."""
    try:
        pk = uuid.UUID(str(conversation_id))
    except (TypeError, ValueError):
        raise NotFound("Conversation not found.") from None
    conversation = Conversation.objects.owned_by(user).filter(pk=pk).first()
    if conversation is None:
        raise NotFound("Conversation not found.")
    return conversation


def message_access(*, user: Any, conversation: Conversation, message_id: Any) -> Message:
    try:
        pk = int(message_id)
    except (TypeError, ValueError):
        raise NotFound("Message not found.") from None
    message = Message.objects.filter(conversation__user=user, conversation=conversation, pk=pk).first()
    if message is None:
        raise NotFound("Message not found.")
    return message


def conversation_list(*, user: Any) -> QuerySet[Conversation]:
    return Conversation.objects.owned_by(user).order_by("-last_activity_at")


def conversation_messages(*, conversation: Conversation) -> QuerySet[Message]:
    return conversation.messages.order_by("created_at", "id")
