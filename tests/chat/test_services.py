"""The chat turn and its memory triggers, through the services (offline mode unless stated)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from chat.models import Conversation, Message
from chat.services import (
    MESSAGE_MAX_CHARS,
    conversation_close,
    conversation_delete,
    conversations_sweep_idle,
    message_post,
    message_retry,
    turn_complete,
    turn_prepare,
    turn_reply,
)
from memory_core.errors import Conflict, MemoryServiceError
from memory_core.extraction import RuleBasedExtractor
from memory_core.extraction.jobs import extraction_run
from memory_core.llm import OFFLINE_WITHOUT_MEMORIES
from memory_core.models import (
    ExtractionJob,
    ExtractionStatus,
    MemoryEntry,
    MemoryStatus,
    RecallLog,
    SourceKind,
)
from memory_core.services import namespace_for_user
from tests.chat.helpers import conversation, pause_memory, remember, say

pytestmark = pytest.mark.django_db


def test_it_recalls_memories_and_logs_them_under_the_turn(owner):
    entry = remember(owner, "The user lives in Lisbon.", category="profile")
    conv = conversation(owner)
    message, reply = say(owner, conv, "Where do I live?")
    assert reply.recall_ref == f"chat:{message.pk}"
    assert reply.reply_to_id == message.pk
    assert message.status == Message.Status.COMPLETE
    assert list(RecallLog.objects.filter(turn_ref=reply.recall_ref).values_list("entry_id", flat=True)) == [
        entry.pk
    ]
    # The offline reply is honest: it lists what was recalled.
    assert "The user lives in Lisbon." in reply.content
    entry.refresh_from_db()
    assert entry.access_count == 1


def test_it_builds_the_prompt_from_system_memories_history_and_message(owner, openai_server):
    remember(owner, "The user is a backend engineer.", category="profile")
    conv = conversation(owner)
    say(owner, conv, "Hello there")
    say(owner, conv, "What do I do for a living?")
    sent = openai_server.requests_to("/chat/completions")[-1].body["messages"]
    assert sent[0]["role"] == "system"
    assert any("<memories>" in m["content"] and "backend engineer" in m["content"] for m in sent)
    assert [m["content"] for m in sent if m["role"] != "system"] == [
        "Hello there",
        "ok",
        "What do I do for a living?",
    ]


@pytest.mark.parametrize(
    ("allergy", "question"),
    [
        ("The user is allergic to sesame.", "Any ideas for a packed lunch tomorrow?"),
        ("用户对芒果严重过敏。", "周末野餐带什么水果好？"),  # noqa: RUF001 -- typed full-width
    ],
)
def test_the_prompt_lists_a_pinned_safety_fact_before_the_profile(owner, openai_server, allergy, question):
    profile = [
        remember(owner, "The user works as a structural engineer in Leeds.", category="profile"),
        remember(owner, "The user prefers short answers.", category="profile"),
    ]
    remember(owner, allergy, category="safety", pinned=True)
    say(owner, conversation(owner), question)
    sent = openai_server.requests_to("/chat/completions")[-1].body["messages"]
    (block,) = [m["content"] for m in sent if "<memories>" in m["content"]]
    # Whatever the question found, the model reads the fact it must heed first.
    assert -1 < block.find(allergy) < min(block.find(entry.content) for entry in profile), block


def test_it_writes_remember_that_at_once_and_acknowledges_it(owner):
    conv = conversation(owner)
    message, reply = say(owner, conv, "Remember that I'm allergic to peanuts.")
    entry = MemoryEntry.objects.visible_to(owner).get()
    assert entry.source_kind == SourceKind.USER_EXPLICIT
    assert "peanuts" in entry.content
    assert entry.source_message_ids == [str(message.pk)]
    assert reply.content.startswith("I'll remember that: ")
    # Written before the reply was composed, so this very reply already knows it.
    assert reply.recall_ref and "peanuts" in reply.content.split("\n\n", 1)[1]


def test_it_asks_the_model_to_acknowledge_remember_that(owner, openai_server):
    conv = conversation(owner)
    say(owner, conv, "Please remember that my home city is Porto.")
    sent = openai_server.requests_to("/chat/completions")[-1].body["messages"]
    assert any(
        m["role"] == "system" and m["content"].startswith("Tell the user, in your reply: I'll remember that")
        for m in sent
    )
    assert MemoryEntry.objects.visible_to(owner).filter(content__icontains="Porto").exists()


def test_it_neither_recalls_nor_learns_in_incognito(owner, django_capture_on_commit_callbacks):
    remember(owner, "The user is allergic to peanuts.", category="safety", pinned=True)
    conv = conversation(owner, incognito=True)
    _message, reply = say(owner, conv, "Remember that I live in Lisbon. What should I cook?")
    assert "incognito conversation, so I won't remember that" in reply.content
    assert str(OFFLINE_WITHOUT_MEMORIES) in reply.content
    assert "peanuts" not in reply.content
    assert reply.recall_ref == ""
    assert not RecallLog.objects.exists()
    assert not MemoryEntry.objects.filter(content__icontains="Lisbon").exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert conversation_close(conversation=conv) is None
    assert not ExtractionJob.objects.exists()


def test_it_tells_the_model_it_is_incognito(owner):
    remember(owner, "The user is allergic to peanuts.", category="safety", pinned=True)
    conv = conversation(owner, incognito=True)
    message = message_post(conversation=conv, content="Hi")
    prepared = turn_prepare(user=owner, conversation=conv, user_message=message)
    assert prepared.recall is None and prepared.memory_state == "incognito"
    system = " ".join(m["content"] for m in prepared.llm_messages if m["role"] == "system")
    assert "incognito" in system and "<memories>" not in system


def test_it_neither_recalls_nor_learns_while_memory_is_paused(owner, django_capture_on_commit_callbacks):
    remember(owner, "The user is allergic to peanuts.", category="safety", pinned=True)
    pause_memory(owner)
    conv = conversation(owner)
    _, reply = say(owner, conv, "Remember that I live in Lisbon.")
    assert "Memory is paused, so I won't remember that" in reply.content
    assert "peanuts" not in reply.content and reply.recall_ref == ""
    assert not RecallLog.objects.exists()
    assert not MemoryEntry.objects.filter(content__icontains="Lisbon").exists()
    with django_capture_on_commit_callbacks(execute=True):
        assert conversation_close(conversation=conv) is None
    assert not ExtractionJob.objects.exists()

    # Resuming later does not learn what was said while paused.
    namespace = namespace_for_user(user=owner)
    namespace.memory_paused = False
    namespace.save(update_fields=["memory_paused"])
    with django_capture_on_commit_callbacks(execute=True):
        assert conversation_close(conversation=conv) is None
    assert not ExtractionJob.objects.exists()


def test_it_extracts_every_n_turns(owner, settings, django_capture_on_commit_callbacks):
    settings.CHAT_EXTRACT_EVERY_N_TURNS = 3
    conv = conversation(owner)
    say(owner, conv, "I live in Lisbon.")
    say(owner, conv, "Nice weather today.")
    assert not ExtractionJob.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        _, reply = say(owner, conv, "I work as a nurse.")
    job = ExtractionJob.objects.get()
    assert job.trigger == "every_n_turns" and job.status == ExtractionStatus.DONE
    assert job.idempotency_key.split(":")[2].endswith(f"-{reply.pk}")  # the range ends at the reply
    assert job.messages == []  # done: the transcript payload is dropped
    assert job.result["added"] >= 1
    conv.refresh_from_db()
    assert conv.extracted_upto == reply.pk
    # The next batch starts after what was already handed over.
    for text in ("one", "two"):
        say(owner, conv, text)
    assert ExtractionJob.objects.count() == 1
    say(owner, conv, "three")
    assert ExtractionJob.objects.count() == 2


def test_it_sweeps_idle_conversations_once(owner, other_user):
    idle = conversation(owner)
    say(owner, idle, "I live in Lisbon.")
    fresh = conversation(owner)
    say(owner, fresh, "I live in Porto.")
    hidden = conversation(other_user, incognito=True)
    say(other_user, hidden, "I live in Faro.")
    later = timezone.now() + timedelta(minutes=31)
    Conversation.objects.filter(pk__in=[idle.pk, hidden.pk]).update(
        last_activity_at=timezone.now() - timedelta(minutes=1)
    )
    Conversation.objects.filter(pk=fresh.pk).update(last_activity_at=later - timedelta(minutes=5))

    assert conversations_sweep_idle(now=later) == 1
    job = ExtractionJob.objects.get()
    assert job.trigger == "idle" and job.source_conversation == str(idle.pk)
    assert conversations_sweep_idle(now=later) == 0  # nothing new since


def test_it_folds_older_turns_into_the_summary(owner, settings):
    settings.CHAT_HISTORY_TOKENS = 60
    conv = conversation(owner)
    for text in ("My first topic is gardening.", "Second: tomatoes.", "Third: watering.", "Fourth: soil."):
        say(owner, conv, text)
    conv.refresh_from_db()
    assert "gardening" in conv.summary
    assert conv.summary_upto is not None

    message = message_post(conversation=conv, content="What was my first topic?")
    prepared = turn_prepare(user=owner, conversation=conv, user_message=message)
    contents = [m["content"] for m in prepared.llm_messages]
    assert any(c.startswith("Summary of the earlier part of this conversation:") for c in contents)
    # Folded turns are no longer sent verbatim; the newest still are.
    verbatim = [m["content"] for m in prepared.llm_messages if m["role"] == "user"]
    assert "My first topic is gardening." not in verbatim
    assert verbatim[-1] == "What was my first topic?"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "Type a message first."),
        ("   \n ", "Type a message first."),
        ("x" * (MESSAGE_MAX_CHARS + 1), "at most"),
    ],
)
def test_it_refuses_bad_messages_and_saves_nothing(owner, text, error):
    conv = conversation(owner)
    with pytest.raises(MemoryServiceError) as caught:
        message_post(conversation=conv, content=text)
    assert error.lower() in caught.value.message.lower()
    assert not Message.objects.exists()


def test_it_drops_nul_characters(owner):
    conv = conversation(owner)
    message = message_post(conversation=conv, content="a\x00b")
    assert message.content == "ab"


def test_it_keeps_one_reply_per_message(owner):
    """Two requests answering the same message (two tabs): the first reply stays, the second is dropped."""
    conv = conversation(owner)
    message = message_post(conversation=conv, content="Hello")
    first = turn_prepare(user=owner, conversation=conv, user_message=message)
    second = turn_prepare(user=owner, conversation=conv, user_message=message)
    kept = turn_complete(prepared=first, text="first", offline=True)
    again = turn_complete(prepared=second, text="second", offline=True)
    assert again.pk == kept.pk
    assert list(Message.objects.filter(role="assistant").values_list("content", flat=True)) == ["first"]
    with pytest.raises(Conflict):
        message_retry(message=message)


def test_it_shows_a_late_reply_under_its_question(owner):
    conv = conversation(owner)
    early = message_post(conversation=conv, content="first question")
    Message.objects.filter(pk=early.pk).update(status=Message.Status.FAILED, error="boom")
    _later, _ = say(owner, conv, "second question")
    early.refresh_from_db()
    message_retry(message=early)

    reply = turn_reply(user=owner, conversation=conv, user_message=early)
    order = list(conv.messages.in_turn_order().values_list("pk", flat=True))
    assert order.index(reply.pk) == order.index(early.pk) + 1


def test_it_keeps_what_was_remembered_over_an_older_message_extracted_later(owner):
    conv = conversation(owner)
    older, _ = say(owner, conv, "I live in Beijing.")
    Message.objects.filter(pk=older.pk).update(created_at=timezone.now() - timedelta(hours=1))
    said, _ = say(owner, conv, "Remember that I live in Shanghai.")  # written at once
    later = timezone.now() + timedelta(minutes=31)

    assert conversations_sweep_idle(now=later) == 1  # queued (no cluster runs it here) ...
    job = ExtractionJob.objects.get()
    extraction_run(job_id=job.pk)  # ... and run later by the worker

    job.refresh_from_db()
    assert job.status == ExtractionStatus.DONE
    home = MemoryEntry.objects.visible_to(owner).filter(key="home_city")
    shanghai = home.get(status=MemoryStatus.ACTIVE)
    assert "Shanghai" in shanghai.content and shanghai.valid_from == said.created_at
    beijing = home.get(status=MemoryStatus.SUPERSEDED)
    assert "Beijing" in beijing.content and beijing.superseded_by == shanghai
    older.refresh_from_db()
    assert beijing.valid_from == older.created_at and beijing.valid_to == shanghai.valid_from


def test_a_remember_that_one_memory_cannot_hold_is_refused_before_anything_is_saved(owner):
    text = "Remember that my shopping list is " + ", ".join(f"item{i}" for i in range(450))
    assert len(text) > 3300
    conv = conversation(owner)

    with pytest.raises(MemoryServiceError) as refused:
        message_post(conversation=conv, content=text)

    assert "one memory holds at most 2,000" in refused.value.message
    assert not conv.messages.exists() and not MemoryEntry.objects.exists()
    # An extraction job that meets one (an imported transcript) still reads it, shortened, whole jobs
    # never failing on it.
    (candidate,) = RuleBasedExtractor().extract([{"id": "1", "role": "user", "content": text}])
    assert len(candidate.content) <= 2000 and candidate.content.endswith("\u2026")


def test_it_deletes_a_conversation_with_its_extraction_jobs(owner, other_user):
    mark = "Zanzibar-5521"
    conv = conversation(owner)
    say(owner, conv, f"I live in {mark}.")
    kept = conversation(owner)
    say(owner, kept, "I prefer tea.")
    others = conversation(other_user)
    say(other_user, others, "I prefer coffee.")
    for c in (conv, kept, others):
        assert conversation_close(conversation=c) is not None  # queued; no cluster runs them here
    job = ExtractionJob.objects.get(source_conversation=str(conv.pk))

    conversation_delete(conversation=conv)

    assert not Conversation.objects.filter(pk=conv.pk).exists()
    assert not ExtractionJob.objects.filter(messages__icontains=mark).exists()
    assert not ExtractionJob.objects.filter(source_conversation=str(conv.pk)).exists()
    assert extraction_run(job_id=job.pk) is None  # the task the queue still holds learns nothing
    assert not MemoryEntry.objects.filter(content__icontains=mark).exists()
    assert ExtractionJob.objects.count() == 2  # other conversations' jobs are untouched
