"""Operator moderation of procedural memories (SOPs) and of flagged write attempts.

Operators are active staff with `memory_core.moderate_memories`; every function checks it and
raises PermissionDenied otherwise. Their wider access is limited to what moderation needs:
procedural entries and flags, never users' semantic or episodic memories.

Approved SOPs belong to an org or agent namespace (users' assistants read them through a
NamespaceGrant, read-only). Approving a proposal that lives in a user's namespace therefore COPIES
it into the chosen org/agent namespace as a new, active entry (source "operator"); the proposal is
superseded by the copy and keeps its own history, so the user can still see and erase it without
the org losing its SOP. A new SOP with the key of an active one in the same namespace is its next
version: the old one is superseded (window closed, linked both ways).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Count, QuerySet
from django.utils import timezone

from memory_core import judgement
from memory_core.embeddings import get_embedder
from memory_core.errors import MemoryServiceError, NotFound, PermissionDenied
from memory_core.locks import lock_namespace
from memory_core.models import (
    CONTENT_MAX_CHARS,
    ActorKind,
    EventAction,
    FlaggedWrite,
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    MemoryType,
    Namespace,
    NamespaceGrant,
    NamespaceKind,
    SourceKind,
    TombstoneReason,
)
from memory_core.selectors import parse_uuid
from memory_core.services import EntryDraft, event_record, memory_create, supersede
from memory_core.tombstones import tombstones_record
from memory_core.validation import strip_nul
from memory_core.webhooks.announce import announce_approved, announce_rejected

MODERATE_PERMISSION = "memory_core.moderate_memories"


def is_operator(user: Any) -> bool:
    return bool(
        user is not None
        and getattr(user, "is_authenticated", False)
        and user.is_active
        and user.is_staff
        and user.has_perm(MODERATE_PERMISSION)
    )


def _require_operator(operator: Any) -> None:
    if not is_operator(operator):
        raise PermissionDenied("Only operators may moderate procedures.")


def _clean_content(content: str) -> str:
    text = strip_nul(content or "").strip()  # PostgreSQL text cannot hold NUL
    if not text:
        raise MemoryServiceError(
            "Invalid procedure.", field_errors={"content": ["This field may not be blank."]}
        )
    if len(text) > CONTENT_MAX_CHARS:
        raise MemoryServiceError(
            "Invalid procedure.", field_errors={"content": [f"At most {CONTENT_MAX_CHARS} characters."]}
        )
    if judgement.secrets(text).found:
        raise MemoryServiceError(
            "Secrets are never stored.", field_errors={"content": ["This looks like a secret."]}
        )
    return text


def _shared_namespace(path: str) -> Namespace:
    path = strip_nul(path)
    namespace = Namespace.objects.filter(path=path).exclude(kind=NamespaceKind.USER).first()
    if namespace is None:
        raise MemoryServiceError(
            "Approved procedures belong to an existing org or agent namespace.",
            field_errors={"namespace_path": [f"No org or agent namespace {path!r}."]},
        )
    return namespace


# --- Reads ---------------------------------------------------------------------------------------


def pending_procedures(*, operator: Any) -> QuerySet[MemoryEntry]:
    """Procedures waiting for review, from every namespace, oldest first."""
    _require_operator(operator)
    return (
        MemoryEntry.objects.filter(type=MemoryType.PROCEDURAL, status=MemoryStatus.PENDING_REVIEW)
        .select_related("namespace")
        .prefetch_related("flags")
        .defer("embedding", "search_vector")
        .order_by("recorded_at", "id")
    )


def current_procedures(*, operator: Any) -> QuerySet[MemoryEntry]:
    """The active SOPs of org and agent namespaces, by namespace and key."""
    _require_operator(operator)
    return (
        MemoryEntry.objects.filter(type=MemoryType.PROCEDURAL, status=MemoryStatus.ACTIVE)
        .exclude(namespace__kind=NamespaceKind.USER)
        .select_related("namespace")
        .defer("embedding", "search_vector")
        .order_by("namespace__path", "key", "-recorded_at")
    )


def shared_namespaces(*, operator: Any) -> QuerySet[Namespace]:
    _require_operator(operator)
    # `members`: the users whose assistants read the namespace's approved procedures.
    return (
        Namespace.objects.exclude(kind=NamespaceKind.USER)
        .annotate(members=Count("grants", distinct=True))
        .order_by("path")
    )


def flagged_writes(*, operator: Any, include_dismissed: bool = False) -> QuerySet[FlaggedWrite]:
    _require_operator(operator)
    flags = FlaggedWrite.objects.select_related("namespace", "dismissed_by").order_by("-created_at")
    return flags if include_dismissed else flags.filter(dismissed_at__isnull=True)


def _pending_for_update(memory_id: Any) -> MemoryEntry:
    pk = parse_uuid(memory_id)
    entry = (
        MemoryEntry.objects.select_for_update(of=("self",))
        .select_related("namespace")
        .filter(pk=pk, type=MemoryType.PROCEDURAL, status=MemoryStatus.PENDING_REVIEW)
        .first()
        if pk is not None
        else None
    )
    if entry is None:
        raise NotFound("No procedure pending review with this id.")
    return entry


# --- Writes --------------------------------------------------------------------------------------


def _activate(entry: MemoryEntry, operator: Any) -> None:
    entry.status = MemoryStatus.ACTIVE
    entry.approved_at = timezone.now()
    entry.approved_by = operator
    entry.save(update_fields=["status", "approved_at", "approved_by", "updated_at"])


def _supersede_previous(new: MemoryEntry, operator: Any) -> None:
    """The active SOP with the same key in the namespace is the previous version of `new`."""
    if not new.key:
        return
    previous = (
        MemoryEntry.objects.select_for_update()
        .filter(
            namespace_id=new.namespace_id, type=MemoryType.PROCEDURAL, status=MemoryStatus.ACTIVE, key=new.key
        )
        .exclude(pk=new.pk)
    )
    for old in previous:
        supersede(
            old,
            by=new,
            at=new.valid_from,
            actor_kind=ActorKind.OPERATOR,
            actor=operator,
            reason=f"Replaced by a new version of {new.key!r}.",
        )


@transaction.atomic
def procedure_approve(
    *,
    operator: Any,
    memory_id: Any,
    content: str | None = None,
    namespace_path: str | None = None,
    reason: str = "",
) -> MemoryEntry:
    """Approve a pending procedure (optionally edited first); returns the active SOP."""
    _require_operator(operator)
    entry = _pending_for_update(memory_id)
    target = entry.namespace if namespace_path in (None, "", entry.namespace.path) else None
    if target is None:
        target = _shared_namespace(str(namespace_path))
    if target.kind == NamespaceKind.USER:
        raise MemoryServiceError(
            "Approved procedures belong to an org or agent namespace: choose one.",
            field_errors={"namespace_path": ["Choose an org or agent namespace."]},
        )
    text = _clean_content(content) if content is not None and content.strip() else entry.content
    edited = text != entry.content
    edit = {"before": entry.content, "after": text} if edited else {}

    if target.pk == entry.namespace_id:
        if edited:
            embedder = get_embedder()
            entry.content, entry.embedding, entry.embedding_model = (
                text,
                embedder.embed_query(text),
                embedder.name,
            )
            entry.save(update_fields=["content", "embedding", "embedding_model", "updated_at"])
        approved = entry
    else:
        approved = memory_create(
            namespace=target,
            reason="Approved from a proposal.",
            draft=EntryDraft(
                content=text,
                type=MemoryType.PROCEDURAL,
                category=entry.category or "sop",
                key=entry.key,
                source_kind=SourceKind.OPERATOR,
                importance=entry.importance,
                # The id only: the org's copy must not point into a user's conversations.
                metadata={"proposed_as": str(entry.pk)},
                actor_kind=ActorKind.OPERATOR,
                actor=operator,
            ),
        )
    _activate(approved, operator)
    _supersede_previous(approved, operator)
    data: dict[str, Any] = {"content": text, "namespace": target.path, "edited": edited}
    if approved is entry:
        data.update(edit)
    event_record(
        entry=approved,
        action=EventAction.APPROVED,
        actor_kind=ActorKind.OPERATOR,
        actor=operator,
        reason=reason,
        data=data,
    )
    if approved is not entry:
        # The proposal keeps the wording it had (before/after), in its own, erasable history.
        entry.status = MemoryStatus.SUPERSEDED
        entry.superseded_by = approved
        entry.expired_at = timezone.now()
        entry.save(update_fields=["status", "superseded_by", "expired_at", "updated_at"])
        event_record(
            entry=entry,
            action=EventAction.APPROVED,
            actor_kind=ActorKind.OPERATOR,
            actor=operator,
            reason=reason,
            data={"approved_as": str(approved.pk), "namespace": target.path, **edit},
        )
    if (
        entry.namespace.kind == NamespaceKind.USER
        and entry.namespace.owner_id
        and target.pk != entry.namespace_id
    ):
        # Whoever proposed a rule is in the scope it was approved into: they were told "approved",
        # and their chats read the namespaces granted to them (`recall.scope`), nothing else.
        NamespaceGrant.objects.get_or_create(namespace=target, user_id=entry.namespace.owner_id)
    announce_approved(approved=approved, proposal=entry)
    return approved


@transaction.atomic
def procedure_reject(*, operator: Any, memory_id: Any, reason: str) -> MemoryEntry:
    _require_operator(operator)
    why = (reason or "").strip()
    if not why:
        raise MemoryServiceError(
            "A rejection needs a reason.", field_errors={"reason": ["This field is required."]}
        )
    entry = _pending_for_update(memory_id)
    entry.status = MemoryStatus.REJECTED
    entry.expired_at = timezone.now()
    entry.save(update_fields=["status", "expired_at", "updated_at"])
    # A rejected rule is not queued again when the same conversation is mined again.
    tombstones_record(entries=[entry], reason=TombstoneReason.REJECTED)
    event_record(
        entry=entry,
        action=EventAction.REJECTED,
        actor_kind=ActorKind.OPERATOR,
        actor=operator,
        reason=why,
        data={"status": entry.status},
    )
    announce_rejected(entry=entry, reason=why)
    return entry


@transaction.atomic
def procedure_create(
    *, operator: Any, namespace_path: str, content: str, category: str = "sop", key: str = ""
) -> MemoryEntry:
    """An operator writes an SOP straight into an org or agent namespace (a new version of `key`)."""
    _require_operator(operator)
    target = _shared_namespace(namespace_path)
    text = _clean_content(content)
    lock_namespace(target.pk)
    entry = memory_create(
        namespace=target,
        reason="Written by an operator.",
        draft=EntryDraft(
            content=text,
            type=MemoryType.PROCEDURAL,
            category=strip_nul(category or "sop").strip()[:40],
            key=strip_nul(key or "").strip()[:120],
            source_kind=SourceKind.OPERATOR,
            importance=0.7,
            actor_kind=ActorKind.OPERATOR,
            actor=operator,
        ),
    )
    _activate(entry, operator)
    _supersede_previous(entry, operator)
    event_record(
        entry=entry,
        action=EventAction.APPROVED,
        actor_kind=ActorKind.OPERATOR,
        actor=operator,
        data={"content": text, "namespace": target.path},
    )
    announce_approved(approved=entry)
    return entry


@transaction.atomic
def flag_dismiss(*, operator: Any, flag_id: Any) -> FlaggedWrite:
    _require_operator(operator)
    try:
        pk = int(flag_id)
    except (TypeError, ValueError):
        raise NotFound("Flag not found.") from None
    flag = FlaggedWrite.objects.select_for_update().filter(pk=pk).first()
    if flag is None:
        raise NotFound("Flag not found.")
    if flag.dismissed_at is None:
        flag.dismissed_at, flag.dismissed_by = timezone.now(), operator
        flag.save(update_fields=["dismissed_at", "dismissed_by"])
    return flag


def rule_decisions(*, user: Any, days: int = 30, after_id: int = 0) -> QuerySet[MemoryEvent]:
    """Operators' recent decisions (approved, rejected) on rules `user` asked to remember, newest
    first; `after_id` leaves out those already shown."""
    since = timezone.now() - timedelta(days=days)
    return (
        MemoryEvent.objects.filter(
            namespace__in=Namespace.objects.owned_by(user),
            action__in=[EventAction.APPROVED, EventAction.REJECTED],
            actor_kind=ActorKind.OPERATOR,
            created_at__gte=since,
            entry__isnull=False,
            pk__gt=after_id,
        )
        .select_related("entry")
        .defer("entry__embedding", "entry__search_vector")
        .order_by("-created_at", "-id")[:10]
    )
