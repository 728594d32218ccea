"""The user's control over their own memories: correct, hide, always recall or not, pause, activity log.

Erasure lives in `memory_core.erasure` and export in `memory_core.export`, apart from the edits.

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

"Always recalled" is the write path's guess (a safety fact of the user or a dependant is pinned);
the user has the last word on it (`memory_always_recall`): the choice is kept in the entry's
metadata (`screening.ALWAYS_RECALL_CHOICE`), so the same fact said again, a new value of its slot
and a correction keep to it.

Hiding ("don't use this") keeps the entry, never recalled, until the user allows it again; the
same statement said again merges into the hidden entry (it stays hidden). Corrected-away and
hidden statements leave content-free tombstones (`memory_core.tombstones`), so re-extracting the
messages they came from does not learn them again.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from memory_core import judgement
from memory_core.actors import Actor, person
from memory_core.entities.hooks import entities_after_correction
from memory_core.errors import Conflict, MemoryServiceError, PermissionDenied
from memory_core.locks import lock_namespace
from memory_core.models import (
    ActorKind,
    EventAction,
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    MemoryType,
    Namespace,
    RecallLog,
    SourceKind,
    TombstoneReason,
)
from memory_core.screening import (
    ALWAYS_RECALL_CHOICE,
    NOT_ALWAYS_IMPORTANCE,
    always_recall_choice,
    flag_policy,
    not_always_category,
    scrub,
    scrub_metadata,
)
from memory_core.selectors import memory_access
from memory_core.services import EntryDraft, event_record, memory_create, namespace_for_user, supersede
from memory_core.tombstones import tombstone_lift, tombstones_record
from memory_core.validation import normalise, strip_nul
from memory_core.webhooks.announce import announce_corrected


def _own_entry(*, actor: Actor, memory_id: Any) -> MemoryEntry:
    entry = memory_access(actor=actor, memory_id=memory_id)
    owner = person(actor)
    if owner is None or entry.namespace.owner_id != owner.pk:
        raise PermissionDenied("Shared procedures are read-only; an operator maintains them.")
    return entry


def _locked(*, actor: Actor, memory_id: Any) -> MemoryEntry:
    """The actor's own entry, re-read under the namespace lock that `memory_add` takes too."""
    entry = _own_entry(actor=actor, memory_id=memory_id)
    lock_namespace(entry.namespace_id)
    return MemoryEntry.objects.select_related("namespace").select_for_update(of=("self",)).get(pk=entry.pk)


# --- Correct, hide -----------------------------------------------------------------------------


@transaction.atomic
def memory_correct(
    *, actor: Actor, memory_id: Any, content: str, reason: str = "", metadata: dict[str, Any] | None = None
) -> MemoryEntry:
    """Replace a wrong statement by the user's own wording: a new version, the old one superseded.
    The new version keeps the old metadata, or takes `metadata` (its secrets redacted) when given."""
    old = _locked(actor=actor, memory_id=memory_id)
    if old.status not in MemoryStatus.correctable():
        raise MemoryServiceError("Only current memories can be corrected; erase old versions instead.")
    text = strip_nul(content or "").strip()
    if text and normalise(text) == normalise(old.content):
        raise MemoryServiceError(
            "The correction says the same as the memory.", field_errors={"content": ["Nothing changed."]}
        )
    secrets = judgement.secrets(text)
    if secrets.found:
        raise MemoryServiceError(
            f"Secrets are never stored ({', '.join(secrets.kinds)}).",
            field_errors={"content": ["This looks like a secret."]},
        )
    # A rule waits for an operator, whatever the old entry was (the pipeline's classify step).
    check = judgement.policy(text, type=old.type) if text else None
    as_rule = check is not None and (check.is_rule or old.type == MemoryType.PROCEDURAL)
    status = MemoryStatus.HIDDEN if old.status == MemoryStatus.HIDDEN else None
    if as_rule:
        status = MemoryStatus.PENDING_REVIEW
    why = scrub(reason, ()) or "Corrected by the user."
    # A hidden memory stays hidden: correcting it is not asking for it to be used again.
    new = memory_create(
        namespace=old.namespace,
        reason=why,
        status=status,
        draft=EntryDraft(
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
            # A corrected wording keeps the window of what it corrects, an unknown start included.
            start_known=old.start_known or as_rule,
            expires_at=old.expires_at,
            metadata=_carried(old, metadata),
            actor_kind=ActorKind.USER,
            actor=actor,
        ),
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
    entities_after_correction(old=old, new=new)
    announce_corrected(new=new, old=old)
    return new


@transaction.atomic
def memory_hide(*, actor: Actor, memory_id: Any) -> MemoryEntry:
    """Hide ("don't use this"): kept and shown to the user, never recalled, reversible."""
    entry = _locked(actor=actor, memory_id=memory_id)
    if entry.status == MemoryStatus.HIDDEN:
        return entry
    if entry.status != MemoryStatus.ACTIVE:
        raise MemoryServiceError("Only memories in use can be hidden.")
    tombstones_record(entries=[entry], reason=TombstoneReason.HIDDEN)
    return _set_status(entry, MemoryStatus.HIDDEN, EventAction.HIDDEN, actor, "The user asked not to use it.")


@transaction.atomic
def memory_unhide(*, actor: Actor, memory_id: Any) -> MemoryEntry:
    entry = _locked(actor=actor, memory_id=memory_id)
    if entry.status == MemoryStatus.ACTIVE:
        return entry
    if entry.status != MemoryStatus.HIDDEN:
        raise MemoryServiceError("Only hidden memories can be used again.")
    tombstone_lift(entry=entry, reason=TombstoneReason.HIDDEN)
    return _set_status(entry, MemoryStatus.ACTIVE, EventAction.RESTORED, actor, "The user allowed it again.")


def _carried(old: MemoryEntry, metadata: dict[str, Any] | None) -> dict[str, Any]:
    """The new version's metadata: the old one's, or `metadata` (its secrets redacted) when given,
    with the user's "always recall" choice on the old one kept either way (the choice is the
    user's, not the data's)."""
    carried = dict(old.metadata or {}) if metadata is None else scrub_metadata(metadata, ())
    choice = always_recall_choice(old.metadata)
    return carried if choice is None else {**carried, ALWAYS_RECALL_CHOICE: choice}


# --- Always recall or not -----------------------------------------------------------------------

NOT_IN_USE = "Only memories in use can be set to be always recalled or not."
NOT_FOR_RULES = "A rule for the assistant is never always recalled: it is used where it applies."
ALWAYS_REASON = "The user asked to recall it with every answer."
NOT_ALWAYS_REASON = "The user asked not to recall it with every answer."


def _recall_state(entry: MemoryEntry) -> dict[str, Any]:
    return {"pinned": entry.pinned, "category": entry.category, "importance": entry.importance}


@transaction.atomic
def memory_always_recall(
    *, actor: Actor, memory_id: Any, always: bool, actor_kind: str = ActorKind.USER
) -> MemoryEntry:
    """The user says whether a memory in use is recalled with every answer, whatever was asked.

    Off: not pinned, out of the always-recalled categories ("safety", "profile" → "general") and
    importance at most `screening.NOT_ALWAYS_IMPORTANCE`, so it is recalled and ranked as an
    ordinary fact. On: pinned (its category kept). The choice is recorded in the entry's metadata
    for the write path to keep to, and in its history ("pinned" / "unpinned", from what to what).
    Asked again for what it already is, by the same choice: unchanged, no event. NotFound for
    someone else's; Conflict (409) unless it is in use."""
    entry = _locked(actor=actor, memory_id=memory_id)
    if entry.status != MemoryStatus.ACTIVE:
        raise Conflict(NOT_IN_USE)
    if always and entry.type == MemoryType.PROCEDURAL:
        raise MemoryServiceError(NOT_FOR_RULES)
    before = _recall_state(entry)
    if always:
        entry.pinned = True
    else:
        entry.pinned = False
        entry.category = not_always_category(entry.category)
        entry.importance = min(entry.importance, NOT_ALWAYS_IMPORTANCE)
    after = _recall_state(entry)
    if after == before and always_recall_choice(entry.metadata) == always:
        return entry
    entry.metadata = {**(entry.metadata or {}), ALWAYS_RECALL_CHOICE: always}
    entry.save(update_fields=["pinned", "category", "importance", "metadata", "updated_at"])
    event_record(
        entry=entry,
        action=EventAction.PINNED if always else EventAction.UNPINNED,
        actor_kind=actor_kind,
        actor=actor,
        reason=ALWAYS_REASON if always else NOT_ALWAYS_REASON,
        data={"always_recall": always, "from": before, "to": after},
    )
    return entry


# --- Feedback -----------------------------------------------------------------------------------

FEEDBACK_VALUES = ("POSITIVE", "NEGATIVE", "VERY_NEGATIVE")
FEEDBACK_REASON_MAX_CHARS = 1000


@transaction.atomic
def memory_feedback(
    *, actor: Actor, memory_id: Any, rating: str | None, reason: str = "", actor_kind: str = ActorKind.USER
) -> MemoryEvent:
    """What the user (or their app) thinks of a memory, as a "feedback" event in its history (where the
    pages, the API history and the export show it); `rating` None withdraws earlier feedback. The
    reason is the caller's words: secrets are redacted, and erasing the memory empties it with the
    rest of the history. Recall is not changed by it: hiding or correcting a memory is how it is."""
    entry = _own_entry(actor=actor, memory_id=memory_id)
    if rating is not None and rating not in FEEDBACK_VALUES:
        raise MemoryServiceError(
            f"Unknown feedback {rating!r}.",
            field_errors={"feedback": [f"One of {', '.join(FEEDBACK_VALUES)}."]},
        )
    text = strip_nul(reason or "").strip()
    if len(text) > FEEDBACK_REASON_MAX_CHARS:
        raise MemoryServiceError(
            "The feedback reason is too long.",
            field_errors={"feedback_reason": [f"At most {FEEDBACK_REASON_MAX_CHARS} characters."]},
        )
    return event_record(
        entry=entry,
        action=EventAction.FEEDBACK,
        actor_kind=actor_kind,
        actor=actor,
        reason=scrub(text, ()),
        data={"feedback": rating},
    )


def _set_status(entry: MemoryEntry, status: str, action: str, actor: Actor, reason: str) -> MemoryEntry:
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


# --- Pause, activity ----------------------------------------------------------------------------


@transaction.atomic
def memory_pause(*, actor: Actor, paused: bool) -> Namespace:
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


def activity_log(*, actor: Actor, limit: int = 200) -> list[Activity]:
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
