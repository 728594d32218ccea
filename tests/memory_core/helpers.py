"""Plain data helpers for memory tests (through the real services)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memory_core.models import MemoryEntry, SourceKind
from memory_core.services import EntryDraft, memory_create, namespace_for_user

# The forgetting tests' "now": far from the real clock, so nothing depends on when they run.
FORGETTING_NOW = datetime(2031, 3, 1, 12, 0, tzinfo=UTC)


def remember(user: Any, content: str, **fields: Any) -> MemoryEntry:
    outer = {name: fields.pop(name) for name in ("reason", "status", "embedding") if name in fields}
    return memory_create(
        namespace=namespace_for_user(user=user), draft=EntryDraft(content=content, **fields), **outer
    )


def backdated(
    user: Any, content: str, *, days_old: float = 0, now: datetime = FORGETTING_NOW, **fields: Any
) -> MemoryEntry:
    """An entry written `days_old` days before `now`, stored as is (no pipeline, no embedding
    unless given): the forgetting passes see exactly these dates."""
    at = now - timedelta(days=days_old)
    values: dict[str, Any] = {
        "type": "semantic",
        "source_kind": SourceKind.API_IMPORT,
        "importance": 0.5,
        "valid_from": at,
        "recorded_at": at,
        "created_at": at,
    }
    if fields.get("type") == "procedural":
        values["approved_at"] = at
    values.update(fields)
    return MemoryEntry.objects.create(namespace=namespace_for_user(user=user), content=content, **values)
