"""Writes of memories: typed, keyword-only, atomic; every change is written to the history.

Namespaces, the history record, `memory_create` (one statement stored as given) and `supersede`.
Statements from callers go through the write pipeline (`memory_core.pipeline.memory_add`),
which guards, classifies and reconciles before it calls these.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from memory_core.actors import Actor, person
from memory_core.context_vectors import context_vectors_request, deferred
from memory_core.embeddings import get_embedder, query_cache
from memory_core.errors import MemoryServiceError
from memory_core.inserts import insert_together
from memory_core.models import (
    CONTENT_MAX_CHARS,
    ActorKind,
    EventAction,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    MemoryStatus,
    MemoryType,
    Namespace,
    NamespaceKind,
    SourceKind,
)
from memory_core.reading.normalise import says_when, speaks_of_the_user, tells_a_past_state
from memory_core.search_context import clipped, context_document, pooled_context
from memory_core.validation import strip_nul

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


def default_org_namespace() -> Namespace | None:
    """`settings.DEFAULT_ORG_NAMESPACE`, made again if someone removed it since the first migrate
    created it: an operator approving a rule always has somewhere to put it."""
    path = settings.DEFAULT_ORG_NAMESPACE
    if not path:
        return None
    namespace, _ = Namespace.objects.get_or_create(path=path, defaults={"kind": NamespaceKind.ORG})
    return namespace


def event_record(
    *,
    entry: MemoryEntry,
    action: str,
    actor_kind: str,
    actor: Actor = None,
    reason: str = "",
    data: dict[str, Any] | None = None,
) -> MemoryEvent:
    return MemoryEvent.objects.create(
        namespace_id=entry.namespace_id,
        entry=entry,
        entry_ref=entry.pk,
        action=action,
        actor_kind=actor_kind,
        actor=person(actor),
        reason=strip_nul(reason),
        data=data or {},
    )


def validate_fields(
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


@dataclass(frozen=True)
class EntryDraft:
    """A statement to store with its provenance, validity window and author: the parameters of
    `memory_create`, travelling together (the write pipeline's request extends it)."""

    content: str
    type: str = MemoryType.SEMANTIC
    category: str = "general"
    key: str = ""
    source_kind: str = SourceKind.API_IMPORT
    source_conversation: str = ""
    source_message_ids: tuple[str, ...] = ()
    excerpt: str = ""
    # The conversational context a statement from a turn is indexed with (`search_context`).
    context: str = ""
    # A turn of a conversation a client stores one turn per call (`MemoryEntry.said_as_turn`).
    turn: bool = False
    extractor_model: str = ""
    extractor_prompt_version: str = ""
    is_inference: bool = False
    confidence: float = 1.0
    importance: float = 0.5
    pinned: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    # Whether it held only from `valid_from` (`MemoryEntry.start_known`); None: `start_known(draft)`.
    start_known: bool | None = None
    expires_at: datetime | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    actor_kind: str = ActorKind.SYSTEM
    actor: Actor = None


def start_known(draft: EntryDraft) -> bool:
    """Whether what a statement says began when it holds from (`valid_from`, else when it is
    recorded). Not for a statement told undated, of someone else, that says no change and no time
    ("Rebecca drives a green Volvo", "陈敏养了一只柯基"): that was true before it was told, since when
    is not known, so a question about an earlier instant may see it. A dated statement, one about
    the user (their home, job …: "I", "my", "我"), one that replaces another (a slot's new value
    is given its start by the writer) and one that says a change ("Tom moved to Leeds", "now",
    "刚") keep their start; so does a procedure. The user's own state told as past and undated
    ("My boss at Acme was Ines", "我那时的领导是…") held before it was told, since when unknown."""
    if draft.start_known is not None:
        return draft.start_known
    return (
        draft.valid_from is not None
        or draft.type == MemoryType.PROCEDURAL
        or (speaks_of_the_user(draft.content) and not tells_a_past_state(draft.content))
        or says_when(draft.content)
    )


EntryVectors = tuple[list[float], list[float]]  # (statement, context) embeddings of one entry


def entry_vectors(
    items: list[tuple[str, str, list[float] | None]],
    embedder: Any = None,
    *,
    known: Mapping[str, Sequence[float]] | None = None,
    mode: str | None = None,
) -> list[EntryVectors]:
    """The (statement, context) vectors of each (content, context, given statement vector), in ONE
    model call for every missing statement vector and context document. Without context the
    statement is its own context: both similarities stay comparable.

    With `CONTEXT_VECTOR = "pooled"` no context document is embedded: the context vector is
    `pooled_context(statement, v(context))`, v(context) taken from `known` (clipped context ->
    vector: the namespace's last turn, stored), a statement of `items` with that content, or the
    query cache; only a context found nowhere is embedded, once for every item that shares it
    (the statements of one message). With "deferred" the same, except that a context found
    nowhere is not embedded either (the statement's own vector stands in): the entry waits for
    the job of `memory_core.context_vectors`, which embeds the document. `mode` overrides the
    setting (`reembed` computes the documents' vectors itself)."""
    if embedder is None:
        embedder = get_embedder()
    mode = mode or settings.CONTEXT_VECTOR
    if mode in ("pooled", "deferred"):
        return _pooled_entry_vectors(items, embedder, known or {}, embed_contexts=mode == "pooled")
    texts: list[str] = []
    for content, context, vector in items:
        if vector is None:
            texts.append(content)
        if clipped(context):
            texts.append(context_document(clipped(context), content))
    computed = iter(embedder.embed(texts) if texts else [])
    vectors: list[EntryVectors] = []
    for _content, context, vector in items:
        statement = vector if vector is not None else next(computed)
        vectors.append((statement, next(computed) if clipped(context) else statement))
    return vectors


def _pooled_entry_vectors(
    items: list[tuple[str, str, list[float] | None]],
    embedder: Any,
    known: Mapping[str, Sequence[float]],
    *,
    embed_contexts: bool,
) -> list[EntryVectors]:
    """`entry_vectors` in the pooled and deferred modes: one model call for the missing
    statements and (`embed_contexts`) the contexts whose vector is known nowhere; without
    `embed_contexts` such a statement's own vector stands in for its context vector."""
    missing = list(dict.fromkeys(content for content, _context, vector in items if vector is None))
    contexts: dict[str, Sequence[float] | None] = {}
    batch = {clipped(content) for content, _context, _vector in items}
    for _content, context, _vector in items:
        text = clipped(context)
        if not text or text in contexts:
            continue
        cached = query_cache.get((embedder.name, embedder.dimensions, text))
        found = known.get(text, cached)
        contexts[text] = found
        if found is None and text not in batch and embed_contexts:
            missing.append(text)
    missing = list(dict.fromkeys(missing))
    fresh = dict(zip(missing, embedder.embed(missing), strict=True)) if missing else {}
    statements = [vector if vector is not None else fresh[content] for content, _context, vector in items]
    by_content = {
        clipped(content): vector for (content, _c, _v), vector in zip(items, statements, strict=True)
    }
    vectors: list[EntryVectors] = []
    for (_content, context, _vector), statement in zip(items, statements, strict=True):
        text = clipped(context)
        if not text:
            vectors.append((statement, statement))
            continue
        previous = contexts[text]
        if previous is None:
            previous = fresh.get(text, by_content.get(text))
        vectors.append((statement, statement if previous is None else pooled_context(statement, previous)))
    return vectors


def _new_entry(
    *,
    namespace: Namespace,
    draft: EntryDraft,
    status: str | None,
    vectors: EntryVectors | None,
    embedder: Any,
    now: datetime,
    embedding: list[float] | None = None,
) -> MemoryEntry:
    """The validated, unsaved entry of one draft (see `memory_create`); `vectors` from
    `entry_vectors` of its validated content, or None to embed here what `embedding` lacks."""
    text = validate_fields(
        content=draft.content,
        type=draft.type,
        source_kind=draft.source_kind,
        confidence=draft.confidence,
        importance=draft.importance,
    )
    start = draft.valid_from or now
    if draft.valid_to is not None and draft.valid_to < start:
        raise MemoryServiceError(
            "Invalid memory.", field_errors={"valid_to": ["Must not be before valid_from."]}
        )
    if status is None:
        status = MemoryStatus.PENDING_REVIEW if draft.type == MemoryType.PROCEDURAL else MemoryStatus.ACTIVE
    elif draft.type == MemoryType.PROCEDURAL and status == MemoryStatus.ACTIVE:
        raise MemoryServiceError("A procedure becomes active only when an operator approves it.")
    context = clipped(draft.context)
    vector, context_vector = vectors or entry_vectors([(text, context, embedding)], embedder)[0]
    return MemoryEntry(
        namespace=namespace,
        type=draft.type,
        category=draft.category or "general",
        key=draft.key or "",
        content=text,
        source_kind=draft.source_kind,
        source_conversation=draft.source_conversation or "",
        source_message_ids=[str(m) for m in draft.source_message_ids],
        extractor_model=draft.extractor_model,
        extractor_prompt_version=draft.extractor_prompt_version,
        is_inference=draft.is_inference,
        confidence=draft.confidence,
        importance=draft.importance,
        pinned=draft.pinned,
        status=status,
        valid_from=start,
        valid_to=draft.valid_to,
        start_known=start_known(draft),
        recorded_at=now,
        expires_at=draft.expires_at,
        metadata=dict(draft.metadata or {}),
        embedding=vector,
        embedding_model=embedder.name,
        search_context=context,
        context_embedding=context_vector,
        # Its context document's own vector comes later (`memory_core.context_vectors`).
        context_pending=bool(context) and deferred(),
        said_as_turn=draft.turn,
    )


def _evidence(entry: MemoryEntry, draft: EntryDraft) -> MemoryEvidence:
    return MemoryEvidence(
        entry=entry,
        source_kind=draft.source_kind,
        source_conversation=entry.source_conversation,
        source_message_ids=list(entry.source_message_ids),
        excerpt=draft.excerpt[:500],
        confidence=draft.confidence,
    )


def _created_event(entry: MemoryEntry, draft: EntryDraft, reason: str) -> MemoryEvent:
    actor = draft.actor
    return MemoryEvent(
        namespace_id=entry.namespace_id,
        entry=entry,
        entry_ref=entry.pk,
        action=EventAction.CREATED,
        actor_kind=draft.actor_kind,
        actor=person(actor),
        reason=strip_nul(reason),
        data={"content": entry.content, "status": entry.status, "type": draft.type, "key": entry.key},
    )


@transaction.atomic
def memory_create(
    *,
    namespace: Namespace,
    draft: EntryDraft,
    reason: str = "",
    status: str | None = None,
    embedding: list[float] | None = None,
) -> MemoryEntry:
    """Store one statement as given (no reconciliation): embedded, validated, with history.

    Procedural entries always start as pending review: only an operator makes them active.
    """
    return memory_insert(namespace=namespace, draft=draft, reason=reason, status=status, embedding=embedding)


def memory_insert(
    *,
    namespace: Namespace,
    draft: EntryDraft,
    reason: str = "",
    status: str | None = None,
    vectors: EntryVectors | None = None,
    embedding: list[float] | None = None,
) -> MemoryEntry:
    """`memory_create` inside the caller's transaction (the write pipeline holds one: no savepoint)."""
    entry = _new_entry(
        namespace=namespace,
        draft=draft,
        status=status,
        vectors=vectors,
        embedder=get_embedder(),
        now=timezone.now(),
        embedding=embedding,
    )
    insert_together(entry, _evidence(entry, draft), _created_event(entry, draft, reason))
    if entry.context_pending:
        context_vectors_request(held=getattr(namespace, "context_run_held", False))
    return entry


def memory_create_many(
    *, namespace: Namespace, drafts: Sequence[tuple[EntryDraft, EntryVectors, str]]
) -> list[MemoryEntry]:
    """`memory_create` for several drafts, each with its `entry_vectors` and history reason, at once:
    one INSERT each for the entries, their evidence and their history (the write pipeline's
    batches). Validation runs first; the inserts join the caller's transaction (no savepoint)."""
    embedder = get_embedder()
    now = timezone.now()
    entries = [
        _new_entry(namespace=namespace, draft=draft, status=None, vectors=vectors, embedder=embedder, now=now)
        for draft, vectors, _ in drafts
    ]
    with transaction.atomic(savepoint=False):
        MemoryEntry.objects.bulk_create(entries)
        MemoryEvidence.objects.bulk_create(
            _evidence(entry, draft) for entry, (draft, _, _) in zip(entries, drafts, strict=True)
        )
        MemoryEvent.objects.bulk_create(
            _created_event(entry, draft, reason)
            for entry, (draft, _, reason) in zip(entries, drafts, strict=True)
        )
    if any(entry.context_pending for entry in entries):
        context_vectors_request(held=getattr(namespace, "context_run_held", False))
    return entries


def supersede(
    old: MemoryEntry,
    *,
    by: MemoryEntry,
    at: datetime,
    actor_kind: str,
    actor: Actor = None,
    reason: str,
    action: str = EventAction.SUPERSEDED,
) -> None:
    """`by` replaces `old` from `at` on: the old window is closed there and both are linked.

    The one place an entry is superseded (updates, corrections, operator edits); a correction
    passes `at=old.valid_from`, an empty window, because the old statement was never true.
    """
    by.supersedes = old
    by.save(update_fields=["supersedes", "updated_at"])
    old.status = MemoryStatus.SUPERSEDED
    old.valid_to = max(at, old.valid_from)
    old.expired_at = timezone.now()
    old.superseded_by = by
    # An empty window is never true: not even from an unknown start (`start_known`).
    old.start_known = old.start_known or old.valid_to == old.valid_from
    old.save(update_fields=["status", "valid_to", "expired_at", "superseded_by", "start_known", "updated_at"])
    link = "corrected_by" if action == EventAction.CORRECTED else "superseded_by"
    event_record(
        entry=old,
        action=action,
        actor_kind=actor_kind,
        actor=actor,
        reason=reason,
        data={"status": old.status, "valid_to": old.valid_to.isoformat(), link: str(by.pk)},
    )
