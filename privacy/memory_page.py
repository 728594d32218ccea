"""Reads for the page of one memory (/me/memories/<id>/): its version chain, sources, uses and the
operator's decision on it. Every entry is reached through `memory_access` (404 alike for missing
and someone else's); versions the viewer may not see (an org's copy of a rule) are left out."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from chat.models import Conversation, Message
from memory_core.errors import NotFound
from memory_core.models import EventAction, MemoryEntry, MemoryEvent, MemoryEvidence, RecallLog
from memory_core.selectors import memory_access, memory_versions, parse_uuid
from privacy.event_labels import ACTIONS, REPLACED, label
from privacy.selectors import MemoryCard, memory_cards

USES_SHOWN = 50
# History events that say how a version was replaced; their reason is shown on the transition.
_REPLACING = (EventAction.SUPERSEDED, EventAction.CORRECTED, EventAction.MERGED)


@dataclass
class Transition:
    """One step of the chain: the older text, the newer text, how and why."""

    before: MemoryEntry
    after: MemoryEntry
    action: str  # an EventAction label, lower case
    reason: str


@dataclass
class Mention:
    label: str
    excerpt: str
    link: str


@dataclass
class Use:
    at: Any
    link: str  # the chat turn, while the conversation exists
    where: str


@dataclass
class Decision:
    """An operator's decision on a rule the user asked to remember."""

    approved: bool
    at: Any
    reason: str
    namespace: str = ""


@dataclass
class MemoryPage:
    card: MemoryCard
    current: MemoryEntry  # the version in use now (the entry itself when it is current)
    versions: list[MemoryEntry]  # oldest first
    transitions: list[Transition] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    uses: list[Use] = field(default_factory=list)
    uses_total: int = 0
    decision: Decision | None = None

    @property
    def entry(self) -> MemoryEntry:
        return self.card.entry

    @property
    def is_current(self) -> bool:
        return self.current.pk == self.entry.pk


def _newest(user: Any, entry: MemoryEntry) -> MemoryEntry:
    """Follow `superseded_by` to the newest version the user may see."""
    seen = {entry.pk}
    while entry.superseded_by_id and entry.superseded_by_id not in seen:
        try:
            entry = memory_access(actor=user, memory_id=entry.superseded_by_id)
        except NotFound:
            break
        seen.add(entry.pk)
    return entry


def _transitions(versions: list[MemoryEntry]) -> list[Transition]:
    by_id = {v.pk: v for v in versions}
    events = MemoryEvent.objects.filter(entry_ref__in=list(by_id), action__in=_REPLACING).order_by(
        "created_at", "id"
    )
    why: dict[uuid.UUID, MemoryEvent] = {}
    for event in events:
        why.setdefault(event.entry_ref, event)  # the first event that replaced it
    steps = []
    for old in versions:
        new = by_id.get(old.superseded_by_id) if old.superseded_by_id else None
        if new is None:
            continue
        found = why.get(old.pk)
        steps.append(
            Transition(
                before=old,
                after=new,
                action=(
                    label(ACTIONS, found.action, found.get_action_display().lower())
                    if found
                    else str(REPLACED)
                ),
                reason=found.reason if found else "",
            )
        )
    return steps


def _mentions(user: Any, entry: MemoryEntry) -> list[Mention]:
    evidence = list(MemoryEvidence.objects.filter(entry=entry).order_by("created_at", "id"))
    refs = [parse_uuid(ev.source_conversation) for ev in evidence]
    conversations = {
        str(c.pk): c for c in Conversation.objects.owned_by(user).filter(pk__in=[r for r in refs if r])
    }
    mentions = []
    for ev in evidence:
        conversation = conversations.get(ev.source_conversation)
        link = ""
        if conversation is not None:
            link = reverse("chat:conversation", args=[conversation.pk])
            if ev.source_message_ids:
                link += f"#m-{ev.source_message_ids[0]}"
        label = gettext(ev.get_source_kind_display())  # marked in memory_core.choices
        if conversation is not None:
            label += f" · {conversation.display_title}"
        mentions.append(Mention(label=label, excerpt=ev.excerpt, link=link))
    return mentions


def _uses(user: Any, entry: MemoryEntry) -> tuple[list[Use], int]:
    logs = RecallLog.objects.filter(entry=entry).order_by("-created_at")
    total = logs.count()
    rows = list(logs[:USES_SHOWN])
    message_ids = []
    for log in rows:
        kind, _, ref = log.turn_ref.partition(":")
        if kind == "chat" and ref.isdigit():
            message_ids.append(int(ref))
    messages = {
        m.pk: m
        for m in Message.objects.filter(conversation__user=user, pk__in=message_ids).select_related(
            "conversation"
        )
    }
    uses = []
    for log in rows:
        kind, _, ref = log.turn_ref.partition(":")
        message = messages.get(int(ref)) if kind == "chat" and ref.isdigit() else None
        if message is not None:
            link = reverse("chat:conversation", args=[message.conversation_id]) + f"#m-{message.pk}"
            uses.append(Use(at=log.created_at, link=link, where=message.conversation.display_title))
        else:
            uses.append(Use(at=log.created_at, link="", where="API" if kind == "api" else "search"))
    return uses, total


def _decision(entry: MemoryEntry) -> Decision | None:
    event = (
        MemoryEvent.objects.filter(
            entry_ref=entry.pk, action__in=[EventAction.APPROVED, EventAction.REJECTED]
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if event is None:
        return None
    return Decision(
        approved=event.action == EventAction.APPROVED,
        at=event.created_at,
        reason=event.reason,
        namespace=str((event.data or {}).get("namespace", "")),
    )


def memory_page(*, user: Any, memory_id: Any) -> MemoryPage:
    """Everything the page of one memory shows; NotFound alike for missing and someone else's."""
    entry = memory_access(actor=user, memory_id=memory_id)
    card = memory_cards(user=user, entries=[entry])[0]
    current = _newest(user, entry)
    versions = sorted(
        memory_versions(actor=user, memory_id=current.pk), key=lambda v: (v.recorded_at, v.created_at)
    )
    page = MemoryPage(card=card, current=current, versions=versions)
    if card.own:
        page.transitions = _transitions(versions)
        page.mentions = _mentions(user, entry)
        page.uses, page.uses_total = _uses(user, entry)
        page.decision = _decision(entry)
    return page
