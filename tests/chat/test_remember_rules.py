# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width commas and colons; so must the tests.
"""A rule told to the chat with "remember that …" is kept as said and waits for an operator, in
English as in Chinese, also when its instruction follows in the next sentences; the condition it
rests on is kept at once and pinned. Before, the chat kept only the facts its reader knew ("I'm
coeliac, so never order me anything from the shared fryer" became "The user is coeliac") and the
instruction was lost. A question after a "remember that" is not taken into it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat.models import Conversation, Message
from memory_core.models import FlaggedWrite, FlagKind, MemoryEntry, MemoryStatus
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (what the user said, the rule kept whole, the condition kept pinned)
RULES = [
    (
        "Remember that I'm coeliac, so when we eat out never order me anything from the shared fryer.",
        "I'm coeliac, so when we eat out never order me anything from the shared fryer.",
        "I'm coeliac",
    ),
    (
        "Remember that my son Felix has haemophilia. Whenever he stays with you, never give him "
        "ibuprofen or aspirin, only paracetamol.",
        "My son Felix has haemophilia. Whenever he stays with you, never give him ibuprofen or "
        "aspirin, only paracetamol.",
        "My son Felix has haemophilia.",
    ),
    (
        "记住：我女儿对芒果过敏。以后给她推荐水果，芒果和含芒果的甜品一概不要。",
        "我女儿对芒果过敏。以后给她推荐水果，芒果和含芒果的甜品一概不要。",
        "我女儿对芒果过敏。",
    ),
]


def _say(owner, text: str, capture) -> str:
    client = client_for(owner)
    with capture(execute=True):
        client.post(reverse("chat:new"), {"content": text})
    conversation = Conversation.objects.latest("created_at")
    return Message.objects.filter(conversation=conversation, role="assistant").latest("id").content


@pytest.mark.parametrize(("said", "rule", "condition"), RULES)
def test_a_rule_told_to_remember_waits_whole_and_its_condition_is_pinned(
    owner, django_capture_on_commit_callbacks, said, rule, condition
):
    _say(owner, said, django_capture_on_commit_callbacks)

    held = MemoryEntry.objects.get(status=MemoryStatus.PENDING_REVIEW)
    assert held.content.rstrip("。.") == rule.rstrip("。.") and held.type == "procedural"
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert kept.content.rstrip("。.") == condition.rstrip("。.")
    assert (kept.pinned, kept.category) == (True, "safety")


def test_a_question_after_remember_that_is_not_kept_with_it(owner, django_capture_on_commit_callbacks):
    _say(
        owner,
        "Remember that I'm allergic to cats. Which small pets would suit a one-bedroom flat?",
        django_capture_on_commit_callbacks,
    )

    [kept] = MemoryEntry.objects.all()
    assert kept.status == MemoryStatus.ACTIVE and kept.pinned
    assert "cat" in kept.content and "pets" not in kept.content


# A question asked to be remembered is kept a question, and a question is no rule. Before, its
# question mark was cut and the statement left ("Do the interns still need a manager's sign-off on
# refunds.") was judged, and held for an operator, as a rule.
ASKED = [
    "Remember that I wanted to ask: do the interns still need a manager's sign-off on refunds?",
    "记住：听说下个月开始访客不用再登记了，是真的吗？",
    "記住：請問會員帶朋友來健身房，是不是以後都要先在櫃台登記？",
]


@pytest.mark.parametrize("said", ASKED)
def test_a_question_told_to_remember_is_kept_a_question_not_held_as_a_rule(
    owner, django_capture_on_commit_callbacks, said
):
    _say(owner, said, django_capture_on_commit_callbacks)

    [kept] = MemoryEntry.objects.all()
    assert kept.status == MemoryStatus.ACTIVE and kept.type != "procedural"
    assert kept.content.endswith(("?", "？"))


def test_a_rule_told_with_a_tag_question_still_waits(owner, django_capture_on_commit_callbacks):
    said = "Remember: never let the twins have fizzy drinks after six, ok?"
    _say(owner, said, django_capture_on_commit_callbacks)

    [held] = MemoryEntry.objects.all()
    assert held.status == MemoryStatus.PENDING_REVIEW and held.type == "procedural"
    assert held.content == "Never let the twins have fizzy drinks after six, ok?"


# A safety fact told in the sentences after the one asked to be remembered is kept with it and
# pinned at once, as a direct write keeps the text whole: before, the chat kept the first sentence
# alone and left the condition to the background extraction (the next turn's assistant did not
# know it). The models judge the user's words as said, not the chat's third-person restatement of
# them ("the user is on crutches after the user's knee op" read to them as no one's condition).
AFTER = [
    (
        "Remember that the book club moved to Thursdays. I'm on warfarin now and bruise if anyone so much as "
        "bumps me.",
        "warfarin",
    ),
    (
        "Remember that could you keep Saturday lunch somewhere near the station? I'm on crutches after my "
        "knee op and can't walk far.",
        "crutches",
    ),
    (
        "Remember that my son Jonah starts swimming lessons next week. He has type 1 diabetes and "
        "wears a pump.",
        "pump",
    ),
    ("记住：下周我们全家去海边。我儿子有癫痫，每天早晚都要吃丙戊酸钠。", "癫痫"),
    # After a question: the question no longer ends what is kept when a condition follows it.
    (
        "Remember that I'm dropping two extra bags at Hana's tomorrow. Can you remind me at 7? I'm on "
        "the new epilepsy meds and mornings are a total fog.",
        "epilepsy",
    ),
    (
        "Remember that the next guest is Matteo, Friday around 9pm. I'm at the hospital for my Crohn's "
        "infusion till 8, can Sam let him in?",
        "Crohn",
    ),
    ("記住：聽日三點要交報告。你可唔可以提我？我個仔有哮喘，今晚要陪佢覆診。", "哮喘"),
    ("記住：這個月我都在台中出差。我懷孕二十八週了，醫生說不能久站。", "懷孕"),
]


@pytest.mark.parametrize(("said", "condition"), AFTER)
def test_a_condition_told_after_what_is_asked_to_be_remembered_is_pinned_at_once(
    owner, django_capture_on_commit_callbacks, said, condition
):
    _say(owner, said, django_capture_on_commit_callbacks)

    pinned = [m for m in MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE) if m.pinned]
    assert any(condition in m.content for m in pinned), [
        (m.content, m.status, m.pinned) for m in MemoryEntry.objects.all()
    ]


def test_a_question_after_a_condition_is_still_not_kept_with_it(owner, django_capture_on_commit_callbacks):
    _say(
        owner,
        "Remember that my daughter has a peanut allergy. Which bakeries near Leith do nut-free cakes?",
        django_capture_on_commit_callbacks,
    )

    assert not MemoryEntry.objects.filter(content__icontains="bakeries").exists()
    assert MemoryEntry.objects.filter(content__icontains="peanut", pinned=True).exists()


@pytest.mark.parametrize(
    "said",
    [
        "Remember that you can stop adding the 'see a doctor' line when I ask about my migraines.",
        '记住：以后我问降压药的事，不用每次都加一句"请咨询医生"了。',
        "Remember: you can leave off the pregnancy wording when you suggest recipes for me now.",
    ],
)
def test_remember_that_a_caveat_is_given_up_waits_flagged(owner, django_capture_on_commit_callbacks, said):
    _say(owner, said, django_capture_on_commit_callbacks)

    held = MemoryEntry.objects.get()
    assert held.status == MemoryStatus.PENDING_REVIEW
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING).count() == 1


# A rule whose first sentence alone is a rule and relaxes nothing, and whose next sentence gives a
# control up (the first sentence alone was kept, and the relaxation was lost with the rest).
RULE_THEN_ITS_RELAXATION = [
    "Remember that from next week the night shift hands over at the nurses' station. The second "
    "signature on the controlled drugs book isn't needed any more.",
    "记住：以后每天的例会改到九点半开。迟到的人也不用再登记了。",
    "Remember that from now on the kitchen logs the fridge temperatures once a day. The four-hourly "
    "checks are gone.",
]


@pytest.mark.parametrize("said", RULE_THEN_ITS_RELAXATION)
def test_a_rule_is_kept_with_the_sentences_after_it_and_its_relaxation_flagged(
    owner, django_capture_on_commit_callbacks, said
):
    _say(owner, said, django_capture_on_commit_callbacks)

    held = MemoryEntry.objects.get()
    assert held.status == MemoryStatus.PENDING_REVIEW
    last = said.rstrip(".。").split(". " if ". " in said else "。")[-1]
    assert last in held.content, held.content  # the whole of what was asked, not its first sentence
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING, entry=held).count() == 1


# (what the user said in traditional characters or Cantonese, what is kept: the user's own script)
IN_THE_SCRIPT_SAID = [
    ("記住：我們家每週日都吃素。", "用户一家每週日都吃素。", MemoryStatus.ACTIVE),
    ("記住：我哋屋企下個月搬去沙田。", "用户一家下個月搬去沙田。", MemoryStatus.ACTIVE),
    ("記住：以後每個禮拜一都要提醒我交租。", "以後每個禮拜一都要提醒我交租。", MemoryStatus.PENDING_REVIEW),
]


@pytest.mark.parametrize(("said", "kept", "status"), IN_THE_SCRIPT_SAID)
def test_what_is_asked_to_be_remembered_is_kept_in_the_script_it_was_said_in(
    owner, django_capture_on_commit_callbacks, said, kept, status
):
    """Before, "記住…" was matched on the simplified forms and kept so: half in the other script
    ("个女对虾过敏，食咗会出疹，飲茶要小心"), and "我們家" became "用户一家家"."""
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": said})

    entry = MemoryEntry.objects.get(content=kept)
    assert entry.status == status
