"""Reads for the privacy pages: the user's memories as cards (source, history, use), filtered."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.http import QueryDict
from django.urls import reverse
from django.utils.dateformat import format as date_format
from django.utils.dateparse import parse_date
from django.utils.timezone import localtime

from chat.models import Conversation
from memory_core.models import MemoryEntry, MemoryEvent, MemoryStatus, MemoryType, SourceKind
from memory_core.selectors import memory_list, parse_uuid
from privacy.models import AuditEvent

CURRENT_STATUSES: list[str] = [MemoryStatus.ACTIVE, MemoryStatus.HIDDEN, MemoryStatus.PENDING_REVIEW]
STATUS_CHOICES = [("current", "Current (in use, hidden, awaiting review)"), ("all", "All, with history")] + [
    (value, label) for value, label in MemoryStatus.choices
]
GROUPS = [
    ("facts", "Facts"),
    ("preferences", "Preferences"),
    ("events", "Events"),
    ("procedures", "Procedures"),
]
PREFERENCE_CATEGORY = "preference"


def group_of(entry: MemoryEntry) -> str:
    if entry.type == MemoryType.EPISODIC:
        return "events"
    if entry.type == MemoryType.PROCEDURAL:
        return "procedures"
    return "preferences" if entry.category == PREFERENCE_CATEGORY else "facts"


@dataclass(frozen=True)
class MemoryFilters:
    q: str = ""
    group: str = ""
    category: str = ""
    status: str = "current"
    since: date | None = None
    until: date | None = None

    @classmethod
    def from_query(cls, params: QueryDict) -> MemoryFilters:
        group = params.get("type", "")
        status = params.get("status", "current")
        return cls(
            q=params.get("q", "").replace("\x00", "").strip()[:200],  # PostgreSQL rejects NUL
            group=group if group in dict(GROUPS) else "",
            category=params.get("category", "").replace("\x00", "").strip()[:40],
            status=status if status in dict(STATUS_CHOICES) else "current",
            since=_date(params.get("since")),
            until=_date(params.get("until")),
        )

    @property
    def active(self) -> bool:
        return self != MemoryFilters()


def _date(value: str | None) -> date | None:
    try:
        return parse_date(value or "")
    except ValueError:  # well formed but impossible, such as 2026-02-30
        return None


def memory_search(*, user: Any, filters: MemoryFilters) -> QuerySet[MemoryEntry]:
    """The user's memories (and procedures shared with them) matching the filters, by group."""
    statuses = (
        CURRENT_STATUSES
        if filters.status == "current"
        else None
        if filters.status == "all"
        else [filters.status]
    )
    qs = memory_list(actor=user, statuses=statuses, category=filters.category or None)
    if filters.group == "events":
        qs = qs.filter(type=MemoryType.EPISODIC)
    elif filters.group == "procedures":
        qs = qs.filter(type=MemoryType.PROCEDURAL)
    elif filters.group == "preferences":
        qs = qs.filter(type=MemoryType.SEMANTIC, category=PREFERENCE_CATEGORY)
    elif filters.group == "facts":
        qs = qs.filter(type=MemoryType.SEMANTIC).exclude(category=PREFERENCE_CATEGORY)
    if filters.q:
        qs = qs.filter(Q(content__icontains=filters.q) | Q(key__icontains=filters.q))
    if filters.since:
        qs = qs.filter(recorded_at__date__gte=filters.since)
    if filters.until:
        qs = qs.filter(recorded_at__date__lte=filters.until)
    return qs.defer("embedding", "search_vector")


@dataclass
class Source:
    label: str  # "learned from your conversation of 3 May 2026"
    excerpt: str = ""
    link: str = ""  # to the message, while the conversation exists
    more: int = 0  # further mentions (merged evidence)


@dataclass
class MemoryCard:
    entry: MemoryEntry
    own: bool
    source: Source
    history: list[MemoryEvent] = field(default_factory=list)

    @property
    def group(self) -> str:
        return group_of(self.entry)


_LABELS: dict[str, str] = {
    SourceKind.EXTRACTED: "learned from your conversation of {date}",
    SourceKind.USER_EXPLICIT: "you told the assistant on {date}",
    SourceKind.USER_CORRECTION: "you corrected it on {date}",
    SourceKind.OPERATOR: "written by an operator on {date}",
    SourceKind.API_IMPORT: "imported through the API on {date}",
}


def _message_link(conversation: Conversation | None, message_ids: list[str]) -> str:
    if conversation is None:
        return ""
    url = reverse("chat:conversation", args=[conversation.pk])
    # The chat page anchors each turn by its user message: id="m-<message id>".
    return f"{url}#m-{message_ids[0]}" if message_ids else url


def memory_cards(*, user: Any, entries: list[MemoryEntry]) -> list[MemoryCard]:
    """Cards for entries already fetched for `user`: three queries whatever their number."""
    ids = [e.pk for e in entries]
    evidence: dict[uuid.UUID, list[Any]] = {}
    history: dict[uuid.UUID, list[MemoryEvent]] = {}
    if ids:
        shown = MemoryEntry.objects.filter(pk__in=ids).prefetch_related(
            "evidence",
            Prefetch("events", queryset=MemoryEvent.objects.order_by("created_at", "id"), to_attr="history"),
        )
        for row in shown.only("pk"):
            evidence[row.pk] = sorted(row.evidence.all(), key=lambda ev: ev.created_at)
            history[row.pk] = row.history
    refs = {ev.source_conversation for evs in evidence.values() for ev in evs if ev.source_conversation}
    valid = [ref for ref in refs if parse_uuid(ref) is not None]
    conversations = {str(c.pk): c for c in Conversation.objects.owned_by(user).filter(pk__in=valid)}
    cards = []
    for entry in entries:
        own = entry.namespace.owner_id == user.pk
        mentions = evidence.get(entry.pk) or []
        first = mentions[0] if mentions else None
        conversation = conversations.get(first.source_conversation) if first is not None else None
        when = conversation.created_at if conversation is not None else entry.recorded_at
        label = _LABELS.get(entry.source_kind, "{date}").format(date=date_format(localtime(when), "j M Y"))
        source = Source(label=label)
        if first is not None and own:
            source.excerpt = first.excerpt
            source.link = _message_link(conversation, first.source_message_ids)
            source.more = len(mentions) - 1
        # A shared procedure's evidence and history may quote someone else (the message it was
        # proposed from, an operator's reason): the viewer sees what it says, not where it came from.
        cards.append(
            MemoryCard(entry=entry, own=own, source=source, history=history.get(entry.pk, []) if own else [])
        )
    return cards


def staff_access(*, user: Any, limit: int = 100) -> QuerySet[AuditEvent]:
    """Staff openings of the user's memories in the admin (the user may see who looked)."""
    return AuditEvent.objects.filter(namespace__owner=user).select_related("actor")[:limit]
