# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width commas and question marks; so must the tests.
"""Two forms the models misread, read as they are said, on every surface that writes (REST and its
batch, mem0's route, MCP, an import, the chat's "remember that"):

- An order closed by a tag ("…, ok?", "…，听到没？") is an order, held for review like the order
  alone (and flagged when it relaxes a control); before, the closing question mark made it a
  question and it was stored active. A question closed by the same tag stays a question.
- Cantonese says "my daughter", "my son" with the classifier alone where a clause opens with it
  ("個女對蝦過敏"): a dependant's condition, pinned, as "我個女…" is; before, it was read as
  someone else's. "佢個仔" (her son) and "個女仔" (a girl) stay someone else's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import FlaggedWrite, FlagKind, MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

ORDERS_WITH_A_TAG = [
    "from now on nobody gives the kids sweets before dinner, ok?",
    "Going forward, invoices over £500 need two signatures, understood?",
    "以后谁来家里都要先换拖鞋，听到没？",
    "以後入屋一律除鞋，記住未？",
    # Singapore/Malaysia code-switching: an English tag after a full-width comma.
    "以后 aunty 煮饭都不要放 peanut oil，ok lah？",
]
RELAXATION_WITH_A_TAG = "Staff can skip the fridge temperature log on Sundays from now on, alright?"
QUESTIONS_WITH_A_TAG = [
    "Can we move the team lunch to Thursday, ok?",
    "Deadline's still Friday 5pm for the expenses, yeah?",
    "Meeting room B 的 booking 改到 3pm，ok 吗？",
    "有人知道吗？周六的班车还开不开，听到没有消息？",
]
BARE_KIN = [
    "個女對蝦過敏，食咗會出疹，飲茶要小心。",
    "今日好攰 個仔又發燒 佢有G6PD 唔食得蠶豆",
    "个女有湿疹，每晚都要搽药膏。",
]
SOMEONE_ELSES = [
    "佢個仔有哮喘，今日冇返學。",
    "個女仔對花生過敏，我哋班有個同學都係。",
    "個男仔有哮喘，成日喺走廊咳，佢阿媽話冇事。",
]


@pytest.mark.parametrize("said", ORDERS_WITH_A_TAG)
def test_rest_holds_an_order_closed_by_a_tag(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "pending_review", body
    assert MemoryEntry.objects.get(content=said).status == MemoryStatus.PENDING_REVIEW


@pytest.mark.parametrize("said", ORDERS_WITH_A_TAG[1:3])
def test_mem0_holds_an_order_closed_by_a_tag(key_client, said):
    (result,) = mem0_add(key_client, said)["results"]
    assert result.get("status") == "PENDING_REVIEW" or result["event"] != "ADD", result
    assert MemoryEntry.objects.get(content=said).status == MemoryStatus.PENDING_REVIEW


def test_a_relaxation_closed_by_a_tag_waits_flagged(key_client):
    body = rest_add(key_client, RELAXATION_WITH_A_TAG)
    assert body["action"] == "pending_review", body
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING).count() == 1


@pytest.mark.parametrize("said", QUESTIONS_WITH_A_TAG)
def test_a_question_closed_by_a_tag_is_kept_at_once(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added", body


@pytest.mark.parametrize("said", BARE_KIN)
def test_rest_pins_a_childs_condition_said_with_the_classifier_alone(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is True, body


def test_mem0_pins_a_childs_condition_said_with_the_classifier_alone(key_client):
    mem0_add(key_client, BARE_KIN[0])
    kept = MemoryEntry.objects.get(content=BARE_KIN[0])
    assert (kept.status, kept.pinned) == (MemoryStatus.ACTIVE, True)


@pytest.mark.parametrize("said", SOMEONE_ELSES)
def test_someone_elses_child_or_a_girl_is_not_pinned(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added" and body["entry"]["pinned"] is False, body


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_the_tag_and_the_classifier_as_said(owner, mcp_url):
    token = user_token_issue(user=owner).key
    order, child, others = m.adds(mcp_url, token, [ORDERS_WITH_A_TAG[3], BARE_KIN[1], SOMEONE_ELSES[0]])
    assert order["action"] == "pending_review", order
    assert child["action"] == "added" and child["entry"]["pinned"] is True, child
    assert others["action"] == "added" and others["entry"]["pinned"] is False, others


def test_the_batch_route_and_an_import_read_the_tag_and_the_classifier_as_said(key_client):
    told = [
        ORDERS_WITH_A_TAG[0],
        RELAXATION_WITH_A_TAG,
        QUESTIONS_WITH_A_TAG[1],
        BARE_KIN[2],
        SOMEONE_ELSES[1],
    ]
    order, relaxation, question, child, others = batch_add(key_client, told)
    assert [order["action"], relaxation["action"], question["action"]] == [
        "pending_review", "pending_review", "added",
    ], (order, relaxation, question)  # fmt: skip
    assert child["entry"]["pinned"] is True and others["entry"]["pinned"] is False, (child, others)

    MemoryEntry.objects.all().delete()
    FlaggedWrite.objects.all().delete()
    import_lines(
        key_client, [ORDERS_WITH_A_TAG[2], RELAXATION_WITH_A_TAG, QUESTIONS_WITH_A_TAG[0], *BARE_KIN[:2]]
    )
    kept = {entry.content: entry for entry in MemoryEntry.objects.all()}
    assert kept[ORDERS_WITH_A_TAG[2]].status == MemoryStatus.PENDING_REVIEW
    assert kept[RELAXATION_WITH_A_TAG].status == MemoryStatus.PENDING_REVIEW
    assert FlaggedWrite.objects.filter(
        kind=FlagKind.POLICY_WEAKENING, entry=kept[RELAXATION_WITH_A_TAG]
    ).exists()
    assert kept[QUESTIONS_WITH_A_TAG[0]].status == MemoryStatus.ACTIVE
    assert all(kept[said].pinned and kept[said].status == MemoryStatus.ACTIVE for said in BARE_KIN[:2])


@pytest.mark.parametrize("request_to_remember", ["記住：{}", "Remember that {}"])
def test_the_chat_pins_a_childs_condition_it_is_asked_to_remember(
    owner, django_capture_on_commit_callbacks, request_to_remember
):
    said = BARE_KIN[0]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": request_to_remember.format(said)})

    kept = MemoryEntry.objects.filter(content__contains="對蝦過敏").get()  # in the script it was said in
    assert (kept.status, kept.pinned) == (MemoryStatus.ACTIVE, True)


def test_a_question_opening_with_must_closed_by_a_tag_stays_a_question(key_client):
    body = rest_add(key_client, "Must we wear the lanyards at the offsite too, yeah?")
    assert body["action"] == "added", body
