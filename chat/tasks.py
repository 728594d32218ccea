"""Scheduled chat jobs (django-q2)."""

from __future__ import annotations

from chat.services import conversations_sweep_idle


def sweep_idle_conversations() -> int:
    """Hand idle conversations' new messages to memory extraction; returns how many were queued."""
    return conversations_sweep_idle()
