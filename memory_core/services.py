"""Writes of memories: typed, keyword-only, atomic; every change is written to the history."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from memory_core.errors import MemoryServiceError
from memory_core.models import (
    CONTENT_MAX_CHARS,
    ActorKind,
    EventAction,
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    MemoryType,
    Namespace,
    NamespaceKind,
    SourceKind,
)


def namespace_for_user(*, user: Any) -> Namespace:
    """The user's personal namespace `user/<username>`, created on first use."""
    if user is None or not getattr(user, "is_authenticated", False):
        raise MemoryServiceError("A signed-in user is required.")
    namespace, _ = Namespace.objects.get_or_create(
        owner=user, kind=NamespaceKind.USER, defaults={"path": f"user/{user.get_username()}"}
    )
    return namespace


def namespace_create(*, path: str, kind: str) -> Namespace:
    """An org or agent namespace (operators); user namespaces come from `namespace_for_user`."""
    if kind == NamespaceKind.USER:
        raise MemoryServiceError("User namespaces are created for their user.")
    try:
        with transaction.atomic():
            return Namespace.objects.create(path=path, kind=kind)
    except IntegrityError as exc:
        raise MemoryServiceError(f"Invalid or duplicate namespace path {path!r}.") from exc


def event_record(
    *,
    entry: MemoryEntry,
    action: str,
    actor_kind: str,
    actor: Any = None,
    reason: str = "",
    data: dict[str, Any] | None = None,
) -> MemoryEvent:
    return MemoryEvent.objects.create(
        namespace_id=entry.namespace_id,
        entry=entry,
        entry_ref=entry.pk,
        action=action,
        actor_kind=actor_kind,
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        reason=reason,
        data=data or {},
    )


def _validate_fields(*, content: str, type: str, source_kind: str, confidence: float, importance: float) -> str:
    errors: dict[str, list[str]] = {}
    text = (content or "").strip()
    if not text:
        errors["content"] = ["This field may not be blank."]
    elif len(text) > CONTENT_MAX_CHARS:
        errors["content"] = [f"At most {CONTENT_MAX_CHARS} characters (got {len(text)})."]
    if type not in MemoryType.values:
        errors["type"] = [f"Must be one of {', '.join(MemoryType.values)}."]
    if source_kind not in SourceKind.values:
        errors["source_kind"] = [f"Must be one of {', '.join(SourceKind.values)}."]
    for name, value in (("confidence", confidence), ("importance", importance)):
        if not 0.0 <= float(value) <= 1.0:
            errors[name] = ["Must be between 0 and 1."]
    if errors:
        raise MemoryServiceError("Invalid memory.", field_errors=errors)
    return text


@transaction.atomic
def memory_create(
    *,
    namespace: Namespace,
    content: str,
    type: str = MemoryType.SEMANTIC,
    category: str = "general",
    key: str = "",
    source_kind: str = SourceKind.API_IMPORT,
    source_conversation: str = "",
    source_message_ids: list[str] | None = None,
    extractor_model: str = "",
    extractor_prompt_version: str = "",
    is_inference: bool = False,
    confidence: float = 1.0,
    importance: float = 0.5,
    pinned: bool = False,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    expires_at: datetime | None = None,
    metadata: dict[str, Any] | None = None,
    actor_kind: str = ActorKind.SYSTEM,
    actor: Any = None,
    reason: str = "",
) -> MemoryEntry:
    """Store one statement as given (no reconciliation): embedded, validated, with history.

    Procedural entries always start as pending review: only an operator makes them active.
    """
    text = _validate_fields(
        content=content, type=type, source_kind=source_kind, confidence=confidence, importance=importance
    )
    now = timezone.now()
    start = valid_from or now
    if valid_to is not None and valid_to < start:
        raise MemoryServiceError("Invalid memory.", field_errors={"valid_to": ["Must not be before valid_from."]})
    from memory_core.embeddings import get_embedder

    embedder = get_embedder()
    entry = MemoryEntry(
        namespace=namespace,
        type=type,
        category=category or "general",
        key=key or "",
        content=text,
        source_kind=source_kind,
        source_conversation=source_conversation or "",
        source_message_ids=[str(m) for m in (source_message_ids or [])],
        extractor_model=extractor_model,
        extractor_prompt_version=extractor_prompt_version,
        is_inference=is_inference,
        confidence=confidence,
        importance=importance,
        pinned=pinned,
        status=MemoryStatus.PENDING_REVIEW if type == MemoryType.PROCEDURAL else MemoryStatus.ACTIVE,
        valid_from=start,
        valid_to=valid_to,
        recorded_at=now,
        expires_at=expires_at,
        metadata=metadata or {},
        embedding=embedder.embed_query(text),
        embedding_model=embedder.name,
    )
    entry.save(force_insert=True)
    event_record(
        entry=entry,
        action=EventAction.CREATED,
        actor_kind=actor_kind,
        actor=actor,
        reason=reason,
        data={"content": text, "status": entry.status, "type": type, "key": entry.key},
    )
    return entry
