"""Conversations and their messages. Memories live in memory_core; messages are their sources."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext_noop


class ConversationQuerySet(models.QuerySet):
    def owned_by(self, user: object) -> ConversationQuerySet:
        if user is None or not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(user=user)


class Conversation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True, default="")
    # Incognito: nothing is recalled into it and nothing is learned from it.
    incognito = models.BooleanField(default=False)
    closed_at = models.DateTimeField(null=True, blank=True)
    # Rolling summary of the turns older than the recent window, and the last message it covers.
    summary = models.TextField(blank=True, default="")
    summary_upto = models.BigIntegerField(null=True, blank=True)
    # Last message already handed to extraction (every-N-turns and idle triggers continue from it).
    extracted_upto = models.BigIntegerField(null=True, blank=True)
    # User messages posted after `extracted_upto`: raised in the statement that saves each message,
    # lowered by what an extraction hands over; the every-N-turns trigger reads it instead of counting.
    unextracted_turns = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    last_activity_at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = ConversationQuerySet.as_manager()

    class Meta:
        ordering = ["-last_activity_at"]

    def __str__(self) -> str:
        return self.title or f"Conversation of {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def display_title(self) -> str:
        return str(self)


class MessageQuerySet(models.QuerySet):
    def in_turn_order(self) -> MessageQuerySet:
        """Each reply right after the message it answers, even when it came later (a retry)."""
        return self.annotate(turn=Coalesce(F("reply_to_id"), F("id"))).order_by("turn", "id")


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", gettext_noop("User")
        ASSISTANT = "assistant", gettext_noop("Assistant")

    class Status(models.TextChoices):
        COMPLETE = "complete", gettext_noop("Complete")
        PENDING = "pending", gettext_noop("Waiting for the reply")
        FAILED = "failed", gettext_noop("Failed")

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField()
    # A user message whose reply failed stays "failed" (kept, retryable); replies are saved only complete.
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.COMPLETE)
    error = models.TextField(blank=True, default="")
    offline = models.BooleanField(default=False, help_text="Written by the offline (no-LLM) provider.")
    # The recall reference ("chat:<id>") under which memory_core logged what this reply used.
    recall_ref = models.CharField(max_length=100, blank=True, default="")
    # The user message a reply answers. One-to-one, so the database itself refuses a second reply
    # (two tabs streaming the same message), and a late reply (a retry) is shown under its question.
    reply_to = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="reply"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = MessageQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(role__in=["user", "assistant"]), name="message_role_valid"),
            models.CheckConstraint(
                condition=Q(status__in=["complete", "pending", "failed"]), name="message_status_valid"
            ),
            models.CheckConstraint(condition=~Q(content=""), name="message_content_not_empty"),
            models.CheckConstraint(
                condition=Q(reply_to__isnull=True) | Q(role="assistant"), name="message_only_replies_reply"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:60]}"
