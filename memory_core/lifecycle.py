"""The user's control over their own memories: correct, hide, erase, export, pause, activity log.

Entries are reached through `memory_access` (404 alike for missing and someone else's) and only
entries in a namespace the actor owns may change: procedures shared with the user by an org or
agent namespace are visible but read-only (PermissionDenied).

Correction: a correction says the old statement was never true (an update, by contrast, says the
world changed). So the new version (source "user_correction", same type, category and key) takes
over the old one's whole validity window, and the old window is closed at its own `valid_from`
(empty): point-in-time recall then never answers with the wrong statement, for any instant.
A correction that reads as a rule is treated as `memory_add` treats one (`guards.policy`): the new
version is a procedural entry pending operator review, flagged when it would weaken a policy
("refunds no longer need approval"), so no assistant uses it before an operator approved it (the
old version is still superseded: the user said it was wrong). Kept rather than refused so the
attempt is visible to operators and the user's wording is not lost.

Hiding ("don't use this") keeps the entry, never recalled, until the user allows it again; the
same statement said again merges into the hidden entry (it stays hidden). Corrected-away and
hidden statements leave content-free tombstones (`memory_core.tombstones`), so re-extracting the
messages they came from does not learn them again.

Erasure is a hard delete of an entry and of every OLDER version of it (what it superseded,
transitively: they carry the same personal data, e.g. "lived in Beijing" behind "lives in
Shanghai"); newer versions stay. With the rows go their embeddings, full-text vectors, evidence
and recall-log rows (cascade). The text is removed everywhere else too:
- history: the entries' events stay as content-free tombstones (`data` = {}, no reason, entry
  unlinked), plus one "erased" event each;
- flagged writes that point to the entries or quote their text are deleted;
- evidence excerpts of OTHER entries quoting the same source messages are blanked;
- extraction payloads: finished jobs that used the entries' source conversations or quote the
  text lose their whole payload (it has served its purpose); queued, running or failed jobs lose
  the matching messages only, so the rest of the conversation is still learned but the erased
  fact is not learned again. Queued django-q tasks carry only the job id (see
  `extraction.extraction_enqueue`), never text;
- admin log rows naming the entries are renamed to their id.
Locks: the namespace's unfinished extraction jobs, then the namespace (the order extraction
uses). Extraction holds no lock while the model answers; it re-reads its job before writing, so
a payload scrubbed meanwhile is never written back into memory.
Not reachable from SQL, but worth knowing: PostgreSQL keeps dead row versions until VACUUM.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from memory_core.errors import MemoryServiceError, PermissionDenied
from memory_core.guards.policy import policy_check
from memory_core.guards.secrets import scan_secrets
from memory_core.models import (
    ActorKind,
    EventAction,
    ExtractionJob,
    ExtractionStatus,
    FlaggedWrite,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    MemoryStatus,
    MemoryType,
    Namespace,
    RecallLog,
    SourceKind,
    TombstoneReason,
)
from memory_core.pipeline import flag_policy, lock_namespace, scrub
from memory_core.selectors import memory_access, memory_versions
from memory_core.services import event_record, memory_create, namespace_for_user, supersede
from memory_core.tombstones import tombstone_lift, tombstones_record
from memory_core.validation import normalise, strip_nul

CORRECTABLE_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.HIDDEN, MemoryStatus.PENDING_REVIEW)
ERASED_REASON = "Erased at the user's request."


def _own_entry(*, actor: Any, memory_id: Any) -> MemoryEntry:
    entry = memory_access(actor=actor, memory_id=memory_id)
    if entry.namespace.owner_id != actor.pk:
        raise PermissionDenied("Shared procedures are read-only; an operator maintains them.")
    return entry


def _locked(*, actor: Any, memory_id: Any) -> MemoryEntry:
    """The actor's own entry, re-read under the namespace lock that `memory_add` takes too."""
    entry = _own_entry(actor=actor, memory_id=memory_id)
    lock_namespace(entry.namespace_id)
    return MemoryEntry.objects.select_related("namespace").select_for_update(of=("self",)).get(pk=entry.pk)


# --- Correct, hide -----------------------------------------------------------------------------


@transaction.atomic
def memory_correct(*, actor: Any, memory_id: Any, content: str, reason: str = "") -> MemoryEntry:
    """Replace a wrong statement by the user's own wording: a new version, the old one superseded."""
    old = _locked(actor=actor, memory_id=memory_id)
    if old.status not in CORRECTABLE_STATUSES:
        raise MemoryServiceError("Only current memories can be corrected; erase old versions instead.")
    text = strip_nul(content or "").strip()
    if text and normalise(text) == normalise(old.content):
        raise MemoryServiceError(
            "The correction says the same as the memory.", field_errors={"content": ["Nothing changed."]}
        )
    secrets = scan_secrets(text)
    if secrets.found:
        raise MemoryServiceError(
            f"Secrets are never stored ({', '.join(secrets.kinds)}).",
            field_errors={"content": ["This looks like a secret."]},
        )
    # A rule waits for an operator, whatever the old entry was (the pipeline's classify step).
    check = policy_check(text, type=old.type) if text else None
    as_rule = check is not None and (check.is_rule or old.type == MemoryType.PROCEDURAL)
    status = MemoryStatus.HIDDEN if old.status == MemoryStatus.HIDDEN else None
    if as_rule:
        status = MemoryStatus.PENDING_REVIEW
    why = scrub(reason, ()) or "Corrected by the user."
    new = memory_create(
        namespace=old.namespace,
        content=text,
        type=MemoryType.PROCEDURAL if as_rule else old.type,
        category="sop" if as_rule else old.category,
        key="" if as_rule else old.key,
        source_kind=SourceKind.USER_CORRECTION,
        confidence=1.0,
        importance=old.importance,
        pinned=old.pinned and not as_rule,
        valid_from=old.valid_from,
        valid_to=old.valid_to,
        expires_at=old.expires_at,
        metadata=dict(old.metadata or {}),
        actor_kind=ActorKind.USER,
        actor=actor,
        reason=why,
        # A hidden memory stays hidden: correcting it is not asking for it to be used again.
        status=status,
    )
    # What the user corrected away is not learned again from the messages it came from.
    tombstones_record(entries=[old], reason=TombstoneReason.CORRECTED)
    # Never true: an empty window (see the module docstring).
    supersede(
        old,
        by=new,
        at=old.valid_from,
        actor_kind=ActorKind.USER,
        actor=actor,
        reason=why,
        action=EventAction.CORRECTED,
    )
    # The new version's event does not quote the old text, so erasing the old one alone erases it.
    event_record(
        entry=new,
        action=EventAction.CORRECTED,
        actor_kind=ActorKind.USER,
        actor=actor,
        reason=why,
        data={"content": new.content, "corrects": str(old.pk)},
    )
    if check is not None and check.weakens:
        flag_policy(new, reason=check.reason, source_kind=SourceKind.USER_CORRECTION)
    return new


@transaction.atomic
def memory_hide(*, actor: Any, memory_id: Any) -> MemoryEntry:
    """Hide ("don't use this"): kept and shown to the user, never recalled, reversible."""
    entry = _locked(actor=actor, memory_id=memory_id)
    if entry.status == MemoryStatus.HIDDEN:
        return entry
    if entry.status != MemoryStatus.ACTIVE:
        raise MemoryServiceError("Only memories in use can be hidden.")
    tombstones_record(entries=[entry], reason=TombstoneReason.HIDDEN)
    return _set_status(entry, MemoryStatus.HIDDEN, EventAction.HIDDEN, actor, "The user asked not to use it.")


@transaction.atomic
def memory_unhide(*, actor: Any, memory_id: Any) -> MemoryEntry:
    entry = _locked(actor=actor, memory_id=memory_id)
    if entry.status == MemoryStatus.ACTIVE:
        return entry
    if entry.status != MemoryStatus.HIDDEN:
        raise MemoryServiceError("Only hidden memories can be used again.")
    tombstone_lift(entry=entry, reason=TombstoneReason.HIDDEN)
    return _set_status(entry, MemoryStatus.ACTIVE, EventAction.RESTORED, actor, "The user allowed it again.")


def _set_status(entry: MemoryEntry, status: str, action: str, actor: Any, reason: str) -> MemoryEntry:
    entry.status = status
    entry.save(update_fields=["status", "updated_at"])
    event_record(
        entry=entry,
        action=action,
        actor_kind=ActorKind.USER,
        actor=actor,
        reason=reason,
        data={"status": status},
    )
    return entry


# --- Erase ---------------------------------------------------------------------------------------


def _lock_namespaces(namespace_ids: list[int]) -> list[ExtractionJob]:
    """Unfinished extraction jobs first, then the namespaces: the order extraction takes them."""
    jobs = list(
        ExtractionJob.objects.select_for_update()
        .filter(namespace_id__in=namespace_ids)
        .exclude(status=ExtractionStatus.DONE)
    )
    list(Namespace.objects.select_for_update().filter(pk__in=namespace_ids))
    return jobs


def _quotes(content: str, texts: Collection[str]) -> bool:
    folded = content.casefold()
    return any(text.casefold() in folded for text in texts)


def _scrub_jobs(
    namespace_id: int, unfinished: list[ExtractionJob], texts: set[str], sources: set[tuple[str, str]]
) -> None:
    conversations = {conversation for conversation, _ in sources}

    def hit(job: ExtractionJob, message: dict[str, Any]) -> bool:
        ref = (job.source_conversation, str(message.get("id", "")))
        return ref in sources or _quotes(str(message.get("content", "")), texts)

    for job in unfinished:
        kept = [m for m in job.messages if not hit(job, m)]
        if len(kept) == len(job.messages):
            continue
        job.messages = kept
        fields = ["messages"]
        if not kept:  # nothing left to learn from
            job.status, job.result, job.finished_at = (
                ExtractionStatus.DONE,
                {"skipped": "erased"},
                timezone.now(),
            )
            fields += ["status", "result", "finished_at"]
        job.save(update_fields=fields)
    finished = ExtractionJob.objects.filter(namespace_id=namespace_id, status=ExtractionStatus.DONE)
    for job in finished.exclude(messages=[]).iterator():
        if job.source_conversation in conversations or any(hit(job, m) for m in job.messages):
            job.messages = []
            job.save(update_fields=["messages"])


def _scrub_admin_log(ids: Iterable[uuid.UUID]) -> None:
    if not apps.is_installed("django.contrib.admin"):
        return
    from django.contrib.admin.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    for pk in ids:
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(MemoryEntry), object_id=str(pk)
        ).update(object_repr=f"erased memory {pk}", change_message="")


def _tombstone(namespace_ids: list[int], ids: list[uuid.UUID]) -> None:
    MemoryEvent.objects.filter(namespace_id__in=namespace_ids, entry_ref__in=ids).update(
        data={}, reason="", entry=None
    )


def _erased_events(entries: list[MemoryEntry], actor: Any) -> None:
    who = actor if getattr(actor, "is_authenticated", False) else None
    MemoryEvent.objects.bulk_create(
        MemoryEvent(
            namespace_id=e.namespace_id,
            entry=None,
            entry_ref=e.pk,
            action=EventAction.ERASED,
            actor_kind=ActorKind.USER,
            actor=who,
            reason=ERASED_REASON,
        )
        for e in entries
    )


@transaction.atomic
def memory_erase(*, actor: Any, memory_id: Any) -> None:
    """Hard-delete an entry and its older versions, and their text everywhere (module docstring)."""
    entry = _own_entry(actor=actor, memory_id=memory_id)
    ns = entry.namespace_id
    unfinished = _lock_namespaces([ns])
    versions = memory_versions(actor=actor, memory_id=entry.pk)  # after the locks: nothing moves now
    ids = [e.pk for e in versions]
    evidence = list(MemoryEvidence.objects.filter(entry_id__in=ids))
    texts = {e.content for e in versions} | {ev.excerpt for ev in evidence if ev.excerpt.strip()}
    sources = {
        (e.source_conversation, m) for e in versions if e.source_conversation for m in e.source_message_ids
    }
    sources |= {
        (ev.source_conversation, m)
        for ev in evidence
        if ev.source_conversation
        for m in ev.source_message_ids
    }

    quoting = Q()
    for text in texts:
        quoting |= Q(excerpt__icontains=text)
    FlaggedWrite.objects.filter(namespace_id=ns).filter(Q(entry_id__in=ids) | quoting).delete()
    other_evidence = MemoryEvidence.objects.filter(entry__namespace_id=ns).exclude(entry_id__in=ids)
    for conversation in {c for c, _ in sources}:
        message_ids = [m for c, m in sources if c == conversation]
        other_evidence.filter(
            source_conversation=conversation, source_message_ids__overlap=message_ids
        ).update(excerpt="")
    if quoting:
        other_evidence.filter(quoting).update(excerpt="")
    _scrub_jobs(ns, unfinished, texts, sources)
    _scrub_admin_log(ids)
    _tombstone([ns], ids)
    MemoryEntry.objects.filter(pk__in=ids).delete()  # evidence and recall logs cascade
    _erased_events(versions, actor)


@transaction.atomic
def memory_erase_all(*, actor: Any) -> int:
    """Erase everything in the actor's own namespaces; returns the number of entries erased."""
    namespace_ids = list(Namespace.objects.owned_by(actor).values_list("pk", flat=True))
    if not namespace_ids:
        return 0
    _lock_namespaces(namespace_ids)
    # Nothing said before now is mined again: a later idle sweep of the old conversations, or a
    # re-submitted range, learns nothing from them (see memory_core.tombstones).
    Namespace.objects.filter(pk__in=namespace_ids).update(mine_after=timezone.now())
    entries = list(MemoryEntry.objects.filter(namespace_id__in=namespace_ids).only("pk", "namespace_id"))
    ids = [e.pk for e in entries]
    FlaggedWrite.objects.filter(namespace_id__in=namespace_ids).delete()
    ExtractionJob.objects.filter(namespace_id__in=namespace_ids).delete()
    RecallLog.objects.filter(namespace_id__in=namespace_ids).delete()
    _scrub_admin_log(ids)
    # Every event of these namespaces, including tombstones of entries erased before.
    MemoryEvent.objects.filter(namespace_id__in=namespace_ids).update(data={}, reason="", entry=None)
    MemoryEntry.objects.filter(pk__in=ids).delete()
    _erased_events(entries, actor)
    return len(entries)


@transaction.atomic
def extraction_jobs_erase(*, actor: Any, source_conversations: Collection[str]) -> int:
    """Delete the actor's extraction jobs (and their payloads) of conversations the user deleted."""
    refs = [str(ref) for ref in source_conversations if ref]
    if not refs:
        return 0
    namespace_ids = list(Namespace.objects.owned_by(actor).values_list("pk", flat=True))
    _lock_namespaces(namespace_ids)
    deleted, _ = ExtractionJob.objects.filter(
        namespace_id__in=namespace_ids, source_conversation__in=refs
    ).delete()
    return deleted


# --- Export, pause, activity ---------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _event_dict(event: MemoryEvent) -> dict[str, Any]:
    return {
        "memory_id": str(event.entry_ref),
        "action": event.action,
        "actor_kind": event.actor_kind,
        "actor": event.actor.get_username() if event.actor is not None else None,
        "reason": event.reason,
        "data": event.data,
        "at": _iso(event.created_at),
    }


def memory_export(*, actor: Any) -> dict[str, Any]:
    """Everything the memory system holds about the actor, as JSON-serialisable data.

    Embeddings are left out: they are derived from the content and meaningless outside this system.
    """
    namespaces = list(Namespace.objects.owned_by(actor).order_by("path"))
    namespace_ids = [ns.pk for ns in namespaces]
    entries = (
        MemoryEntry.objects.filter(namespace_id__in=namespace_ids)
        .select_related("namespace")
        .prefetch_related("evidence")
        .defer("embedding", "search_vector")
        .order_by("recorded_at", "id")
    )
    events = list(
        MemoryEvent.objects.filter(namespace_id__in=namespace_ids)
        .select_related("actor")
        .order_by("created_at", "id")
    )
    history: dict[uuid.UUID, list[dict[str, Any]]] = {}
    for event in events:
        history.setdefault(event.entry_ref, []).append(_event_dict(event))
    memories = []
    for e in entries:
        memories.append(
            {
                "id": str(e.pk),
                "namespace": e.namespace.path,
                "type": e.type,
                "category": e.category,
                "key": e.key,
                "content": e.content,
                "status": e.status,
                "confidence": e.confidence,
                "importance": e.importance,
                "pinned": e.pinned,
                "is_inference": e.is_inference,
                "evidence_count": e.evidence_count,
                "valid_from": _iso(e.valid_from),
                "valid_to": _iso(e.valid_to),
                "recorded_at": _iso(e.recorded_at),
                "expired_at": _iso(e.expired_at),
                "expires_at": _iso(e.expires_at),
                "access_count": e.access_count,
                "last_accessed_at": _iso(e.last_accessed_at),
                "supersedes": str(e.supersedes_id) if e.supersedes_id else None,
                "superseded_by": str(e.superseded_by_id) if e.superseded_by_id else None,
                "metadata": e.metadata,
                "provenance": {
                    "source_kind": e.source_kind,
                    "source_conversation": e.source_conversation,
                    "source_message_ids": e.source_message_ids,
                    "extractor_model": e.extractor_model,
                    "extractor_prompt_version": e.extractor_prompt_version,
                    "embedding_model": e.embedding_model,
                    "evidence": [
                        {
                            "source_kind": ev.source_kind,
                            "source_conversation": ev.source_conversation,
                            "source_message_ids": ev.source_message_ids,
                            "excerpt": ev.excerpt,
                            "confidence": ev.confidence,
                            "at": _iso(ev.created_at),
                        }
                        for ev in e.evidence.all()
                    ],
                },
                "history": history.pop(e.pk, []),
            }
        )
    recall_log = RecallLog.objects.filter(namespace_id__in=namespace_ids).order_by("created_at", "rank")
    return {
        "format": "memory-export-v1",
        "exported_at": _iso(timezone.now()),
        "user": actor.get_username(),
        "namespaces": [
            {"path": ns.path, "memory_paused": ns.memory_paused, "created_at": _iso(ns.created_at)}
            for ns in namespaces
        ],
        "memories": memories,
        # Events of entries that no longer exist (erased): tombstones, without content.
        "erased_history": [item for items in history.values() for item in items],
        "recall_log": [
            {
                "memory_id": str(log.entry_id),
                "turn_ref": log.turn_ref,
                "rank": log.rank,
                "score": log.score,
                "at": _iso(log.created_at),
            }
            for log in recall_log
        ],
    }


@transaction.atomic
def memory_pause(*, actor: Any, paused: bool) -> Namespace:
    """Pause (no recall, no extraction) or resume the actor's memory."""
    namespace = namespace_for_user(user=actor)
    Namespace.objects.filter(pk=namespace.pk).update(memory_paused=bool(paused))
    namespace.memory_paused = bool(paused)
    return namespace


@dataclass(frozen=True)
class Activity:
    at: datetime
    action: str  # an EventAction value, or "recalled"
    actor_kind: str  # an ActorKind value, or "assistant" for recalls
    actor: str  # username of a person, "" otherwise
    memory_id: uuid.UUID
    reason: str
    turn_ref: str = ""


def activity_log(*, actor: Any, limit: int = 200) -> list[Activity]:
    """What was learned, changed, recalled and forgotten in the actor's namespaces, newest first."""
    namespace_ids = Namespace.objects.owned_by(actor).values("pk")
    events = MemoryEvent.objects.filter(namespace_id__in=namespace_ids).select_related("actor")[:limit]
    recalls = RecallLog.objects.filter(namespace_id__in=namespace_ids).order_by("-created_at", "rank")[:limit]
    items = [
        Activity(
            at=e.created_at,
            action=e.action,
            actor_kind=e.actor_kind,
            actor=e.actor.get_username() if e.actor is not None else "",
            memory_id=e.entry_ref,
            reason=e.reason,
        )
        for e in events
    ]
    items += [
        Activity(
            at=r.created_at,
            action="recalled",
            actor_kind="assistant",
            actor="",
            memory_id=r.entry_id,
            reason="",
            turn_ref=r.turn_ref,
        )
        for r in recalls
    ]
    items.sort(key=lambda item: item.at, reverse=True)
    return items[:limit]
