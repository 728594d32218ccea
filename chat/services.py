"""The chat turn: recall → prompt → LLM → save, and the triggers that hand conversations to
memory extraction. Memories are reached only through memory_core's services and selectors."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from chat.message_checks import MESSAGE_MAX_CHARS, clean_text, conversation_title, message_text
from chat.models import Conversation, Message
from chat.prompting import build_messages, history_budget, memory_budget, offline_summary, recent_window
from chat.selectors import TURN_TRIGGER
from chat.style import STYLE_MAX, current_style, style_block, style_preferences
from chat.turn_writes import message_insert, reply_insert
from config.tuning import tuned
from memory_core import judgement
from memory_core.erasure import Requester, Tally, erasure_receipt_record, extraction_jobs_erase
from memory_core.errors import Conflict, MemoryServiceError
from memory_core.extraction import Candidate, remember_requests
from memory_core.extraction.jobs import candidate_add, extraction_enqueue
from memory_core.guards.secrets import SecretScan, redact_values
from memory_core.language import is_chinese
from memory_core.llm import ChatResult, LLMError, LLMOutputError, OfflineProvider, get_llm
from memory_core.models import (
    ActorKind,
    ErasureReceipt,
    ErasureScope,
    ExtractionJob,
    MemoryEntry,
    Namespace,
    NamespaceKind,
    SourceKind,
)
from memory_core.outcomes import AddOutcome
from memory_core.recall import RecallResult, memory_recall
from memory_core.secret_kinds import kinds_said, recorded_kinds
from memory_core.services import namespace_for_user

logger = logging.getLogger(__name__)

TITLE_MAX_CHARS = 200
CHAT_EXTRACT_EVERY_N_TURNS, CHAT_IDLE_MINUTES = 10, 30  # a long or paused talk is read before it ends
CHAT_LEARN_EACH_TURN_OFFLINE = True  # offline reading costs no model call: learn at the reply that taught it


@dataclass
class PreparedTurn:
    conversation: Conversation
    user_message: Message
    llm_messages: list[dict[str, str]]
    recall: RecallResult | None
    memory_state: str  # "on" | "incognito" | "paused"
    acknowledgements: list[str] = field(default_factory=list)
    # The secret values of the user's message, scanned once: the reply must never repeat them.
    secret_values: tuple[str, ...] = ()
    # The complete messages before it not yet in the summary, as loaded for the prompt.
    earlier: list[Message] = field(default_factory=list)
    # The conversation has not said it runs offline yet: an offline reply opens with the notice.
    offline_notice: bool = True


# --- Conversations ---------------------------------------------------------------------------


def conversation_create(*, user: Any, incognito: bool = False, title: str = "") -> Conversation:
    return Conversation.objects.create(
        user=user, incognito=incognito, title=clean_text(title)[:TITLE_MAX_CHARS]
    )


def conversation_rename(*, conversation: Conversation, title: str) -> Conversation:
    title = clean_text(title)
    if not title:
        raise MemoryServiceError(
            "A title may not be blank.", field_errors={"title": ["This field may not be blank."]}
        )
    if len(title) > TITLE_MAX_CHARS:
        raise MemoryServiceError(
            "Title too long.", field_errors={"title": [f"At most {TITLE_MAX_CHARS} characters."]}
        )
    conversation.title = title
    conversation.save(update_fields=["title"])
    return conversation


@transaction.atomic
def conversations_erase(*, user: Any, conversation_ids: Collection[Any]) -> Tally:
    """Delete the user's conversations among `conversation_ids`, their messages and their
    extraction jobs (the transcript payloads; a queued job must not learn from them). Memories
    learned from them stay. Returns the counts, for the erasure's receipt."""
    conversations = Conversation.objects.owned_by(user).filter(pk__in=list(conversation_ids))
    refs = [str(pk) for pk in conversations.values_list("pk", flat=True)]
    if not refs:
        return Tally()
    jobs = extraction_jobs_erase(actor=user, source_conversations=refs)
    messages = Message.objects.filter(conversation_id__in=refs).count()
    conversations.delete()
    return Tally(conversations=len(refs), messages=messages, jobs=jobs)


@transaction.atomic
def conversation_delete(*, conversation: Conversation, requester: Requester | None = None) -> ErasureReceipt:
    """Delete one conversation (see `conversations_erase`), with a receipt."""
    tally = conversations_erase(user=conversation.user, conversation_ids=[conversation.pk])
    return erasure_receipt_record(
        subject=conversation.user, scope=ErasureScope.CONVERSATION, tally=tally, requester=requester
    )


def conversation_close(*, conversation: Conversation) -> ExtractionJob | None:
    """The user ended the conversation: what it taught is extracted in the background."""
    conversation.closed_at = timezone.now()
    conversation.save(update_fields=["closed_at"])
    return _extract_pending(conversation=conversation, trigger="closed")


def _extract_pending(*, conversation: Conversation, trigger: str, at_least: int = 0) -> ExtractionJob | None:
    """Hand the messages not yet extracted to memory_core (never for incognito conversations);
    `at_least`: only if that many user messages wait (the every-N-turns trigger)."""
    if conversation.incognito:
        return None
    with transaction.atomic():
        # Locked and re-read: two requests at once (two tabs finishing, a close beside a trigger)
        # hand the same messages over once, and a message saved meanwhile waits for this to commit
        # before it counts itself (`turn_writes.message_insert`), so the recount below is exact.
        state = (
            Conversation.objects.select_for_update()
            .filter(pk=conversation.pk)
            .values_list("extracted_upto", "unextracted_turns")
            .first()
        )
        if state is None:
            return None
        conversation.extracted_upto, conversation.unextracted_turns = state
        if conversation.unextracted_turns < at_least:
            return None
        messages = conversation.messages.all()
        if conversation.extracted_upto is not None:
            messages = messages.filter(pk__gt=conversation.extracted_upto)
        batch = list(messages.order_by("id")[:500])
        job = None
        if any(m.role == Message.Role.USER for m in batch):
            job = extraction_enqueue(
                namespace=namespace_for_user(user=conversation.user),
                source_conversation=str(conversation.pk),
                messages=[_payload(m) for m in batch],
                trigger=trigger,
            )
            # None: memory is paused (what was said while paused is never learned, not even after
            # resuming) or nothing is left to learn (said before an erase-all); either way these
            # messages are never handed over again.
            conversation.extracted_upto = batch[-1].pk
        left = conversation.messages.filter(role=Message.Role.USER)
        if conversation.extracted_upto is not None:
            left = left.filter(pk__gt=conversation.extracted_upto)
        conversation.unextracted_turns = left.count()
        Conversation.objects.filter(pk=conversation.pk).update(
            extracted_upto=conversation.extracted_upto, unextracted_turns=conversation.unextracted_turns
        )
    return job


def _payload(message: Message) -> dict[str, Any]:
    return {
        "id": str(message.pk),
        "role": message.role,
        "content": message.content,
        "created_at": message.created_at.isoformat(),
    }


def conversations_sweep_idle(*, now: Any = None) -> int:
    """Extract from conversations idle longer than CHAT_IDLE_MINUTES (a scheduled job)."""
    now = now or timezone.now()
    cutoff = now - timedelta(minutes=tuned("CHAT_IDLE_MINUTES", CHAT_IDLE_MINUTES))
    idle = Conversation.objects.filter(incognito=False, last_activity_at__lt=cutoff).select_related("user")
    queued = 0
    for conversation in idle.iterator():
        latest = conversation.messages.order_by("-id").values_list("pk", flat=True).first()
        if latest is None or (
            conversation.extracted_upto is not None and latest <= conversation.extracted_upto
        ):
            continue
        if _extract_pending(conversation=conversation, trigger="idle") is not None:
            queued += 1
    return queued


# --- The turn --------------------------------------------------------------------------------


def message_post(*, conversation: Conversation, content: str) -> Message:
    """Save the user's message first, so nothing they typed is lost whatever happens next."""
    text = message_text(conversation=conversation, content=content)
    message = Message(
        conversation=conversation, role=Message.Role.USER, content=text, status=Message.Status.PENDING
    )
    # A title is derived text: shown in lists and exports, it never holds a secret.
    title = "" if conversation.title else conversation_title(judgement.secrets(text.splitlines()[0]).redacted)
    message_insert(message=message, conversation=conversation, now=timezone.now(), title=title)
    return message


def message_retry(*, message: Message) -> Message:
    """Put a failed (or abandoned, still pending) user message back in line for its reply."""
    if message.role != Message.Role.USER:
        raise MemoryServiceError("Only your own messages can be sent again.")
    if message.status == Message.Status.COMPLETE or Message.objects.filter(reply_to=message).exists():
        raise Conflict("This message already has a reply.")
    message.status, message.error = Message.Status.PENDING, ""
    message.save(update_fields=["status", "error"])
    return message


def _memory_state(conversation: Conversation, namespace: Namespace) -> str:
    if conversation.incognito:
        return "incognito"
    if namespace.memory_paused:
        return "paused"
    return "on"


# Localisable (locale/*/LC_MESSAGES/django.po); said in the language the user wrote in.
_ACKS = {
    "added": gettext_lazy("I'll remember that: %(content)s"),
    "merged": gettext_lazy("I already knew that, and noted it again: %(content)s"),
    "superseded": gettext_lazy("Updated what I remember: %(content)s (this replaces an older memory)"),
    "ignored": gettext_lazy("I already have that noted: %(content)s"),
    "pending_review": gettext_lazy(
        "That is a rule about how I should work: an operator will review it before I use it."
    ),
    "rejected": gettext_lazy("I won't store that: it looks like a secret (%(reason)s)."),
}


def acknowledgement_language(text: str) -> str:
    """The language the chat acknowledges a message in: the one the user wrote it in (Chinese or
    English), else the page's (a message of digits and symbols)."""
    if is_chinese(text):
        return "zh-hans"
    if any(ch.isascii() and ch.isalpha() for ch in text):
        return "en"
    return translation.get_language() or settings.LANGUAGE_CODE


def _acknowledge(outcome: AddOutcome, fallback: str) -> str:
    content = outcome.entry.content if outcome.entry is not None else fallback
    # "contains a secret (pin, secret (learned))": the kinds, said in the language acknowledged in.
    reason = outcome.reason.removeprefix("contains a secret (").removesuffix(")")
    kinds = recorded_kinds(reason)
    return str(_ACKS[outcome.action]) % {
        "content": content,
        "reason": reason if kinds is None else kinds_said(kinds),
    }


def _remember_now(
    *, user: Any, namespace: Namespace, message: Message, requests: list[Candidate]
) -> tuple[list[str], bool]:
    """An explicit "remember that …" (`requests`) is written at once and acknowledged in the
    reply; the flag says a statement was refused as a secret (already told, not said twice)."""
    acks = []
    refused_secret = False
    for candidate in requests:
        try:
            # It holds from when the user said it: a background extraction of an OLDER message of
            # the same slot, finishing later, is then recorded as history instead of replacing it.
            outcome = candidate_add(
                namespace=namespace,
                candidate=candidate,
                source_kind=SourceKind.USER_EXPLICIT,
                conversation=str(message.conversation_id),
                said_at=message.created_at,
                excerpt=message.content,
                actor_kind=ActorKind.USER,
                actor=user,
            )
        except LLMError:
            raise  # e.g. embeddings failed: the turn fails and can be retried
        except MemoryServiceError as exc:
            # A statement the memory refuses must not cost the user their reply.
            acks.append(_("I couldn't store that: %(error)s") % {"error": exc.message})
            continue
        refused_secret = refused_secret or outcome.action == "rejected"
        acks.append(_acknowledge(outcome, candidate.content))
        # The condition a held rule states first, kept at once (`screening.fact_within_rule`).
        acks += [_acknowledge(also, candidate.content) for also in outcome.also]
    return acks, refused_secret


def _acknowledgements(
    *, user: Any, namespace: Namespace, state: str, message: Message
) -> tuple[list[str], SecretScan]:
    """What the reply must tell the user about memory: what was remembered, or why not."""
    acks: list[str] = []
    refused_secret = False
    requests = remember_requests(_payload(message))  # read once: each may ask the rule model
    if state == "on" and requests:
        acks, refused_secret = _remember_now(
            user=user, namespace=namespace, message=message, requests=requests
        )
    elif requests:
        acks = [
            _("This is an incognito conversation, so I won't remember that.")
            if state == "incognito"
            else _("Memory is paused, so I won't remember that. You can resume it on the privacy page.")
        ]
    secrets = judgement.secrets(message.content)
    if secrets.found and state == "on" and not refused_secret:
        acks.append(
            _(
                "Your message looks like it contains a secret (%(kinds)s): "
                "I won't remember it. Consider changing it if it was real."
            )
            % {"kinds": kinds_said(secrets.kinds)}
        )
    return acks, secrets


def _namespace_and_style(user: Any) -> tuple[Namespace, list[MemoryEntry]]:
    """The user's namespace and their current style preferences (`style.current_style`) in one
    query; on the user's first turn the namespace is created, and the preferences cost their own."""
    contents = ArraySubquery(current_style(user).values("content")[:STYLE_MAX])
    row = Namespace.objects.filter(owner=user, kind=NamespaceKind.USER).annotate(style=contents).first()
    if row is None:
        return namespace_for_user(user=user), list(current_style(user)[:STYLE_MAX])
    return row, [MemoryEntry(content=content) for content in row.style]  # type: ignore[attr-defined]


def turn_prepare(*, user: Any, conversation: Conversation, user_message: Message) -> PreparedTurn:
    namespace, style = _namespace_and_style(user)
    state = _memory_state(conversation, namespace)
    with translation.override(acknowledgement_language(user_message.content)):
        acks, secrets = _acknowledgements(user=user, namespace=namespace, state=state, message=user_message)

    recall = None
    memory_note = ""
    if state == "on":
        recall = memory_recall(
            actor=user,
            query=user_message.content,
            budget_tokens=memory_budget(),
            turn_ref=f"chat:{user_message.pk}",
        )
    elif state == "incognito":
        memory_note = (
            "This conversation is incognito: you have no memories of the user here and learn nothing."
        )
    else:
        memory_note = "The user has paused memory: you have no memories of the user and learn nothing."

    earlier = list(
        conversation.messages.filter(status=Message.Status.COMPLETE, pk__lt=user_message.pk).in_turn_order()
    )
    if conversation.summary_upto is not None:
        earlier = [m for m in earlier if m.pk > conversation.summary_upto]
    history = recent_window(earlier, budget_tokens=history_budget())
    llm_messages = build_messages(
        memory_block=recall.prompt_block if recall and (recall.items or recall.always) else "",
        memory_note=memory_note,
        summary=conversation.summary,
        history=history,
        user_text=user_message.content,
        style=style_block(style_preferences(user=user, loaded=style)) if state == "on" else "",
    )
    if acks:
        llm_messages.insert(
            1, {"role": "system", "content": "Tell the user, in your reply: " + " ".join(acks)}
        )
    # Said once per conversation: by an earlier offline reply, or before the summary began.
    notice = conversation.summary_upto is None and not any(
        m.offline for m in earlier if m.role == Message.Role.ASSISTANT
    )
    return PreparedTurn(
        conversation,
        user_message,
        llm_messages,
        recall,
        state,
        acks,
        secrets.values,
        earlier=earlier,
        offline_notice=notice,
    )


def _usable(text: str) -> str:
    """The reply text, or LLMOutputError: a blank answer is a failure, never a saved reply."""
    if not text.strip():
        raise LLMOutputError("The language model returned an empty reply.")
    return text


def turn_complete(*, prepared: PreparedTurn, text: str, offline: bool) -> Message:
    """Save the finished reply (only complete replies are ever saved) and run the turn's triggers.

    If another request answered the same message meanwhile (two tabs), that reply is kept and
    returned, and this text is dropped: the database allows one reply per message.
    """
    _usable(text)
    if offline and prepared.acknowledgements:
        text = "\n".join(prepared.acknowledgements) + "\n\n" + text
    conversation, user_message = prepared.conversation, prepared.user_message
    # The reply is derived text: it never repeats a secret of the user's message.
    text = redact_values(text, prepared.secret_values)
    reply = Message(
        conversation=conversation,
        role=Message.Role.ASSISTANT,
        content=text.strip(),
        offline=offline,
        reply_to=user_message,
        recall_ref=prepared.recall.turn_ref
        if prepared.recall and (prepared.recall.items or prepared.recall.always)
        else "",
    )
    if not reply_insert(
        reply=reply,
        user_message=user_message,
        touch_at=_activity_due(conversation),
        paused=prepared.memory_state == "paused",
    ):
        return Message.objects.get(reply_to=user_message)
    if prepared.memory_state == "on":
        _maybe_extract_every_n(conversation, offline=offline)
    _maybe_summarise(conversation, seen=[*prepared.earlier, user_message, reply])
    return reply


# Activity is kept to the minute: the idle sweep counts in tens of minutes, and the user's message
# has just set it (`message_post`), so a reply within the minute saves the turn a write.
ACTIVITY_RESOLUTION = timedelta(minutes=1)


def _activity_due(conversation: Conversation) -> datetime | None:
    """The reply's new activity time, or None when the user's message set it within the minute."""
    now = timezone.now()
    if conversation.last_activity_at is None or now - conversation.last_activity_at >= ACTIVITY_RESOLUTION:
        return now
    return None


def turn_fail(*, prepared: PreparedTurn, error: MemoryServiceError) -> None:
    """Keep the user's message, marked failed with a clear reason, so it can be retried."""
    _mark_failed(prepared.user_message, error)


def _mark_failed(user_message: Message, error: MemoryServiceError) -> None:
    user_message.status, user_message.error = Message.Status.FAILED, error.message
    # Conditional: a reply saved meanwhile by another request must not be marked failed.
    Message.objects.filter(pk=user_message.pk).exclude(status=Message.Status.COMPLETE).update(
        status=Message.Status.FAILED, error=error.message
    )


def _offline_reply(llm: OfflineProvider, prepared: PreparedTurn) -> str:
    """The templated reply, in the language the user wrote in, with the offline notice only on the
    conversation's first offline reply."""
    with translation.override(acknowledgement_language(prepared.user_message.content)):
        return llm.chat(prepared.llm_messages, notice=prepared.offline_notice).text


def turn_reply(*, user: Any, conversation: Conversation, user_message: Message) -> Message:
    """Answer one user message (retrying a failed one is the same call). Raises LLMError on failure."""
    try:
        # Preparing can fail too (embeddings from the API): the message is then failed alike.
        prepared = turn_prepare(user=user, conversation=conversation, user_message=user_message)
        llm = get_llm()
        if isinstance(llm, OfflineProvider):
            result = ChatResult(text=_offline_reply(llm, prepared), model="offline", offline=True, usage=None)
        else:
            result = llm.chat(prepared.llm_messages)
        text = _usable(result.text)
    except LLMError as exc:
        _mark_failed(user_message, exc)
        raise
    return turn_complete(prepared=prepared, text=text, offline=result.offline)


def turn_stream(*, user: Any, conversation: Conversation, user_message: Message) -> Iterator[tuple[str, Any]]:
    """Yields ("delta", text) while the reply is generated, then ("done", reply) or ("error", LLMError)."""
    try:
        prepared = turn_prepare(user=user, conversation=conversation, user_message=user_message)
    except LLMError as exc:
        _mark_failed(user_message, exc)
        yield ("error", exc)
        return
    llm = get_llm()
    parts: list[str] = []
    if llm.offline and prepared.acknowledgements:
        ack = "\n".join(prepared.acknowledgements) + "\n\n"
        yield ("delta", ack)
    try:
        deltas = (
            iter(_offline_reply(llm, prepared).splitlines(keepends=True))
            if isinstance(llm, OfflineProvider)
            else llm.stream_chat(prepared.llm_messages)
        )
        for delta in deltas:
            parts.append(delta)
            yield ("delta", redact_values(delta, prepared.secret_values))
        _usable("".join(parts))
    except LLMError as exc:
        turn_fail(prepared=prepared, error=exc)
        yield ("error", exc)
        return
    yield ("done", turn_complete(prepared=prepared, text="".join(parts), offline=llm.offline))


def _maybe_extract_every_n(conversation: Conversation, *, offline: bool) -> None:
    """Hand the conversation over every CHAT_EXTRACT_EVERY_N_TURNS user messages, or after every
    turn (offline, where the rule-based reader costs no model call), so what a turn taught shows
    at its reply, not when the conversation ends. The counter was read with the reply;
    `_extract_pending` re-reads it under a lock, so two tabs finishing at once hand the same messages
    over once."""
    per_turn = offline and tuned("CHAT_LEARN_EACH_TURN_OFFLINE", CHAT_LEARN_EACH_TURN_OFFLINE)
    every = 1 if per_turn else tuned("CHAT_EXTRACT_EVERY_N_TURNS", CHAT_EXTRACT_EVERY_N_TURNS)
    if every > 0 and conversation.unextracted_turns >= every:
        _extract_pending(
            conversation=conversation, trigger=TURN_TRIGGER if per_turn else "every_n_turns", at_least=every
        )


SUMMARY_MIN_MESSAGES = 4  # fewer messages out of the window are not worth a summary yet


def _older(messages: list[Message]) -> list[Message]:
    """The messages that fell out of the recent window."""
    window = recent_window(messages, budget_tokens=history_budget())
    return messages[: len(messages) - len(window)]


def _maybe_summarise(conversation: Conversation, *, seen: list[Message] | None = None) -> None:
    """Fold turns that fell out of the recent window into the rolling summary.

    `seen`: the unsummarised messages this turn already loaded. Too few of them to summarise means
    no query: only messages another tab completed meanwhile could add more, and they are folded in
    at the next turn (more messages never leave fewer out of the window).
    """
    if seen is not None and len(_older(seen)) < SUMMARY_MIN_MESSAGES:
        return
    complete = conversation.messages.filter(status=Message.Status.COMPLETE)
    if conversation.summary_upto is not None:
        complete = complete.filter(pk__gt=conversation.summary_upto)
    older = _older(list(complete.in_turn_order()))
    if len(older) < SUMMARY_MIN_MESSAGES:
        return
    summary = _summarise(previous=conversation.summary, messages=older)
    # Derived text, kept across turns: no secret of the summarised messages survives in it.
    values = tuple(v for m in older for v in judgement.secrets(m.content).values)
    conversation.summary = redact_values(judgement.secrets(summary).redacted, values)
    conversation.summary_upto = older[-1].pk
    conversation.save(update_fields=["summary", "summary_upto"])


def _summarise(*, previous: str, messages: list[Message]) -> str:
    llm = get_llm()
    if llm.offline:
        return (previous + "\n" + offline_summary(messages)).strip()[-2000:]
    transcript = "\n".join(f"{m.role}: {m.content}" for m in messages)
    prompt = [
        {
            "role": "system",
            "content": "Update the running summary of a conversation. Keep facts, decisions and open "
            "questions; at most 150 words. Return only the summary.",
        },
        {"role": "user", "content": f"Summary so far:\n{previous or '(none)'}\n\nNew turns:\n{transcript}"},
    ]
    try:
        return llm.chat(prompt, temperature=0).text.strip()[:2000]
    except LLMError:
        logger.warning("summary update failed; keeping the previous summary", exc_info=True)
        return previous or offline_summary(messages)


__all__ = [
    "MESSAGE_MAX_CHARS",
    "PreparedTurn",
    "conversation_close",
    "conversation_create",
    "conversation_delete",
    "conversation_rename",
    "conversations_sweep_idle",
    "message_post",
    "message_retry",
    "turn_complete",
    "turn_fail",
    "turn_prepare",
    "turn_reply",
    "turn_stream",
]
