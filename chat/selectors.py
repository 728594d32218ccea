"""Reads for the chat: a user reaches only their own conversations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy

from chat.models import Conversation, Message
from chat.style import style_at
from memory_core.errors import NotFound
from memory_core.models import (
    ExtractionJob,
    ExtractionStatus,
    MemoryEntry,
    MemoryEvidence,
    Namespace,
    RecallLog,
    SourceKind,
)
from memory_core.selectors import (
    extraction_jobs_for_conversation,
    memory_entries_by_ids,
    memory_sources,
    parse_uuid,
    recalled_entries_for_turns,
)


def conversation_access(*, user: Any, conversation_id: Any) -> Conversation:
    """The user's conversation; NotFound alike for missing and for someone else's."""
    pk = parse_uuid(conversation_id)
    conversation = Conversation.objects.owned_by(user).filter(pk=pk).first() if pk else None
    if conversation is None:
        raise NotFound("Conversation not found.")
    return conversation


def message_access(*, user: Any, conversation: Conversation, message_id: Any) -> Message:
    try:
        pk = int(message_id)
    except (TypeError, ValueError):
        raise NotFound("Message not found.") from None
    message = Message.objects.filter(conversation__user=user, conversation=conversation, pk=pk).first()
    if message is None:
        raise NotFound("Message not found.")
    return message


def conversation_list(*, user: Any) -> QuerySet[Conversation]:
    return Conversation.objects.owned_by(user).order_by("-last_activity_at")


def conversation_messages(*, conversation: Conversation) -> QuerySet[Message]:
    return conversation.messages.in_turn_order()


# --- Turns: a user message, its reply, and the memories the reply used ------------------------


@dataclass
class Turn:
    message: Message  # the user's message, or a reply without one (written before replies were linked)
    reply: Message | None = None
    memories: list[tuple[MemoryEntry, RecallLog]] = field(default_factory=list)
    # What the user's message taught ("remember that …" at once, a fact said in passing when its
    # extraction ran): the inline "Memory updated".
    taught: list[MemoryEntry] = field(default_factory=list)
    # Of those, the ids first learned from this turn; the others were known before and this turn
    # only said them again: Undo would erase what was learned elsewhere, so it is not offered.
    first_taught: set[Any] = field(default_factory=set)
    # An extraction job holding this message is still queued or running: the turn polls itself.
    learning: bool = False
    # Standing answer-style preferences the reply was written with (chat.style).
    style: list[MemoryEntry] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return f"m-{self.message.pk}"

    @property
    def used_count(self) -> int:
        return len(self.memories) + len(self.style)

    @property
    def awaiting_reply(self) -> bool:
        return self.message.role == Message.Role.USER and self.reply is None


def _turns(user: Any, messages: list[Message], incognito: bool = False) -> list[Turn]:
    turns: list[Turn] = []
    by_id: dict[int, Turn] = {}
    for message in messages:
        if message.reply_to_id is not None and message.reply_to_id in by_id:
            by_id[message.reply_to_id].reply = message
            continue
        turn = Turn(message=message, reply=message if message.role == Message.Role.ASSISTANT else None)
        by_id[message.pk] = turn
        turns.append(turn)
    # One query for every reply's recall log.
    refs = [turn.reply.recall_ref for turn in turns if turn.reply is not None and turn.reply.recall_ref]
    recalled = recalled_entries_for_turns(actor=user, turn_refs=refs)
    for turn in turns:
        if turn.reply is not None and turn.reply.recall_ref:
            turn.memories = recalled.get(turn.reply.recall_ref, [])
    for turn, entries in zip(turns, turn_taught(user=user, turns=turns), strict=True):
        turn.taught = entries
        said = {str(m.pk) for m in (turn.message, turn.reply) if m is not None}
        here = str(turn.message.conversation_id)
        turn.first_taught = {
            e.pk for e in entries if e.source_conversation == here and said & set(e.source_message_ids)
        }
    answered = [] if incognito else [t for t in turns if t.reply is not None]
    styles = style_at(user=user, moments=[t.reply.created_at for t in answered if t.reply is not None])
    for turn in answered:
        if turn.reply is not None:
            used = {entry.pk for entry, _log in turn.memories}
            turn.style = [e for e in styles.get(turn.reply.created_at, []) if e.pk not in used]
    return turns


# What a message of the chat teaches: said explicitly ("remember that …"), or read from it by the
# conversation's extraction (a fact said in passing).
_TAUGHT_BY = [SourceKind.USER_EXPLICIT, SourceKind.EXTRACTED]


def taught_by_messages(*, user: Any, messages: list[Message]) -> dict[str, list[MemoryEntry]]:
    """The user's memories each message taught, said explicitly or learned from it by extraction,
    found by their provenance: the entry's own source or a merged mention. Two queries."""
    if not messages:
        return {}
    ids = [str(m.pk) for m in messages]
    conversations = list({str(m.conversation_id) for m in messages})
    scope = {
        "source_kind__in": _TAUGHT_BY,
        "source_conversation__in": conversations,
        "source_message_ids__overlap": ids,
    }
    own = Namespace.objects.owned_by(user).values("id")
    found: dict[str, dict[Any, MemoryEntry]] = {}
    entries = MemoryEntry.objects.filter(namespace_id__in=own, **scope).defer("embedding", "search_vector")
    for entry in entries.order_by("recorded_at"):
        for message_id in set(entry.source_message_ids) & set(ids):
            found.setdefault(message_id, {})[entry.pk] = entry
    mentions = (
        MemoryEvidence.objects.filter(entry__namespace_id__in=own, **scope)
        .select_related("entry")
        .defer("entry__embedding", "entry__search_vector")
    )
    for mention in mentions:
        for message_id in set(mention.source_message_ids) & set(ids):
            found.setdefault(message_id, {}).setdefault(mention.entry_id, mention.entry)
    return {message_id: list(entries.values()) for message_id, entries in found.items()}


def turn_taught(*, user: Any, turns: list[Turn]) -> list[list[MemoryEntry]]:
    """What each turn taught: learned from its user message or from its reply (an extraction may
    rest a statement on what the assistant said), each memory once."""
    said = [m for t in turns for m in (t.message, t.reply) if m is not None]
    taught = taught_by_messages(user=user, messages=said)
    found = []
    for turn in turns:
        ids = [str(m.pk) for m in (turn.message, turn.reply) if m is not None]
        entries = {e.pk: e for i in dict.fromkeys(ids) for e in taught.get(i, [])}
        found.append(list(entries.values()))
    return found


def conversation_turns(*, user: Any, conversation: Conversation) -> list[Turn]:
    return _turns(user, list(conversation_messages(conversation=conversation)), conversation.incognito)


def turn_for_message(*, user: Any, conversation: Conversation, message: Message) -> Turn:
    """The turn a message belongs to (its question and reply), for re-rendering it alone."""
    question = message.reply_to or message
    messages = [question, *Message.objects.filter(conversation=conversation, reply_to=question)]
    turn = _turns(user, messages, conversation.incognito)[0]
    if not conversation.incognito:
        jobs = extraction_jobs_for_conversation(actor=user, source_conversation=str(conversation.pk))
        mark_learning([turn], _learning_ids(jobs))
    return turn


def _learning_ids(jobs: list[ExtractionJob]) -> set[str]:
    """The ids of the messages an unfinished extraction job holds: one query, only while one is
    unfinished (the jobs come without their payload)."""
    active = [job.pk for job in jobs if job.status in (ExtractionStatus.QUEUED, ExtractionStatus.RUNNING)]
    if not active:
        return set()
    payloads = ExtractionJob.objects.filter(pk__in=active).values_list("messages", flat=True)
    return {str(m.get("id")) for messages in payloads for m in messages or []}


def mark_learning(turns: list[Turn], learning: set[str]) -> None:
    """Flag the turns whose user message is still being learned from (`Notices.learning`)."""
    for turn in turns:
        turn.learning = str(turn.message.pk) in learning


# --- Notices: what extraction learned from this conversation ----------------------------------


@dataclass
class MemoryUpdate:
    job: ExtractionJob
    counts: list[str]  # e.g. ["2 new", "1 replaced"]
    entries: list[MemoryEntry]


@dataclass
class Notices:
    # A job still queued or running: the page polls until it is done.
    active: bool = False
    updates: list[MemoryUpdate] = field(default_factory=list)
    failed: list[ExtractionJob] = field(default_factory=list)
    # The latest job finished and changed nothing (said once the user ended the conversation).
    nothing_new: bool = False
    # The ids of the messages unfinished jobs hold (their turns say "learning…" and poll).
    learning: set[str] = field(default_factory=set)


# The trigger of a job that reads one turn as soon as it is answered (chat.services, offline).
TURN_TRIGGER = "turn"

# Outcome counts of a job, as a person would say them.
_COUNTED = {
    "added": gettext_lazy("%(count)d new"),
    "merged": gettext_lazy("%(count)d confirmed"),
    "superseded": gettext_lazy("%(count)d replaced an older one"),
    "pending_review": gettext_lazy("%(count)d awaiting operator review"),
}


def conversation_notices(*, user: Any, conversation: Conversation) -> Notices:
    jobs = extraction_jobs_for_conversation(actor=user, source_conversation=str(conversation.pk))
    notices = Notices(
        active=any(j.status in (ExtractionStatus.QUEUED, ExtractionStatus.RUNNING) for j in jobs),
        learning=_learning_ids(list(jobs)),
    )
    changed_ids = [i for j in jobs if j.status == ExtractionStatus.DONE for i in j.result.get("changed", [])]
    entries = memory_entries_by_ids(actor=user, ids=changed_ids)
    for job in jobs:
        if job.status == ExtractionStatus.FAILED:
            notices.failed.append(job)
        elif (
            job.status == ExtractionStatus.DONE and job.result.get("changed") and job.trigger != TURN_TRIGGER
        ):
            # A job of one turn ("turn") shows what it learned at that turn's reply, with Undo.
            counts = [
                str(label) % {"count": job.result[name]}
                for name, label in _COUNTED.items()
                if job.result.get(name)
            ]
            # Entries erased since are simply no longer listed.
            listed = [entries[i] for i in job.result["changed"] if i in entries]
            notices.updates.append(MemoryUpdate(job=job, counts=counts, entries=listed))
    notices.nothing_new = bool(
        jobs and jobs[-1].status == ExtractionStatus.DONE and not jobs[-1].result.get("changed")
    )
    return notices


def conversations_for_memory(*, user: Any, memory_id: Any) -> QuerySet[Conversation]:
    """The user's conversations a memory (or an older version of it) came from or was used in."""
    sources = memory_sources(actor=user, memory_id=memory_id)
    learned = [pk for pk in (parse_uuid(ref) for ref in sources.conversations) if pk is not None]
    used = Message.objects.filter(conversation__user=user, recall_ref__in=list(sources.turn_refs)).values(
        "conversation_id"
    )
    return Conversation.objects.owned_by(user).filter(Q(pk__in=learned) | Q(pk__in=used))
