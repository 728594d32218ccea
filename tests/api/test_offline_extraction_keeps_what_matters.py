# ruff: noqa: RUF001
"""What mem0's default add (`infer` true) keeps when no language model is configured: the rules'
extraction of the conversation. It read few of the ways people tell a condition and no rules at
all, so a standing rule told in a message was dropped without a word (the event said SUCCEEDED),
"I'm a pharmacist with MS" was kept as a job at "MS", and "My daughter is seven, she has a peanut
allergy" as nothing. Now the whole message is judged as a direct write judges it: a rule is held
for an operator, flagged when it weakens a control; a safety fact of the user or a dependant the
rules do not read is kept whole and pinned; "she" / "he" are the relative just spoken of. The
chat's "remember that" keeps the words whole beside what the rules read of them when a safety
fact would otherwise be lost."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memory_core.models import FlaggedWrite, MemoryEntry, MemoryStatus
from tests.api.add_helpers import mem0_infer
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db


RULES = [
    ("From now on the night staff can skip the second ID check for regulars.", True),
    ("Going forward, reception may keep copies of guests' passports on the shared drive.", True),
    ("以后夜班可以不用再核对老客户的身份证了。", True),
    ("Every delivery driver has to sign in at the gate before unloading, no exceptions.", False),
    # a relaxation the rules find a fact in is held whole all the same: read apart, the fact was kept
    # active ("住戶…" read as where the user lives) and the relaxation lost
    ("管委會決議：住戶的外送包裹，從下週起管理員可以直接送上樓放門口，不用住戶本人簽收。", True),
    ("I live in Leeds and from Monday the warehouse night shift can skip the two-person sign-off.", True),
    ("我住在杭州。从下周起仓库夜班不用再双人签字了。", True),
]


@pytest.mark.parametrize(("said", "weakens"), RULES)
def test_a_rule_told_in_a_message_waits_for_review(
    key_client, django_capture_on_commit_callbacks, said, weakens
):
    event = mem0_infer(key_client, django_capture_on_commit_callbacks, said)

    assert [result["status"] for result in event["results"]] == ["pending_review"]
    assert event["held_for_review"] == 1
    [held] = MemoryEntry.objects.all()
    assert held.status == MemoryStatus.PENDING_REVIEW and held.type == "procedural"
    assert FlaggedWrite.objects.filter(entry=held).exists() == weakens
    # Never recalled before an operator approves it.
    found = key_client.post("/v3/memories/search/", {"query": said, "user_id": "u1"}, format="json").json()
    assert found["results"] == [] if isinstance(found, dict) else found == []


# (said, a word the pinned memory keeps)
UNREAD = [
    (
        "Booking ref TKM-88412, two tickets. I'm a wheelchair user so we need the accessible platform.",
        "wheelchair",
    ),
    ("Quick one: I'm a pharmacist with MS and use a perching stool behind the counter.", "MS"),
    ("我女儿今年五岁，她对鸡蛋严重过敏。", "鸡蛋"),
    ("My daughter is seven, she has a peanut allergy.", "peanut"),
    ("My son is 12. He's got type 1 diabetes.", "diabetes"),
]


@pytest.mark.parametrize(("said", "word"), UNREAD)
def test_a_safety_fact_the_rules_do_not_read_is_kept_and_pinned(
    key_client, django_capture_on_commit_callbacks, said, word
):
    mem0_infer(key_client, django_capture_on_commit_callbacks, said)

    pinned = MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE, pinned=True, content__contains=word)
    assert pinned.exists(), list(MemoryEntry.objects.values_list("content", "pinned"))
    assert not any(
        content.startswith("我") or " I'm " in f" {content} "
        for content in pinned.values_list("content", flat=True)
    )


@pytest.mark.parametrize(
    ("said", "job", "condition"),
    [
        ("I work as a nurse with epilepsy, mostly nights.", "nurse", "epilepsy"),
        (
            "I'm a primary school teacher with type 1 diabetes, so lunch is at noon sharp.",
            "primary school teacher",
            "diabetes",
        ),
    ],
)
def test_a_condition_after_a_job_is_no_part_of_it(
    key_client, django_capture_on_commit_callbacks, said, job, condition
):
    mem0_infer(key_client, django_capture_on_commit_callbacks, said)

    kept = list(MemoryEntry.objects.values_list("content", "pinned"))
    assert ("The user works as " + ("an " if job[0] in "aeiou" else "a ") + job + ".", False) in kept, kept
    assert any(condition in content and pinned for content, pinned in kept), kept


def test_a_job_with_people_who_have_a_condition_keeps_them(key_client, django_capture_on_commit_callbacks):
    mem0_infer(key_client, django_capture_on_commit_callbacks, "I work as a nurse with dementia patients.")

    kept = list(MemoryEntry.objects.values_list("content", "pinned"))
    assert ("The user works as a nurse with dementia patients.", False) in kept, kept


def test_a_relatives_condition_told_with_a_pronoun_is_theirs(key_client, django_capture_on_commit_callbacks):
    mem0_infer(
        key_client,
        django_capture_on_commit_callbacks,
        "My son starts school on Monday, he has a severe egg allergy.",
    )

    assert MemoryEntry.objects.filter(
        content="The user's son has a severe egg allergy.", pinned=True
    ).exists()
    # "she" after "my husband" is not him.
    mem0_infer(
        key_client, django_capture_on_commit_callbacks, "My husband drove, she has epilepsy.", user_id="u2"
    )
    assert not MemoryEntry.objects.filter(
        content__startswith="The user's husband", content__contains="epilepsy"
    ).exists()


NOT_KEPT = [
    "What if I'm allergic to the vaccine?",
    "If I were allergic to penicillin, what would you give me?",
    "keep going, you've got this!",
    "Thanks so much, the lasagne recipe was a hit with everyone 🎉",
]


@pytest.mark.parametrize("said", NOT_KEPT)
def test_questions_suppositions_and_chat_are_not_kept_as_facts_or_rules(
    key_client, django_capture_on_commit_callbacks, said
):
    event = mem0_infer(key_client, django_capture_on_commit_callbacks, said)

    assert event["held_for_review"] == 0
    assert not MemoryEntry.objects.filter(pinned=True).exists()
    assert not MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW).exists()


def test_the_chat_keeps_a_safety_fact_beside_the_booking_it_was_told_with(
    owner, django_capture_on_commit_callbacks
):
    said = (
        "Remember that the booking ref is TKM-88412 and I'm a wheelchair user, so we need the "
        "accessible platform."
    )
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": said})

    assert MemoryEntry.objects.filter(content__contains="TKM-88412").exists()
    assert MemoryEntry.objects.filter(pinned=True, content__contains="wheelchair").exists(), list(
        MemoryEntry.objects.values_list("content", "pinned")
    )


# A rule built on a dependant's condition waits for an operator; the condition does not wait with
# it, and mem0's event lists it after the rule, as a direct write's reply does.
RULE_ON_A_CONDITION = [
    (
        "For the sitter: Noor has cow's milk protein allergy, so if the expressed milk runs out she has "
        "the prescription formula in the tin with the purple lid. Never ordinary formula.",
        "Noor",
    ),
    (
        "Since Dadaji moved in with us he has a pacemaker, so always book him the hand search, "
        "never the arch.",
        "pacemaker",
    ),
]


@pytest.mark.parametrize(("said", "word"), RULE_ON_A_CONDITION)
def test_the_condition_a_held_rule_rests_on_is_pinned_and_listed(
    key_client, django_capture_on_commit_callbacks, said, word
):
    event = mem0_infer(key_client, django_capture_on_commit_callbacks, said)

    statuses = [(result.get("status"), result["memory"]) for result in event["results"]]
    assert statuses[0][0] == "pending_review", statuses
    assert any(word in memory and status is None for status, memory in statuses[1:]), statuses
    condition = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE, content__contains=word)
    assert condition.pinned and condition.source_kind == "extracted"


def test_a_question_told_with_a_condition_is_kept_as_a_question(
    key_client, django_capture_on_commit_callbacks
):
    mem0_infer(
        key_client,
        django_capture_on_commit_callbacks,
        "Should I stick to paracetamol with my vWD, or is ibuprofen fine?",
    )

    [kept] = MemoryEntry.objects.filter(pinned=True)
    assert kept.content == "Should the user stick to paracetamol with the user's vWD, or is ibuprofen fine?"


def test_being_told_to_note_something_is_not_a_name(key_client, django_capture_on_commit_callbacks):
    mem0_infer(key_client, django_capture_on_commit_callbacks, "爸说车钥匙放在玄关抽屉里了，叫我们两个记一下")

    assert not MemoryEntry.objects.filter(content__contains="希望被称为").exists()


@pytest.mark.parametrize(
    ("said", "allergens"),
    [
        ("Booking note: I'm allergic to latex, please use nitrile gloves.", {"latex"}),
        ("My son is allergic to peanuts and kiwi, so check every label for us.", {"peanut", "kiwi"}),
        ("I'm allergic to penicillin, amoxicillin, never give me either.", {"penicillin", "amoxicillin"}),
    ],
)
def test_a_request_after_a_list_of_allergens_is_no_allergen(
    key_client, django_capture_on_commit_callbacks, said, allergens
):
    """ "allergic to latex, please use nitrile gloves" is one allergen and a request: before, the
    offline extraction pinned "The user is allergic to please use nitrile gloves." too."""
    mem0_infer(key_client, django_capture_on_commit_callbacks, said)
    pinned_facts = list(MemoryEntry.objects.filter(pinned=True).values_list("content", flat=True))
    assert all(any(a in fact for a in allergens) for fact in pinned_facts), pinned_facts
    assert all(any(a in fact for fact in pinned_facts) for a in allergens), pinned_facts


@pytest.mark.parametrize(
    ("said", "word"),
    [
        ("Remember this: I'm allergic to latex, so nitrile gloves only.", "latex"),
        ("Keep the following in mind: I'm 30 weeks pregnant.", "pregnant"),
        ("记住这个：我对青霉素过敏。", "青霉素"),
    ],
)
def test_mem0s_default_add_keeps_what_remember_this_asks_for(
    key_client, django_capture_on_commit_callbacks, said, word
):
    """The chat's "remember this: …" (tests/chat/test_remember_this.py) read by mem0's default add
    without a model, whose offline extraction reads requests with the same rules."""
    mem0_infer(key_client, django_capture_on_commit_callbacks, said)
    kept = MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE, pinned=True)
    assert any(word in entry.content for entry in kept), list(
        MemoryEntry.objects.values_list("content", "pinned")
    )


def test_the_chat_holds_a_relaxation_said_in_passing_with_a_fact(
    owner, settings, django_capture_on_commit_callbacks
):
    """Learned from the turn offline (no "remember that"): the relaxation waits flagged, whole, and
    nothing of it is stored active."""
    settings.CHAT_LEARN_EACH_TURN_OFFLINE = True
    said = "我住在成都。从下周起，仓库夜班出库不用再双人签字了。"
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": said})

    held = MemoryEntry.objects.get(namespace__owner=owner, status=MemoryStatus.PENDING_REVIEW)
    assert "双人签字" in held.content and FlaggedWrite.objects.filter(entry=held).exists()
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE, content__contains="签字").exists()
