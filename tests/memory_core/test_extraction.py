"""Extraction: the offline rules, the LLM path against the scripted server, and the job service."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from memory_core.erasure import extraction_jobs_erase
from memory_core.errors import MemoryServiceError
from memory_core.extraction import (
    MAX_ATTEMPTS,
    PROMPT_VERSION,
    RULES_NAME,
    RULES_VERSION,
    LLMExtractor,
    RuleBasedExtractor,
    remember_requests,
)
from memory_core.extraction.jobs import extraction_enqueue, extraction_run, get_extractor
from memory_core.llm import LLMOutputError
from memory_core.models import (
    ExtractionJob,
    ExtractionStatus,
    FlaggedWrite,
    FlagKind,
    MemoryEntry,
    MemoryEvidence,
    MemoryStatus,
)
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user
from memory_core.tasks import extract_job
from memory_core.validation import normalise

AT = "2026-11-20T10:00:00+00:00"


def msg(message_id: str, content: str, role: str = "user", at: str = AT) -> dict[str, str]:
    return {"id": message_id, "role": role, "content": content, "created_at": at}


def extract(*contents: str) -> list:
    return RuleBasedExtractor().extract([msg(f"m{i}", text) for i, text in enumerate(contents)])


def submit(capture, namespace, conversation: str, messages: list[dict]) -> ExtractionJob:
    """Enqueue as a caller would; the commit runs the task synchronously (test settings)."""
    with capture(execute=True):
        job = extraction_enqueue(namespace=namespace, source_conversation=conversation, messages=messages)
    assert job is not None
    job.refresh_from_db()
    return job


def entries(namespace, **filters):
    return MemoryEntry.objects.in_namespaces([namespace.pk]).filter(**filters)


@pytest.mark.parametrize(
    ("said", "content", "type_", "category", "key", "pinned", "valid_from"),
    [
        (
            "I'm severely allergic to peanuts, so please be careful with recipes.",
            "The user is severely allergic to peanuts.",
            "semantic", "safety", "health.allergy.peanut", True, None,
        ),
        ("I can't eat gluten.", "The user cannot eat gluten.", "semantic", "safety", "diet.avoid.gluten",
         True, None),
        ("I am diabetic.", "The user is diabetic.", "semantic", "safety", "health.diabetic", True, None),
        ("I'm vegan, can you suggest a recipe?", "The user is vegan.", "semantic", "safety", "diet",
         True, None),
        ("My name is Alice Wang.", "The user's name is Alice Wang.", "semantic", "profile", "name",
         False, None),
        ("Please call me Ali.", "The user prefers to be called Ali.", "semantic", "profile", "preferred_name",
         False, None),
        (
            "I work as a backend engineer at Stripe.",
            "The user works as a backend engineer at Stripe.",
            "semantic", "profile", "job", False, None,
        ),
        ("I'm a data scientist.", "The user works as a data scientist.", "semantic", "profile", "job",
         False, None),
        ("I live in Beijing.", "The user lives in Beijing.", "semantic", "profile", "home_city", False, None),
        (
            "We finally moved to Shanghai on 2026-03-01!",
            "The user lives in Shanghai (moved there on 2026-03-01).",
            "semantic", "profile", "home_city", False, "2026-03-01",
        ),
        ("My wife's name is Mei.", "The user's wife is named Mei.", "semantic", "relationship", "family.wife",
         False, None),
        ("my son is called Leo", "The user's son is named Leo.", "semantic", "relationship", "family.son.leo",
         False, None),
        ("I prefer window seats when I fly.", "The user prefers window seats.", "semantic", "preference",
         "preference.window_seat", False, None),
        ("Honestly I really like my coffee black.", "The user likes their coffee black.", "semantic",
         "preference", "preference.coffee_black", False, None),
        ("I don't like spicy food", "The user does not like spicy food.", "semantic", "preference",
         "preference.spicy_food", False, None),
        ("Remember that my passport expires in March 2027.", "The user's passport expires in March 2027.",
         "semantic", "general", "", False, None),
        ("remember: refunds no longer need approval", "Refunds no longer need approval.", "procedural", "sop",
         "", False, None),
        ("Can you remember that I'm pescatarian?", "The user is pescatarian.", "semantic", "safety", "diet",
         True, None),
        ("Please remember that I'm allergic to shellfish.", "The user is allergic to shellfish.", "semantic",
         "safety", "health.allergy.shellfish", True, None),
        (
            "on 2026-06-29 I filed refund RF20260629001 for order 88231",
            "On 2026-06-29 the user filed refund RF20260629001 for order 88231.",
            "episodic", "event", "", False, "2026-06-29",
        ),
        (
            "Yesterday I booked flight CA1234 to Tokyo.",
            "On 2026-11-19 the user booked flight CA1234 to Tokyo.",
            "episodic", "event", "", False, "2026-11-19",
        ),
    ],
)  # fmt: skip
def test_it_extracts_each_pattern_from_what_the_user_said(
    said, content, type_, category, key, pinned, valid_from
):
    (candidate,) = extract(said)

    assert candidate.content == content
    assert (candidate.type, candidate.category, candidate.key) == (type_, category, key)
    assert candidate.pinned is pinned
    assert candidate.valid_from == valid_from
    assert candidate.message_ids == ["m0"]
    assert candidate.is_inference is False
    assert candidate.confidence == (1.0 if "remember" in said.lower() else 0.9)


def test_it_extracts_several_facts_from_one_message():
    found = extract("Hi! My name is Alice and I work as a nurse. I live in Berlin with my husband.")

    assert [c.key for c in found] == ["name", "job", "home_city"]


@pytest.mark.parametrize(
    "said",
    [
        "hi, how are you?",
        "what's the weather?",
        "Thanks, that was helpful!",
        "I love it!",
        "Do you remember what I said about Paris?",
        "My wife is Chinese.",
        "I need help with my taxes.",
    ],
)
def test_it_extracts_nothing_from_small_talk_and_questions(said):
    assert extract(said) == []


def test_it_never_takes_evidence_from_assistant_or_tool_messages():
    messages = [
        msg("a1", "I'm severely allergic to peanuts. I live in Paris.", role="assistant"),
        msg("t1", "I live in London. My name is Bob.", role="tool"),
        msg("u1", "ok thanks"),
    ]

    assert RuleBasedExtractor().extract(messages) == []


def test_it_uses_the_rules_without_an_api_key(settings):
    settings.OPENAI_API_KEY = ""
    assert isinstance(get_extractor(), RuleBasedExtractor)
    settings.OPENAI_API_KEY = "sk-test"
    assert isinstance(get_extractor(), LLMExtractor)


def test_it_stores_rule_based_memories_with_their_provenance(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    messages = [
        msg("u1", "I'm severely allergic to peanuts."),
        msg("a1", "Noted! I'll keep that in mind.", role="assistant"),
        msg("u2", "on 2026-06-29 I filed refund RF20260629001 for order 88231"),
    ]

    job = submit(django_capture_on_commit_callbacks, namespace, "conv-1", messages)

    assert job.status == ExtractionStatus.DONE
    assert job.extractor == RULES_NAME
    assert job.result["added"] == 2
    assert len(job.result["entries"]) == 2 and job.result["changed"] == job.result["entries"]
    allergy = entries(namespace, key="health.allergy.peanut").get()
    assert allergy.status == MemoryStatus.ACTIVE and allergy.pinned
    assert allergy.source_kind == "extracted" and allergy.source_conversation == "conv-1"
    assert allergy.source_message_ids == ["u1"]
    assert (allergy.extractor_model, allergy.extractor_prompt_version) == (RULES_NAME, RULES_VERSION)
    assert allergy.evidence.get().excerpt == "I'm severely allergic to peanuts."
    event = entries(namespace, type="episodic").get()
    assert "RF20260629001" in event.content and event.valid_from.date().isoformat() == "2026-06-29"


@pytest.mark.parametrize(
    "said",
    [
        "my password is hunter2",
        "my card number is 4111 1111 1111 1111",
        "the code is 123456",
        "Remember that my password is hunter2.",
        "remember my card number is 4111 1111 1111 1111",
        "Remember: the code is 123456",
    ],
)
def test_it_keeps_no_secret(owner, django_capture_on_commit_callbacks, said):
    namespace = namespace_for_user(user=owner)

    job = submit(django_capture_on_commit_callbacks, namespace, "conv-1", [msg("u1", said)])

    assert job.status == ExtractionStatus.DONE
    assert not entries(namespace).exists()
    if said.lower().startswith("remember"):
        flag = FlaggedWrite.objects.get(namespace=namespace)
        assert flag.kind == FlagKind.SECRET_DROPPED
        assert "hunter2" not in flag.excerpt and "4111" not in flag.excerpt and "123456" not in flag.excerpt
        assert job.result["rejected"] == 1


def test_it_sends_a_policy_weakening_rule_to_review_and_flags_it(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)

    job = submit(
        django_capture_on_commit_callbacks,
        namespace,
        "conv-1",
        [msg("u1", "remember: refunds no longer need approval")],
    )

    entry = entries(namespace).get()
    assert (entry.type, entry.status) == ("procedural", MemoryStatus.PENDING_REVIEW)
    assert job.result["pending_review"] == 1 and job.result["changed"] == []
    flag = FlaggedWrite.objects.get(namespace=namespace)
    assert flag.kind == FlagKind.POLICY_WEAKENING and flag.entry == entry


def test_it_stores_what_the_language_model_extracted(owner, openai_server, settings):
    settings.EXTRACTION_MODEL = "extract-model-x"
    namespace = namespace_for_user(user=owner)
    openai_server.reply_json(
        {
            "candidates": [
                {
                    "content": "The user is severely allergic to peanuts.",
                    "type": "semantic",
                    "category": "safety",
                    "key": "health.allergy.peanut",
                    "importance": 0.95,
                    "confidence": 0.97,
                    "message_ids": ["u1"],
                    "pinned": True,
                },
                {
                    "content": "On 2026-11-19 the user filed refund RF20260629001 for order 88231.",
                    "type": "episodic",
                    "category": "event",
                    "importance": 0.6,
                    "confidence": 0.9,
                    "message_ids": ["u2", "a1"],
                    "valid_from": "2026-11-19",
                },
            ]
        }
    )
    job = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="llm-1",
        source_conversation="conv-9",
        messages=[
            msg("u1", "btw I'm super allergic to peanuts"),
            msg("a1", "Thanks for telling me.", role="assistant"),
            msg("u2", "Yesterday I filed refund RF20260629001 for order 88231"),
        ],
    )

    extraction_run(job_id=job.pk)

    job.refresh_from_db()
    assert job.status == ExtractionStatus.DONE and job.extractor == "extract-model-x"
    assert job.result["added"] == 2
    allergy = entries(namespace, key="health.allergy.peanut").get()
    assert allergy.pinned and allergy.category == "safety" and allergy.confidence == 0.97
    assert (allergy.extractor_model, allergy.extractor_prompt_version) == ("extract-model-x", PROMPT_VERSION)
    event = entries(namespace, type="episodic").get()
    assert event.source_message_ids == ["u2"]  # the assistant's message is not evidence
    assert event.valid_from.date().isoformat() == "2026-11-19"
    (request,) = openai_server.requests_to("/chat/completions")
    assert request.body["model"] == "extract-model-x"
    assert request.body["response_format"]["type"] == "json_schema"
    assert request.body["response_format"]["json_schema"]["name"] == "ExtractionOutput"
    system, transcript = request.body["messages"]
    assert "secrets" in system["content"] and '"id": "u2"' in transcript["content"]
    assert '"time": "2026-11-20T10:00:00+00:00"' in transcript["content"]


def test_it_drops_candidates_citing_unknown_or_assistant_messages(owner, openai_server):
    namespace = namespace_for_user(user=owner)
    openai_server.reply_json(
        {
            "candidates": [
                {
                    "content": "The user lives in Oslo.",
                    "key": "home_city",
                    "confidence": 0.9,
                    "message_ids": ["u1"],
                },
                {"content": "The user owns a boat.", "confidence": 0.9, "message_ids": ["u1", "u999"]},
                {"content": "The user likes jazz.", "confidence": 0.9, "message_ids": ["a1"]},
                {"content": "The user is tall.", "confidence": 0.9, "message_ids": []},
            ]
        }
    )
    job = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="llm-2",
        messages=[msg("u1", "I live in Oslo."), msg("a1", "You like jazz, I guess.", role="assistant")],
    )

    extraction_run(job_id=job.pk)

    assert [e.content for e in entries(namespace)] == ["The user lives in Oslo."]


def test_it_fails_the_job_on_malformed_output_and_stores_nothing(owner, openai_server):
    namespace = namespace_for_user(user=owner)
    job = ExtractionJob.objects.create(
        namespace=namespace, idempotency_key="llm-3", messages=[msg("u1", "I live in Oslo.")]
    )
    openai_server.reply_raw("Sure! The user lives in Oslo.", times=2 * MAX_ATTEMPTS)

    for attempt in range(1, MAX_ATTEMPTS):
        with pytest.raises(LLMOutputError):  # re-raised: django-q runs the task again
            extraction_run(job_id=job.pk)
        job.refresh_from_db()
        assert (job.status, job.attempts) == (ExtractionStatus.FAILED, attempt)
        assert "did not return usable ExtractionOutput data after 2 attempts" in job.error
    extraction_run(job_id=job.pk)  # the last attempt ends quietly: no more retries

    job.refresh_from_db()
    assert (job.status, job.attempts) == (ExtractionStatus.FAILED, MAX_ATTEMPTS)
    assert len(openai_server.requests_to("/chat/completions")) == 2 * MAX_ATTEMPTS
    assert not entries(namespace).exists()


def test_it_runs_a_job_only_once(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    job = submit(
        django_capture_on_commit_callbacks,
        namespace,
        "conv-1",
        [msg("u1", "I live in Beijing. I prefer tea.")],
    )
    assert job.result["added"] == 2

    again = extract_job(job.pk)

    job.refresh_from_db()
    assert again == job.result and job.attempts == 1
    assert entries(namespace).count() == 2
    assert MemoryEvidence.objects.filter(entry__namespace=namespace).count() == 2


def test_it_makes_one_job_per_conversation_range(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    messages = [msg("u1", "I live in Beijing."), msg("a1", "Nice city!", role="assistant")]
    first = submit(django_capture_on_commit_callbacks, namespace, "conv-1", messages)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        second = extraction_enqueue(namespace=namespace, source_conversation="conv-1", messages=messages)

    assert second == first and callbacks == []  # done: nothing queued again
    assert ExtractionJob.objects.count() == 1
    assert entries(namespace).count() == 1
    changed = [*messages, msg("u2", "I prefer tea.")]
    third = submit(django_capture_on_commit_callbacks, namespace, "conv-1", changed)
    assert third != first and ExtractionJob.objects.count() == 2


def test_it_refuses_unusable_message_lists(owner):
    namespace = namespace_for_user(user=owner)
    refused = [
        ([], "the message list is empty"),
        ([msg(f"m{i}", "hi") for i in range(501)], "At most 500 messages"),
        ([{"id": "m1", "role": "user"}], "Message 0 has no content"),
        ([{"role": "user", "content": "hi"}], "Message 0 has no id"),
    ]
    for messages, reason in refused:
        with pytest.raises(MemoryServiceError, match=reason):
            extraction_enqueue(namespace=namespace, source_conversation="c", messages=messages)
    assert not ExtractionJob.objects.exists()


def test_it_writes_nothing_while_memory_is_paused(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    job = submit(django_capture_on_commit_callbacks, namespace, "conv-1", [msg("u1", "hi")])
    queued = ExtractionJob.objects.create(
        namespace=namespace, idempotency_key="k", messages=[msg("u1", "I live in Oslo.")]
    )
    namespace.memory_paused = True
    namespace.save(update_fields=["memory_paused"])

    assert (
        extraction_enqueue(
            namespace=namespace, source_conversation="c2", messages=[msg("u9", "I live in Rome.")]
        )
        is None
    )
    extraction_run(job_id=queued.pk)  # queued before the pause, run after it

    queued.refresh_from_db()
    assert queued.status == ExtractionStatus.DONE and queued.result["skipped"] == "paused"
    assert not entries(namespace).exists()
    assert ExtractionJob.objects.count() == 2 and job.status == ExtractionStatus.DONE


def test_it_supersedes_the_old_home_city(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    submit(django_capture_on_commit_callbacks, namespace, "conv-1", [msg("u1", "I live in Beijing.")])

    job = submit(
        django_capture_on_commit_callbacks,
        namespace,
        "conv-2",
        [msg("u1", "Big news: I moved to Shanghai.", at="2026-11-25T09:00:00+00:00")],
    )

    assert job.result["superseded"] == 1
    shanghai = entries(namespace, key="home_city", status=MemoryStatus.ACTIVE).get()
    assert "Shanghai" in shanghai.content
    beijing = entries(namespace, key="home_city", status=MemoryStatus.SUPERSEDED).get()
    assert "Beijing" in beijing.content and beijing.valid_to is not None
    assert beijing.superseded_by == shanghai and shanghai.supersedes == beijing


def test_it_merges_a_preference_said_in_three_conversations(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)

    results = [
        submit(
            django_capture_on_commit_callbacks, namespace, f"conv-{n}", [msg("u1", "I prefer window seats.")]
        ).result
        for n in (1, 2, 3)
    ]

    assert [r["added"] for r in results] == [1, 0, 0] and [r["merged"] for r in results] == [0, 1, 1]
    entry = entries(namespace).get()
    assert entry.evidence_count == 3
    assert sorted(entry.evidence.values_list("source_conversation", flat=True)) == [
        "conv-1",
        "conv-2",
        "conv-3",
    ]


def _run_in_threads(job_ids: list[int]) -> list[BaseException]:
    barrier = threading.Barrier(len(job_ids))
    errors: list[BaseException] = []

    def work(job_id: int) -> None:
        try:
            barrier.wait(timeout=10)
            extraction_run(job_id=job_id)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(job_id,)) for job_id in job_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return errors


@pytest.mark.django_db(transaction=True)
def test_it_does_not_duplicate_under_two_concurrent_workers(owner):
    namespace = namespace_for_user(user=owner)
    jobs = [
        ExtractionJob.objects.create(
            namespace=namespace,
            idempotency_key=f"concurrent-{n}",
            source_conversation=f"conv-{n}",
            messages=[
                msg("u1", "I prefer window seats. I'm severely allergic to peanuts. I live in Beijing.")
            ],
        )
        for n in (1, 2)
    ]

    assert _run_in_threads([job.pk for job in jobs]) == []

    active = list(entries(namespace, status=MemoryStatus.ACTIVE))
    assert len(active) == 3
    assert len({normalise(e.content) for e in active}) == 3
    assert all(e.evidence_count == 2 for e in active)
    assert sorted(ExtractionJob.objects.values_list("status", flat=True)) == ["done", "done"]


@pytest.mark.django_db(transaction=True)
def test_it_runs_a_job_once_when_two_workers_get_it(owner):
    namespace = namespace_for_user(user=owner)
    job = ExtractionJob.objects.create(
        namespace=namespace, idempotency_key="same", messages=[msg("u1", "I live in Beijing. I prefer tea.")]
    )

    assert _run_in_threads([job.pk, job.pk]) == []

    job.refresh_from_db()
    assert (job.status, job.attempts) == (ExtractionStatus.DONE, 1)
    assert entries(namespace).count() == 2
    assert MemoryEvidence.objects.filter(entry__namespace=namespace).count() == 2


# --- regressions ---------------------------------------------------------------------------------

SHOPPING = "Remember that my shopping list is " + ", ".join(f"item{i}" for i in range(450))
ITEMS = {f"item{i}" for i in range(450)}


def _assert_shortened_at_a_word(content: str) -> None:
    assert len(content) <= 2000 and content.endswith("\u2026")
    assert content.startswith("The user's shopping list is item0, item1,")
    assert content[:-1].split()[-1].rstrip(",") in ITEMS  # cut between items, never inside one


def test_it_shortens_a_long_remember_that_instead_of_failing():
    assert len(SHOPPING) > 3300
    (rule,) = extract(SHOPPING)
    (chat,) = remember_requests(msg("m1", SHOPPING))
    for candidate in (rule, chat):
        _assert_shortened_at_a_word(candidate.content)
        assert candidate.message_ids == ["m1"] or candidate is rule
    (long_key,) = remember_requests(msg("m1", "Remember that I love " + "x" * 300 + "."))
    assert long_key.key.startswith("preference.xxx") and len(long_key.key) == 120


def test_it_finishes_a_job_with_a_very_long_remember_that(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)

    job = submit(django_capture_on_commit_callbacks, namespace, "conv-1", [msg("u1", SHOPPING)])

    assert job.status == ExtractionStatus.DONE and job.result["added"] == 1
    _assert_shortened_at_a_word(entries(namespace).get().content)


def test_it_fails_a_job_on_an_unexpected_error_instead_of_leaving_it_queued(owner, monkeypatch):
    namespace = namespace_for_user(user=owner)
    job = ExtractionJob.objects.create(
        namespace=namespace, idempotency_key="boom", messages=[msg("u1", "I live in Oslo.")]
    )

    def broken(self, messages):
        raise RuntimeError("I live in Oslo")  # an arbitrary error may quote the transcript

    monkeypatch.setattr(RuleBasedExtractor, "extract", broken)
    for attempt in range(1, MAX_ATTEMPTS):
        with pytest.raises(RuntimeError):  # re-raised: django-q runs the task again
            extraction_run(job_id=job.pk)
        job.refresh_from_db()
        assert (job.status, job.attempts) == (ExtractionStatus.FAILED, attempt)
        assert "unexpected RuntimeError" in job.error and "Oslo" not in job.error
    extraction_run(job_id=job.pk)  # the last attempt ends quietly

    job.refresh_from_db()
    assert (job.status, job.attempts) == (ExtractionStatus.FAILED, MAX_ATTEMPTS)
    assert job.messages  # kept: submitting the range again retries it
    assert not entries(namespace).exists()


def test_it_drops_the_payload_when_a_job_is_done_or_skipped(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    done = submit(django_capture_on_commit_callbacks, namespace, "conv-1", [msg("u1", "I live in Oslo.")])
    assert done.status == ExtractionStatus.DONE and done.messages == []
    assert done.result["added"] == 1 and len(done.result["entries"]) == 1  # the result stays
    queued = ExtractionJob.objects.create(
        namespace=namespace, idempotency_key="k", messages=[msg("u1", "I prefer tea.")]
    )
    namespace.memory_paused = True
    namespace.save(update_fields=["memory_paused"])

    extraction_run(job_id=queued.pk)

    queued.refresh_from_db()
    assert queued.status == ExtractionStatus.DONE and queued.result["skipped"] == "paused"
    assert queued.messages == []
    assert not ExtractionJob.objects.filter(messages__icontains="tea").exists()


def test_it_dates_a_fact_from_the_message_it_was_said_in(owner, django_capture_on_commit_callbacks):
    namespace = namespace_for_user(user=owner)
    said = "2026-11-20T10:00:00+00:00"
    memory_add(  # learned since, from a newer message
        namespace=namespace,
        content="The user lives in Shanghai.",
        key="home_city",
        category="profile",
        valid_from=datetime.fromisoformat("2026-11-25T09:00:00+00:00"),
    )

    job = submit(
        django_capture_on_commit_callbacks, namespace, "c1", [msg("u1", "I live in Beijing.", at=said)]
    )

    beijing = entries(namespace, content__icontains="Beijing").get()
    assert beijing.valid_from == datetime.fromisoformat(said)
    # Older news arriving late is history, not the current value.
    assert beijing.status == MemoryStatus.SUPERSEDED and job.result["superseded"] == 0
    assert "Shanghai" in entries(namespace, key="home_city", status=MemoryStatus.ACTIVE).get().content


@pytest.mark.django_db(transaction=True)
def test_it_holds_no_lock_while_extracting_and_writes_nothing_once_erased(owner, monkeypatch):
    namespace = namespace_for_user(user=owner)
    job = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="erased",
        source_conversation="conv-1",
        messages=[msg("u1", "I live in Oslo.")],
    )
    extract = RuleBasedExtractor.extract
    seen: dict[str, object] = {}

    def erase_meanwhile(self, messages):
        seen["in_transaction"] = connection.in_atomic_block
        seen["status"] = ExtractionJob.objects.get(pk=job.pk).status

        def user_erases() -> None:  # another request: must not wait on the extraction
            try:
                with transaction.atomic():
                    ExtractionJob.objects.select_for_update(nowait=True).get(pk=job.pk)
                seen["erased"] = extraction_jobs_erase(actor=owner, source_conversations=["conv-1"])
            except BaseException as exc:
                seen["error"] = exc
            finally:
                connection.close()

        thread = threading.Thread(target=user_erases)
        thread.start()
        thread.join(timeout=30)
        return extract(self, messages)

    monkeypatch.setattr(RuleBasedExtractor, "extract", erase_meanwhile)

    assert extraction_run(job_id=job.pk) is None

    assert "error" not in seen and seen["erased"] == 1
    assert seen["in_transaction"] is False and seen["status"] == ExtractionStatus.RUNNING
    assert not entries(namespace).exists() and not ExtractionJob.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_extracts_again_from_a_payload_scrubbed_while_it_ran(owner, monkeypatch):
    namespace = namespace_for_user(user=owner)
    job = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="scrubbed",
        messages=[msg("u1", "I live in Oslo."), msg("u2", "I prefer tea.")],
    )
    extract = RuleBasedExtractor.extract
    calls: list[list[str]] = []

    def scrub_meanwhile(self, messages):
        calls.append([m["id"] for m in messages])
        if len(calls) == 1:  # an erasure of "Oslo" scrubs the payload meanwhile
            ExtractionJob.objects.filter(pk=job.pk).update(messages=[msg("u2", "I prefer tea.")])
        return extract(self, messages)

    monkeypatch.setattr(RuleBasedExtractor, "extract", scrub_meanwhile)

    extraction_run(job_id=job.pk)

    job.refresh_from_db()
    assert calls == [["u1", "u2"], ["u2"]]
    assert (job.status, job.attempts, job.result["added"]) == (ExtractionStatus.DONE, 1, 1)
    assert [e.content for e in entries(namespace)] == ["The user prefers tea."]


def test_it_leaves_a_job_another_worker_runs_and_takes_over_a_stale_one(owner):
    namespace = namespace_for_user(user=owner)
    claim, until = "another-run|||", timezone.now() + timedelta(seconds=60)
    job = ExtractionJob.objects.create(
        namespace=namespace,
        idempotency_key="running",
        messages=[msg("u1", "I live in Oslo.")],
        status=ExtractionStatus.RUNNING,
        attempts=1,
        claim=claim,
        claimed_until=until,
    )

    extraction_run(job_id=job.pk)  # a second delivery while the first worker still runs it

    job.refresh_from_db()
    assert (job.status, job.attempts, job.claim) == (ExtractionStatus.RUNNING, 1, claim)
    assert not entries(namespace).exists()

    # That worker was killed: its claim ran out (the task timeout passed).
    ExtractionJob.objects.filter(pk=job.pk).update(claimed_until=timezone.now() - timedelta(seconds=1))
    extraction_run(job_id=job.pk)

    job.refresh_from_db()
    assert (job.status, job.attempts, job.result["added"]) == (ExtractionStatus.DONE, 2, 1)
