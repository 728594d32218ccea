"""Plain data helpers for memory tests (through the real services)."""

from __future__ import annotations

from typing import Any

from memory_core.models import MemoryEntry
from memory_core.services import EntryDraft, memory_create, namespace_for_user


def remember(user: Any, content: str, **fields: Any) -> MemoryEntry:
    outer = {name: fields.pop(name) for name in ("reason", "status", "embedding") if name in fields}
    return memory_create(
        namespace=namespace_for_user(user=user), draft=EntryDraft(content=content, **fields), **outer
    )
