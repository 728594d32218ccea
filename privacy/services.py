"""Privacy orchestration: what spans memories AND conversations (erasing both, exporting both),
the "remember this about me" form, and the audit trail of staff access. Memories change only
through memory_core's services."""

from __future__ import annotations

from typing import Any

from chat.models import Conversation
from memory_core.actors import Actor, person
from memory_core.export import memory_export
from memory_core.models import (
    MemoryEntry,
    MemoryType,
    NamespaceKind,
    SourceKind,
)
from memory_core.outcomes import AddOutcome
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user
from privacy.models import AuditEvent

# What the user picks in "remember this about me" → (type, category).
REMEMBER_KINDS: dict[str, tuple[str, str]] = {
    "fact": (MemoryType.SEMANTIC, "general"),
    "preference": (MemoryType.SEMANTIC, "preference"),
    "event": (MemoryType.EPISODIC, "event"),
    "procedure": (MemoryType.PROCEDURAL, "sop"),
}


def privacy_remember(*, user: Any, content: str, kind: str = "fact") -> AddOutcome:
    """A memory the user adds by hand: reconciled like any other, source "user said it explicitly"."""
    type_, category = REMEMBER_KINDS.get(kind, REMEMBER_KINDS["fact"])
    return memory_add(
        namespace=namespace_for_user(user=user),
        content=content,
        type=type_,
        category=category,
        source_kind=SourceKind.USER_EXPLICIT,
        confidence=1.0,
        importance=0.7,
        actor_kind="user",
        actor=user,
    )


def privacy_export(*, user: Any) -> dict[str, Any]:
    """Everything about the user: memories with history and provenance, recall log, conversations,
    and who of the staff looked at their memories."""
    data = memory_export(actor=user)
    conversations = Conversation.objects.filter(user=user).prefetch_related("messages").order_by("created_at")
    data["conversations"] = [
        {
            "id": str(c.pk),
            "title": c.title,
            "incognito": c.incognito,
            "created_at": c.created_at.isoformat(),
            "closed_at": c.closed_at.isoformat() if c.closed_at else None,
            "summary": c.summary,
            "messages": [
                {
                    "id": str(m.pk),
                    "role": m.role,
                    "content": m.content,
                    "created_at": m.created_at.isoformat(),
                }
                for m in c.messages.all()
            ],
        }
        for c in conversations
    ]
    access = AuditEvent.objects.filter(namespace__owner=user).select_related("actor")
    data["staff_access"] = [
        {
            "action": a.action,
            "memory_id": str(a.entry_ref) if a.entry_ref else None,
            "by": a.actor.get_username() if a.actor else None,
            "at": a.created_at.isoformat(),
        }
        for a in access
    ]
    return data


def is_personal(entry: MemoryEntry) -> bool:
    """Facts and events are about a person; so is anything in a user's namespace."""
    return entry.type != MemoryType.PROCEDURAL or entry.namespace.kind == NamespaceKind.USER


def audit_record(*, actor: Actor, action: str, path: str, entry: MemoryEntry | None = None) -> AuditEvent:
    return AuditEvent.objects.create(
        actor=person(actor),
        action=action,
        namespace_id=entry.namespace_id if entry is not None else None,
        entry_ref=entry.pk if entry is not None else None,
        path=path[:300],
    )
