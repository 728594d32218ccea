"""Writes of memories: typed, keyword-only, atomic; every change is written to the history.

`memory_add` is the write path's decision: validate a candidate statement, then ADD, MERGE,
SUPERSEDE or IGNORE it against what the namespace already holds.

- Secrets are never stored: the attempt is refused and flagged (redacted) for operators.
- Procedures (and any rule that would weaken a policy) wait in `pending_review`; weakening
  attempts are flagged. Only procedures and statements that read as a rule or instruction count
  (`guards.policy.weakens_policy`): "the user no longer has to work weekends" stays a plain fact.
- Extracted candidates below `EXTRACTION_MIN_CONFIDENCE` are ignored.
- A near-duplicate (same type, cosine similarity >= `MERGE_SIMILARITY`, or the same text) is
  MERGED: one entry, with one more piece of evidence, confidence combined as a noisy-or.
- A different statement for the same `key` SUPERSEDES the current one for objective facts (the
  newer in world time wins: the old window is closed and both are linked). For preferences one
  contrary mention does not overturn a preference stated repeatedly: both are kept.
- Re-running the same source (same conversation, messages and text) is IGNORED, so jobs are
  idempotent; a row lock on the namespace serialises concurrent writers of one namespace.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from pgvector.django import CosineDistance

from memory_core.errors import MemoryServiceError
from memory_core.guards.policy import weakens_policy
from memory_core.guards.secrets import scan_secrets
from memory_core.models import (
    CONTENT_MAX_CHARS,
    ActorKind,
    EventAction,
    FlaggedWrite,
    FlagKind,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    MemoryStatus,
    MemoryType,
    Namespace,
    NamespaceKind,
    SourceKind,
)
from memory_core.validation import negated, normalise, strip_nul

_PATH_SEGMENT = re.compile(r"[A-Za-z0-9_.@+-]{1,150}")
_PATH_SEGMENT_MAX = 150


def _user_path(user: Any) -> str:
    """`user/<username>` when the username fits the path format and is free, else an ASCII slug of
    it plus the user id (`user/jose.42` for "josé"): always valid, unique in practice."""
    username = str(user.get_username() or "")
    suffix = f".{user.pk}"
    if _PATH_SEGMENT.fullmatch(username):
        candidates = [username, username[: _PATH_SEGMENT_MAX - len(suffix)] + suffix]
    else:
        ascii_name = unicodedata.normalize("NFKD", username).encode("ascii", "ignore").decode()
        slug = re.sub(r"[^A-Za-z0-9_.@+-]+", "-", ascii_name).strip("-.") or "user"
        candidates = [slug[: _PATH_SEGMENT_MAX - len(suffix)] + suffix]
    for segment in candidates:
        if not Namespace.objects.filter(path=f"user/{segment}").exists():
            return f"user/{segment}"
    # Taken by someone else (another user's slug or an org/agent): fall back on the id, which
    # only this user has; a suffix keeps it free of any path someone chose.
    for attempt in range(1, 100):
        segment = f"u{user.pk}-{attempt}"
        if not Namespace.objects.filter(path=f"user/{segment}").exists():
            return f"user/{segment}"
    raise MemoryServiceError("Could not name the user's memory namespace.")


def namespace_for_user(*, user: Any) -> Namespace:
    """The user's personal namespace, created on first use (and returned unchanged afterwards).

    Its path is `user/<username>`, or a valid, unique variant of it when the username holds
    characters the path format does not allow (Django allows any Unicode letter) or the path is
    taken: see `_user_path`.
    """
    if user is None or not getattr(user, "is_authenticated", False):
        raise MemoryServiceError("A signed-in user is required.")
    existing = Namespace.objects.filter(owner=user, kind=NamespaceKind.USER).first()
    if existing is not None:
        return existing
    for _ in range(3):
        try:
            namespace, _created = Namespace.objects.get_or_create(
                owner=user, kind=NamespaceKind.USER, defaults={"path": _user_path(user)}
            )
            return namespace
        except IntegrityError:
            # Someone else took the path between the check and the insert: name it again.
            continue
    raise MemoryServiceError("Could not create the user's memory namespace.")


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
        reason=strip_nul(reason),
        data=data or {},
    )


def _validate_fields(
    *, content: str, type: str, source_kind: str, confidence: float, importance: float
) -> str:
    errors: dict[str, list[str]] = {}
    text = strip_nul(content or "").strip()  # PostgreSQL text cannot hold NUL
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
    excerpt: str = "",
    status: str | None = None,
    embedding: list[float] | None = None,
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
        raise MemoryServiceError(
            "Invalid memory.", field_errors={"valid_to": ["Must not be before valid_from."]}
        )
    from memory_core.embeddings import get_embedder

    embedder = get_embedder()
    if status is None:
        status = MemoryStatus.PENDING_REVIEW if type == MemoryType.PROCEDURAL else MemoryStatus.ACTIVE
    elif type == MemoryType.PROCEDURAL and status == MemoryStatus.ACTIVE:
        raise MemoryServiceError("A procedure becomes active only when an operator approves it.")
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
        status=status,
        valid_from=start,
        valid_to=valid_to,
        recorded_at=now,
        expires_at=expires_at,
        metadata=metadata or {},
        embedding=embedding if embedding is not None else embedder.embed_query(text),
        embedding_model=embedder.name,
    )
    entry.save(force_insert=True)
    MemoryEvidence.objects.create(
        entry=entry,
        source_kind=source_kind,
        source_conversation=entry.source_conversation,
        source_message_ids=entry.source_message_ids,
        excerpt=excerpt[:500],
        confidence=confidence,
    )
    event_record(
        entry=entry,
        action=EventAction.CREATED,
        actor_kind=actor_kind,
        actor=actor,
        reason=reason,
        data={"content": text, "status": entry.status, "type": type, "key": entry.key},
    )
    return entry


PREFERENCE_CATEGORIES = {"preference"}


@dataclass(frozen=True)
class AddOutcome:
    action: str  # "added" | "merged" | "superseded" | "ignored" | "pending_review" | "rejected"
    entry: MemoryEntry | None
    replaced: MemoryEntry | None = None
    reason: str = ""
    flagged: bool = False


def _merge_similarity() -> float:
    return float(getattr(settings, "MERGE_SIMILARITY", 0.9))


def _min_confidence() -> float:
    return float(getattr(settings, "EXTRACTION_MIN_CONFIDENCE", 0.6))


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _is_duplicate(existing: MemoryEntry, *, text: str, key: str, similarity: float) -> bool:
    """Same statement, or a paraphrase of it. Embeddings alone confuse "34 years old" with "35",
    "allergic" with "not allergic" and "backend" with "frontend" engineer, so numbers and negation
    must agree, and a statement for the same key slot must be almost identical to count as a
    duplicate (else it is an update)."""
    if normalise(existing.content) == normalise(text):
        return True
    if set(_NUMBER.findall(existing.content)) != set(_NUMBER.findall(text)):
        return False
    if negated(existing.content) != negated(text):
        return False
    if key and existing.key == key:
        return similarity >= float(getattr(settings, "MERGE_SIMILARITY_SAME_KEY", 0.97))
    return similarity >= _merge_similarity()


def _same_source(entry: MemoryEntry, conversation: str, message_ids: list[str]) -> bool:
    """Whether this exact observation is already part of the entry's evidence."""
    if not conversation:
        return False
    return entry.evidence.filter(source_conversation=conversation, source_message_ids=message_ids).exists()


def _merge(
    *,
    entry: MemoryEntry,
    source_kind: str,
    conversation: str,
    message_ids: list[str],
    confidence: float,
    importance: float,
    pinned: bool,
    excerpt: str,
    content: str,
    actor_kind: str,
    actor: Any,
) -> AddOutcome:
    MemoryEvidence.objects.create(
        entry=entry,
        source_kind=source_kind,
        source_conversation=conversation,
        source_message_ids=message_ids,
        excerpt=excerpt[:500],
        confidence=confidence,
    )
    entry.evidence_count += 1
    entry.confidence = round(1 - (1 - entry.confidence) * (1 - confidence), 4)
    entry.importance = max(entry.importance, importance)
    entry.pinned = entry.pinned or pinned
    entry.save(update_fields=["evidence_count", "confidence", "importance", "pinned", "updated_at"])
    event_record(
        entry=entry,
        action=EventAction.MERGED,
        actor_kind=actor_kind,
        actor=actor,
        reason="The same statement was observed again.",
        data={"content": content, "evidence_count": entry.evidence_count, "confidence": entry.confidence},
    )
    return AddOutcome("merged", entry, reason="duplicate of an existing memory")


def _close(
    old: MemoryEntry, *, at: datetime, by: MemoryEntry, actor_kind: str, actor: Any, reason: str
) -> None:
    old.status = MemoryStatus.SUPERSEDED
    old.valid_to = max(at, old.valid_from)
    old.expired_at = timezone.now()
    old.superseded_by = by
    old.save(update_fields=["status", "valid_to", "expired_at", "superseded_by", "updated_at"])
    event_record(
        entry=old,
        action=EventAction.SUPERSEDED,
        actor_kind=actor_kind,
        actor=actor,
        reason=reason,
        data={"status": old.status, "valid_to": old.valid_to.isoformat(), "superseded_by": str(by.pk)},
    )


def memory_add(
    *,
    namespace: Namespace,
    content: str,
    type: str = MemoryType.SEMANTIC,
    category: str = "general",
    key: str = "",
    source_kind: str = SourceKind.API_IMPORT,
    source_conversation: str = "",
    source_message_ids: list[str] | None = None,
    confidence: float = 1.0,
    importance: float = 0.5,
    pinned: bool = False,
    is_inference: bool = False,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    expires_at: datetime | None = None,
    metadata: dict[str, Any] | None = None,
    extractor_model: str = "",
    extractor_prompt_version: str = "",
    actor_kind: str = ActorKind.SYSTEM,
    actor: Any = None,
    excerpt: str = "",
    embedding: list[float] | None = None,
) -> AddOutcome:
    """Validate a statement and reconcile it with the namespace's memories (see module docstring).

    `embedding` lets batch callers embed many statements in one model call; it must be the
    current embedder's vector of the stripped content.
    """
    text = _validate_fields(
        content=content, type=type, source_kind=source_kind, confidence=confidence, importance=importance
    )
    message_ids = [str(m) for m in (source_message_ids or [])]
    conversation = source_conversation or ""

    secrets = scan_secrets(text)
    if secrets.found:
        FlaggedWrite.objects.create(
            namespace=namespace,
            kind=FlagKind.SECRET_DROPPED,
            excerpt=secrets.redacted[:500],
            source_kind=source_kind,
            source_conversation=conversation,
            source_message_ids=message_ids,
        )
        return AddOutcome(
            "rejected", None, reason=f"contains a secret ({', '.join(secrets.kinds)})", flagged=True
        )

    if source_kind == SourceKind.EXTRACTED and confidence < _min_confidence():
        return AddOutcome("ignored", None, reason=f"confidence {confidence:.2f} below the threshold")

    weakening = weakens_policy(text, type=type) and source_kind != SourceKind.OPERATOR
    if weakening:
        # A rule, whatever the caller called it: it waits for an operator like any procedure.
        type, category = MemoryType.PROCEDURAL, "sop"

    from memory_core.embeddings import get_embedder

    if embedding is None:
        embedding = get_embedder().embed_query(text)  # before taking the lock: keeps it short
    start = valid_from or timezone.now()
    fields = {
        "namespace": namespace,
        "content": text,
        "type": type,
        "category": category,
        "key": key,
        "source_kind": source_kind,
        "source_conversation": conversation,
        "source_message_ids": message_ids,
        "extractor_model": extractor_model,
        "extractor_prompt_version": extractor_prompt_version,
        "is_inference": is_inference,
        "confidence": confidence,
        "importance": importance,
        "pinned": pinned,
        "valid_from": start,
        "valid_to": valid_to,
        "expires_at": expires_at,
        "metadata": metadata,
        "actor_kind": actor_kind,
        "actor": actor,
        "excerpt": excerpt,
        "embedding": embedding,
    }
    merge_args = {
        "source_kind": source_kind,
        "conversation": conversation,
        "message_ids": message_ids,
        "confidence": confidence,
        "importance": importance,
        "pinned": pinned,
        "excerpt": excerpt,
        "content": text,
        "actor_kind": actor_kind,
        "actor": actor,
    }

    with transaction.atomic():
        # One writer per namespace at a time: two workers cannot both decide "ADD".
        Namespace.objects.select_for_update().filter(pk=namespace.pk).first()
        live = MemoryEntry.objects.in_namespaces([namespace.pk]).filter(type=type)
        if type == MemoryType.PROCEDURAL:
            live = live.filter(status__in=[MemoryStatus.ACTIVE, MemoryStatus.PENDING_REVIEW])
        else:
            live = live.current()

        nearest = (
            live.exclude(embedding__isnull=True)
            .annotate(distance=CosineDistance("embedding", embedding))
            .order_by("distance")
            .first()
        )
        duplicate = None
        if nearest is not None:
            similarity = 1 - float(nearest.distance)
            if _is_duplicate(nearest, text=text, key=key, similarity=similarity):
                duplicate = nearest
        if duplicate is None:
            same_text = [e for e in live.filter(content__iexact=text)[:1]]
            duplicate = same_text[0] if same_text else None

        if duplicate is not None:
            if _same_source(duplicate, conversation, message_ids):
                return AddOutcome("ignored", duplicate, reason="already recorded from this source")
            return _merge(entry=duplicate, **merge_args)

        if type == MemoryType.PROCEDURAL:
            entry = memory_create(
                **fields, status=MemoryStatus.PENDING_REVIEW, reason="Awaiting operator review."
            )
            if weakening:
                FlaggedWrite.objects.create(
                    namespace=namespace,
                    kind=FlagKind.POLICY_WEAKENING,
                    excerpt=text[:500],
                    entry=entry,
                    source_kind=source_kind,
                    source_conversation=conversation,
                    source_message_ids=message_ids,
                )
                event_record(
                    entry=entry,
                    action=EventAction.FLAGGED,
                    actor_kind=ActorKind.SYSTEM,
                    reason="This rule would weaken a policy; an operator must review it.",
                )
            return AddOutcome(
                "pending_review", entry, reason="procedures need operator approval", flagged=weakening
            )

        slot = live.filter(key=key).exclude(key="").order_by("-valid_from").first() if key else None
        if slot is None:
            entry = memory_create(**fields)
            return AddOutcome("added", entry)

        if (
            category in PREFERENCE_CATEGORIES
            and slot.evidence_count >= 2
            and source_kind != SourceKind.USER_CORRECTION
        ):
            meta = dict(metadata or {})
            meta.setdefault("contrasts_with", str(slot.pk))
            fields["metadata"] = meta
            entry = memory_create(
                **fields,
                reason="A contrary mention of a repeated preference; both are kept with their scenario.",
            )
            return AddOutcome("added", entry, reason="kept alongside a repeated preference")

        if start < slot.valid_from:
            # Older news about the world arriving late: it held before the current entry, not after.
            fields["valid_to"] = slot.valid_from
            entry = memory_create(
                **fields, status=MemoryStatus.SUPERSEDED, reason="Held before the current value."
            )
            MemoryEntry.objects.filter(pk=entry.pk).update(superseded_by=slot, expired_at=timezone.now())
            return AddOutcome("added", entry, reason="recorded as history: the current value is newer")

        entry = memory_create(**fields, reason=f"Replaces the previous value of {key!r}.")
        entry.supersedes = slot
        entry.save(update_fields=["supersedes", "updated_at"])
        _close(
            slot,
            at=start,
            by=entry,
            actor_kind=actor_kind,
            actor=actor,
            reason=f"Replaced by a newer {key!r}.",
        )
        return AddOutcome("superseded", entry, replaced=slot)

