"""Reads for the privacy pages: the user's memories as cards (source, history, use), filtered."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, replace
from datetime import date
from functools import cached_property
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import (
    BooleanField,
    Case,
    Count,
    ExpressionWrapper,
    Prefetch,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.http import QueryDict
from django.urls import reverse
from django.utils.dateparse import parse_date
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy

from chat.models import Conversation
from memory_core.lexical import TsQuery, prefix_query
from memory_core.models import (
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    MemoryType,
    Namespace,
    SourceKind,
)
from memory_core.recall import memory_recall
from memory_core.recall.scoring import MIN_SIMILARITY
from memory_core.selectors import parse_uuid
from privacy.event_labels import ACTIONS, ACTORS, FEEDBACK, label
from privacy.models import AuditEvent

CURRENT_STATUSES: list[str] = [MemoryStatus.ACTIVE, MemoryStatus.HIDDEN, MemoryStatus.PENDING_REVIEW]
# The statuses as the pages say them (the model's labels are English only: a migration keeps them).
STATUS_LABELS: dict[str, Any] = {
    MemoryStatus.ACTIVE: gettext_lazy("active"),
    MemoryStatus.SUPERSEDED: gettext_lazy("superseded"),
    MemoryStatus.PENDING_REVIEW: gettext_lazy("pending review"),
    MemoryStatus.REJECTED: gettext_lazy("rejected"),
    MemoryStatus.ARCHIVED: gettext_lazy("archived"),
    MemoryStatus.EXPIRED: gettext_lazy("expired"),
    MemoryStatus.HIDDEN: gettext_lazy("hidden by you"),
}
STATUS_CHOICES: list[tuple[str, Any]] = [
    ("current", gettext_lazy("Current (in use, hidden, awaiting review)")),
    ("all", gettext_lazy("All, with history")),
] + [(value, STATUS_LABELS[value]) for value, _ in MemoryStatus.choices]
GROUPS: list[tuple[str, Any]] = [
    ("facts", gettext_lazy("Facts")),
    ("preferences", gettext_lazy("Preferences")),
    ("events", gettext_lazy("Events")),
    ("procedures", gettext_lazy("Procedures")),
]
PREFERENCE_CATEGORY = "preference"


def _group_key(type_: str, preference: bool) -> str:
    if type_ == MemoryType.EPISODIC:
        return "events"
    if type_ == MemoryType.PROCEDURAL:
        return "procedures"
    return "preferences" if preference else "facts"


def group_of(entry: MemoryEntry) -> str:
    return _group_key(entry.type, entry.category == PREFERENCE_CATEGORY)


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


SEARCH_MAX_WORDS = 8
SEARCH_MEANING_LIMIT = 50  # memories a search by meaning ranks (the list pages through them)


def word_matches(query: str) -> Q:
    """The entries holding every word of `query` at a word's beginning, through the full-text index
    (no scan of the text): `memory_core.lexical.prefix_query`. A query of stop words or punctuation
    alone matches nothing by words (the meaning half still searches)."""
    text_query = prefix_query(" ".join(query.split()[:SEARCH_MAX_WORDS]), own_words=True)
    return Q(search_vector=TsQuery(text_query)) if text_query else Q(pk__in=[])


def _group_filter(group: str) -> Q:
    if group == "events":
        return Q(type=MemoryType.EPISODIC)
    if group == "procedures":
        return Q(type=MemoryType.PROCEDURAL)
    if group == "preferences":
        return Q(type=MemoryType.SEMANTIC, category=PREFERENCE_CATEGORY)
    if group == "facts":
        return Q(type=MemoryType.SEMANTIC) & ~Q(category=PREFERENCE_CATEGORY)
    return Q()


def meaning_matches(*, user: Any, query: str) -> list[uuid.UUID]:
    """Ids of the user's current memories close in meaning to `query`, best first: the ranked items
    of the engine's hybrid recall, in the order `POST /api/v1/recall/` gives them, with recall's own
    similarity floor. Unrecorded: a search is not a use."""
    result = memory_recall(actor=user, query=query, limit=SEARCH_MEANING_LIMIT, record=False)
    # Words are the index's job (`word_matches`: every word, not recall's any word); recall adds
    # what it found by meaning, above its own floor.
    return [
        item.entry.pk
        for item in result.items
        if max(item.breakdown.get("similarity", 0), item.breakdown.get("context", 0)) >= MIN_SIMILARITY
        or item.breakdown.get("graph", 0)
    ]


# A chain of corrections longer than this is followed no further (each step is one query).
_CHAIN_STEPS = 5


def earlier_version_matches(*, user: Any, query: str, scope: Scope | None = None) -> dict[uuid.UUID, str]:
    """The newest versions of the user's memories whose superseded versions hold every word of
    `query`, each with the earlier wording found: a memory replaced by its Chinese version is still
    found by the English words it had (the page says which version matched)."""
    older = (
        _visible(user, scope)
        .filter(status=MemoryStatus.SUPERSEDED, superseded_by__isnull=False)
        .filter(word_matches(query))
        .values_list("superseded_by_id", "content")[:SEARCH_MEANING_LIMIT]
    )
    waiting: dict[uuid.UUID, str] = {}
    for newer, content in older:
        waiting.setdefault(newer, content)
    found: dict[uuid.UUID, str] = {}
    for _ in range(_CHAIN_STEPS):
        if not waiting:
            break
        steps = MemoryEntry.objects.filter(pk__in=list(waiting)).values_list(
            "pk", "status", "superseded_by_id"
        )
        following: dict[uuid.UUID, str] = {}
        for pk, status, newer in steps:
            if status == MemoryStatus.SUPERSEDED and newer:
                following.setdefault(newer, waiting[pk])
            else:
                found.setdefault(pk, waiting[pk])
        waiting = following
    return found


def memory_search(
    *,
    user: Any,
    filters: MemoryFilters,
    exclude: list[uuid.UUID] | None = None,
    scope: Scope | None = None,
    also: list[uuid.UUID] | None = None,
) -> QuerySet[MemoryEntry]:
    """The user's memories (and procedures shared with them) matching the filters, newest first, or
    best match first when searching: every word at a word's beginning (`word_matches`, the full-text
    index), or close in meaning (recall's own candidates); no scan of the text, so the page's count
    reads the matches alone. `also`: ids found another way (`earlier_version_matches`)."""
    statuses = (
        CURRENT_STATUSES
        if filters.status == "current"
        else None
        if filters.status == "all"
        else [filters.status]
    )
    qs = _visible(user, scope)
    if statuses:
        qs = qs.filter(status__in=statuses)
    if filters.category:
        qs = qs.filter(category=filters.category)
    qs = qs.select_related("namespace").order_by("-recorded_at", "-id").filter(_group_filter(filters.group))
    if exclude:
        qs = qs.exclude(pk__in=exclude)
    if filters.since:
        qs = qs.filter(recorded_at__date__gte=filters.since)
    if filters.until:
        qs = qs.filter(recorded_at__date__lte=filters.until)
    if filters.q:
        ranked = meaning_matches(user=user, query=filters.q)
        words = word_matches(filters.q)
        qs = qs.filter(words | Q(pk__in=ranked) | Q(pk__in=also or [])).annotate(
            match=Case(
                *[When(pk=pk, then=Value(i)) for i, pk in enumerate(ranked)], default=Value(len(ranked))
            ),
            # Found by meaning alone: the page says so, as recall's floor is a loose one.
            by_words=ExpressionWrapper(words, output_field=BooleanField()),
        )
        qs = qs.order_by("match", "-recorded_at", "-id")
    return qs.defer("embedding", "search_vector")


def counted_page(rows: QuerySet[MemoryEntry], paginator: Paginator, number: Any) -> Page:
    """Page `number` of `rows` (a search, `paginator`'s list) and the number of its matches in one
    query (`COUNT(*) OVER ()`): the matches are all sorted by rank to cut the page anyway, so counting
    them costs no more than the separate `COUNT(*)` round trip it replaces. Past the last page, the
    paginator's own way."""
    try:
        wanted = max(1, int(number))
    except (TypeError, ValueError):
        wanted = 1
    start = (wanted - 1) * paginator.per_page
    found = list(rows.annotate(matches=Window(Count("*")))[start : start + paginator.per_page])
    if not found:
        return paginator.get_page(number)
    paginator.count = found[0].matches  # type: ignore[attr-defined]  # the annotation above
    return Page(found, wanted, paginator)


@dataclass(frozen=True)
class Scope:
    """The namespaces whose memories the user sees: their own, and those shared with them (whose
    active procedures only). Resolved once per request and passed to the list's queries."""

    own: list[int]
    shared: list[int]

    @classmethod
    def of(cls, user: Any) -> Scope:
        return cls(
            own=list(Namespace.objects.owned_by(user).values_list("id", flat=True)),
            shared=list(Namespace.objects.shared_with(user).values_list("id", flat=True)),
        )


def _visible(user: Any, scope: Scope | None = None) -> QuerySet[MemoryEntry]:
    """`MemoryEntry.objects.visible_to(user)` with the namespace ids resolved first (two small queries):
    without shared namespaces the filter is a plain `namespace_id IN (…)`, which the
    (namespace, recorded_at) and (namespace, status, type, category) indexes answer, where the OR of
    two subqueries made PostgreSQL scan the whole table."""
    scope = scope or Scope.of(user)
    visible = Q(namespace_id__in=scope.own)
    if scope.shared:
        visible |= Q(namespace_id__in=scope.shared, type=MemoryType.PROCEDURAL, status=MemoryStatus.ACTIVE)
    return MemoryEntry.objects.filter(visible) if scope.own or scope.shared else MemoryEntry.objects.none()


@dataclass(frozen=True)
class Totals:
    """How many memories of each group and status the user has (every status, shared ones too)."""

    groups: list[tuple[str, str, int]]  # (key, label, count)
    statuses: list[tuple[str, str, int]]
    all: int
    # (group, status) → count: what a list filtered by type and status alone holds, without counting again.
    cells: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def archived(self) -> int:
        return sum(n for (_, status), n in self.cells.items() if status == MemoryStatus.ARCHIVED)

    def count(self, filters: MemoryFilters) -> int | None:
        """The number of memories `filters` list, when the totals know it (no words, category or dates)."""
        if filters.q or filters.category or filters.since or filters.until:
            return None
        statuses = (
            CURRENT_STATUSES
            if filters.status == "current"
            else [value for value, _ in MemoryStatus.choices]
            if filters.status == "all"
            else [filters.status]
        )
        groups = [filters.group] if filters.group else [key for key, _ in GROUPS]
        return sum(self.cells.get((group, status), 0) for group in groups for status in statuses)

    def of_status(self, filters: MemoryFilters) -> tuple[int, list[tuple[str, str, int]]]:
        """ "All N" and each group's count for the status `filters` select: the numbers the list
        shows under the same filter ("All 937" beside "937 memories"), one definition for both."""
        base = replace(filters, q="", group="", category="", since=None, until=None)
        total = self.count(base) or 0
        return total, [(key, label, self.count(replace(base, group=key)) or 0) for key, label in GROUPS]


def memory_totals(*, user: Any, exclude: list[uuid.UUID] | None = None, scope: Scope | None = None) -> Totals:
    """The totals in one grouped count (an index-only scan of (namespace, status, type, category))."""
    qs = _visible(user, scope)
    if exclude:
        qs = qs.exclude(pk__in=exclude)
    # Grouped by the indexed columns themselves (no expression): the count reads the index alone.
    rows = qs.values("status", "type", "category").annotate(n=Count("*")).order_by()
    cells: dict[tuple[str, str], int] = {}
    for row in rows:
        group = _group_key(row["type"], row["category"] == PREFERENCE_CATEGORY)
        cells[group, row["status"]] = cells.get((group, row["status"]), 0) + row["n"]
    by_status = {
        value: sum(n for (_, status), n in cells.items() if status == value)
        for value, _ in MemoryStatus.choices
    }
    return Totals(
        groups=[(key, label, sum(n for (g, _), n in cells.items() if g == key)) for key, label in GROUPS],
        statuses=[
            (value, label, by_status[value]) for value, label in MemoryStatus.choices if by_status[value]
        ],
        all=sum(cells.values()),
        cells=cells,
    )


@dataclass
class Source:
    label: str  # "learned from your conversation of 3 May 2026"
    excerpt: str = ""
    link: str = ""  # to the message, while the conversation exists
    more: int = 0  # further mentions (merged evidence)


@dataclass(frozen=True)
class HistoryRow:
    event: MemoryEvent
    reason: str  # "" when the event before it gave the same reason (a correction records it twice)
    before: str = ""  # the text a correction replaced

    @property
    def action_label(self) -> str:
        """ "created", "superseded", … in the page's language (`privacy.event_labels`)."""
        return label(ACTIONS, self.event.action, self.event.get_action_display().lower())

    @property
    def actor_label(self) -> str:
        return label(ACTORS, self.event.actor_kind, self.event.get_actor_kind_display().lower())

    @property
    def feedback_label(self) -> str:
        rating = str((self.event.data or {}).get("feedback") or "").upper()
        return label(FEEDBACK, rating, rating.lower())


@dataclass
class MemoryCard:
    entry: MemoryEntry
    own: bool
    source: Source
    history: list[MemoryEvent] = field(default_factory=list)
    corrected_from: str = ""  # the older version's text, when this one replaced it
    found_earlier: str = ""  # a search matched this earlier wording (`earlier_version_matches`)
    patterns: dict[str, str] = field(default_factory=dict, repr=False)  # url_patterns(), shared by a list

    @property
    def group(self) -> str:
        return group_of(self.entry)

    @property
    def by_meaning(self) -> bool:
        """A search found it by meaning alone (neither its words nor an earlier version's)."""
        return getattr(self.entry, "by_words", True) is False and not self.found_earlier

    def _patterns(self) -> dict[str, str]:
        if not self.patterns:
            self.patterns = url_patterns()
        return self.patterns

    @cached_property
    def urls(self) -> dict[str, str]:
        """The entry's page and action URLs (the list shows fifty cards: no reverse() per link)."""
        return entry_urls(self.entry.pk, self._patterns())

    @property
    def newer_url(self) -> str:
        newer = self.entry.superseded_by_id
        return entry_urls(newer, self._patterns())["memory"] if newer else ""

    @property
    def group_label(self) -> str:
        return dict(GROUPS)[self.group]

    @property
    def history_rows(self) -> list[HistoryRow]:
        rows, said = [], ""
        for event in self.history:
            reason = event.reason if event.reason != said else ""
            said = event.reason or said
            before = self.corrected_from if event.action in ("corrected", "superseded") else ""
            rows.append(HistoryRow(event=event, reason=reason, before=before))
        return rows


_ENTRY_VIEWS = (
    "memory",
    "row",
    "correct",
    "hide",
    "unhide",
    "restore",
    "always_recall",
    "not_always_recall",
    "erase",
)
_SENTINEL = uuid.UUID(int=0)


def url_patterns() -> dict[str, str]:
    """The entry views' URLs with a placeholder id; reversed per request (the script prefix may vary)."""
    return {name: reverse(f"privacy:{name}", args=[_SENTINEL]) for name in _ENTRY_VIEWS}


def entry_urls(pk: Any, patterns: dict[str, str]) -> dict[str, str]:
    """`{"memory": "/me/memories/<pk>/", "correct": …}` from `url_patterns()`."""
    return {name: url.replace(str(_SENTINEL), str(pk)) for name, url in patterns.items()}


_LABELS: dict[str, Any] = {
    SourceKind.EXTRACTED: gettext_lazy("learned from your conversation of {date}"),
    SourceKind.USER_EXPLICIT: gettext_lazy("you told the assistant on {date}"),
    SourceKind.USER_CORRECTION: gettext_lazy("you corrected it on {date}"),
    SourceKind.OPERATOR: gettext_lazy("written by an operator on {date}"),
    SourceKind.API_IMPORT: gettext_lazy("imported through the API on {date}"),
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
    older_ids = [e.supersedes_id for e in entries if e.supersedes_id]
    older = (
        dict(MemoryEntry.objects.filter(pk__in=older_ids).values_list("pk", "content")) if older_ids else {}
    )
    refs = {ev.source_conversation for evs in evidence.values() for ev in evs if ev.source_conversation}
    valid = [ref for ref in refs if parse_uuid(ref) is not None]
    conversations = {str(c.pk): c for c in Conversation.objects.owned_by(user).filter(pk__in=valid)}
    cards = []
    patterns = url_patterns()
    for entry in entries:
        own = entry.namespace.owner_id == user.pk
        mentions = evidence.get(entry.pk) or []
        first = mentions[0] if mentions else None
        conversation = conversations.get(first.source_conversation) if first is not None else None
        when = conversation.created_at if conversation is not None else entry.recorded_at
        said = date_format(localtime(when), "DATE_FORMAT")
        label = str(_LABELS.get(entry.source_kind, "{date}")).format(date=said)
        source = Source(label=label)
        if first is not None and own:
            source.excerpt = first.excerpt
            source.link = _message_link(conversation, first.source_message_ids)
            source.more = len(mentions) - 1
        # A shared procedure's evidence and history may quote someone else (the message it was
        # proposed from, an operator's reason): the viewer sees what it says, not where it came from.
        cards.append(
            MemoryCard(
                entry=entry,
                own=own,
                source=source,
                history=history.get(entry.pk, []) if own else [],
                corrected_from=older.get(entry.supersedes_id, "") if own and entry.supersedes_id else "",
                patterns=patterns,
            )
        )
    return cards


def memory_rows(*, user: Any, entries: list[MemoryEntry]) -> list[MemoryCard]:
    """Compact cards for the list: what a closed row shows (statement, kind, status), no query.
    A row's source, history and actions are read when it is opened (`memory_cards` for one)."""
    patterns = url_patterns()
    return [
        MemoryCard(
            entry=entry, own=entry.namespace.owner_id == user.pk, source=Source(label=""), patterns=patterns
        )
        for entry in entries
    ]


def staff_access(*, user: Any, limit: int = 100) -> QuerySet[AuditEvent]:
    """Staff openings of the user's memories in the admin (the user may see who looked)."""
    return AuditEvent.objects.filter(namespace__owner=user).select_related("actor")[:limit]
