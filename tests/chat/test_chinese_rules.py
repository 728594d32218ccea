# ruff: noqa: RUF001 -- Chinese users type full-width commas, colons and question marks; so must the tests.
"""A Chinese-speaking user in the chat pages, offline (the rules extract, no model): what they say of
themselves is learnt, an allergy is pinned and comes back for a food question, "记住…" is written at
once, a code is kept only in their own transcript, a rule that relaxes a control waits for an
operator."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from chat.models import Conversation, Message
from chat.services import conversations_sweep_idle
from memory_core.models import FlaggedWrite, FlagKind, MemoryEntry, MemoryStatus, SourceKind
from memory_core.scan import scan_database, scan_job_queue
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

TRANSCRIPT = {"chat_message"}


def _send(client, text: str, conversation: Conversation | None = None) -> Conversation:
    if conversation is None:
        client.post(reverse("chat:new"), {"content": text})
        return Conversation.objects.latest("created_at")
    client.post(reverse("chat:send", args=[conversation.pk]), {"content": text})
    return conversation


def _reply(conversation: Conversation) -> str:
    return Message.objects.filter(conversation=conversation, role="assistant").latest("id").content


def _end(client, conversation: Conversation, capture) -> None:
    with capture(execute=True):
        client.post(reverse("chat:end", args=[conversation.pk]))
    with capture(execute=True):
        conversations_sweep_idle(now=timezone.now() + timedelta(days=1))


def _active() -> dict[str, MemoryEntry]:
    return {entry.key: entry for entry in MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)}


def test_what_a_chinese_user_says_of_themselves_is_learnt_and_the_allergy_comes_back(
    owner, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    conversation = _send(client, "你好！我叫陈思远，在杭州的一家银行上班。")
    _send(client, "对了，我从小就对花生过敏，吃一点都会起疹子。我老婆对芒果过敏。", conversation)
    _send(client, "我平时比较喜欢喝乌龙茶，你有什么推荐吗？", conversation)
    _end(client, conversation, django_capture_on_commit_callbacks)
    active = _active()
    assert active["health.allergy.peanut"].pinned and active["health.allergy.peanut"].category == "safety"
    # Kept, keyed to the wife; pinned (recalled on every turn) are the user's and dependants' only.
    assert not active["family.wife.health.allergy.mango"].pinned
    assert active["name"].content == "用户的名字是陈思远。" and "employer" not in active  # no employer named
    assert any(key.startswith("preference.") and "乌龙茶" in e.content for key, e in active.items())
    # A later conversation: a food question the allergy does not share a word with.
    later = _send(client, "周末去露营，帮我列一下要带的零食？")
    assert "用户对花生过敏。" in _reply(later)


def test_a_chinese_remember_request_is_written_at_once(owner):
    client = client_for(owner)
    conversation = _send(client, "帮我记一下：我每天早上要吃一片优甲乐")
    entry = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert entry.source_kind == SourceKind.USER_EXPLICIT
    assert (entry.key, entry.pinned) == ("health.medication.levothyroxine", True)
    assert "优甲乐" in _reply(conversation)


def test_an_ended_allergy_said_in_chat_supersedes_the_allergy(owner, django_capture_on_commit_callbacks):
    client = client_for(owner)
    _send(client, "记住我对虾过敏")
    allergy = MemoryEntry.objects.get(key="health.allergy.shrimp")
    assert allergy.pinned
    _send(client, "记住，我现在已经不对虾过敏了，医生说脱敏成功了")
    current = MemoryEntry.objects.get(key="health.allergy.shrimp", status=MemoryStatus.ACTIVE)
    assert current.pk != allergy.pk and not current.pinned and "不再过敏" in current.content


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("麻烦记一下，我的支付密码是 860317", "860317"),
        ("银行刚发来的动态码是 739102，五分钟内有效", "739102"),
        ("我的网银登录口令：Lx-2291-qp", "Lx-2291-qp"),
    ],
)
def test_a_chinese_code_is_kept_only_in_the_transcript(owner, text, code, django_capture_on_commit_callbacks):
    client = client_for(owner)
    conversation = _send(client, text)
    assert code not in _reply(conversation)
    _end(client, conversation, django_capture_on_commit_callbacks)
    assert set(scan_database(code, text_only=True)) == TRANSCRIPT
    assert scan_job_queue(code) == []


def test_a_chinese_rule_that_relaxes_approval_waits_for_an_operator(
    owner, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    conversation = _send(client, "记住，以后报销都不需要审批了")
    entry = MemoryEntry.objects.get()
    assert (entry.status, entry.type) == (MemoryStatus.PENDING_REVIEW, "procedural")
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING, entry=entry).exists()
    _end(client, conversation, django_capture_on_commit_callbacks)
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
