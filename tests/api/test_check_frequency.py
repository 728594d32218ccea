# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
"""A check made to run less often relaxes it as surely as skipping it: "the brake inspections go
from weekly to monthly", "the ID check only needs doing every third visit rather than every
time", "抽检由五件抽一件改成二十件抽一件", "唔使晚晚對, 一個禮拜對一次得啦". Such a rule is never
stored active: it waits for an operator flagged as weakening, with the reason said, through REST,
mem0's route and MCP. Made more frequent, asked about, or a schedule that is no check, it is not
flagged for its frequency."""

from __future__ import annotations

import uuid

import anyio
import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.guards.policy import policy_check
from memory_core.models import FlaggedWrite, MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

LESS_OFTEN = [
    "Starting next quarter, the forklift brake inspections go from weekly to monthly.",
    "For returning clients the ID check only needs doing every third visit rather than every time.",
    "From now on the pool chlorine test is done every two days instead of daily.",
    "从下周起，仓库消防栓改成每月检查一次，不用每周查了。",
    "經理話由下個月開始，貨品抽檢由五件抽一件改成二十件抽一件。",
    "老闆講以後夾萬啲現金唔使晚晚點數，一個禮拜點一次得啦。",
    "人手不够，这个月冷库先暂停抽检，下个月再恢复。",
    "呢個月啲貨唔使盤點住，月尾先一次過做。",
    # A weekday is a week; "every other day" half a day's rate; 每个礼拜 a week, not "each one".
    "The cash float gets counted every Friday now rather than every night.",
    "Going forward the fridge temperature log is checked every other day, not daily.",
    "以後收銀機每個禮拜先對一次數，唔使晚晚對。",
    "从下个月起，冷库温度记录改成每个月核对一次，不用每周核对了。",
]
NOT_LESS_OFTEN = [
    "Starting next quarter, the forklift brake inspections go from monthly to weekly.",
    "Should the ID check be every third visit rather than every time?",
    "I check the weather daily and my bank balance weekly.",
    "从下周起，仓库消防栓改成每周检查一次，原来是每月一次。",
    "We moved the book club from weekly to monthly, everyone's too busy.",
    "这个月我先不查成绩了，怕影响心情。",
    "我先不查了，你自己看吧。",
    "The cash float gets counted every night now rather than every Friday.",
    "I go to the gym every Friday and check my emails every night.",
    "从下个月起，冷库温度记录改成每周核对一次，不用每个月才核对。",
]
REASON = "makes a check run less often"


@pytest.mark.parametrize("said", LESS_OFTEN)
def test_rest_holds_a_check_made_less_often_flagged_with_its_reason(key_client, said):
    body = key_client.post("/api/v1/memories/", {"user_id": "u1", "content": said}, format="json").json()

    assert body["action"] == "pending_review" and body["flagged"]
    [entry] = MemoryEntry.objects.all()
    assert entry.status == MemoryStatus.PENDING_REVIEW
    assert FlaggedWrite.objects.filter(entry=entry).exists()


@pytest.mark.parametrize("said", LESS_OFTEN[::2])
def test_mem0_never_stores_it_active(key_client, said):
    body = {"messages": [{"role": "user", "content": said}], "user_id": uuid.uuid4().hex, "infer": False}
    [result] = key_client.post("/v3/memories/add/", body, format="json").json()["results"]

    assert result["status"] == "pending_review"
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    assert FlaggedWrite.objects.filter(entry_id=result["id"]).exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_never_stores_it_active(owner, mcp_url):
    token = user_token_issue(user=owner).key

    async def scenario():
        async with m.http_client(mcp_url, token) as client:
            return await m.ok(client, "memory_add", content=LESS_OFTEN[3])

    body = anyio.run(scenario)
    assert body["action"] == "pending_review" and body["flagged"]


@pytest.mark.parametrize(
    "said",
    [
        "Remember that from next month the fire extinguishers get checked quarterly instead of monthly.",
        "记住：从这周开始，外卖订单的地址核对改成每十单抽查一单。",
        "Remember that the cash float gets counted every Friday now rather than every night.",
    ],
)
def test_the_chat_keeps_it_waiting_flagged_when_told_to_remember(
    owner, django_capture_on_commit_callbacks, said
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": said})

    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE, type="procedural").exists()
    held = MemoryEntry.objects.get(status=MemoryStatus.PENDING_REVIEW)
    assert FlaggedWrite.objects.filter(entry=held).exists()


def test_an_import_never_stores_it_active(key_client):
    lines = [LESS_OFTEN[1], LESS_OFTEN[5], LESS_OFTEN[9], "I keep my bike in the hallway."]
    body = {"format": "text", "data": "\n".join(lines) + "\n", "user_id": "u1"}
    response = key_client.post("/api/v1/imports/", body, format="json")
    assert response.status_code in (200, 201, 202), response.content

    held = MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW)
    assert held.count() == 3 and FlaggedWrite.objects.filter(entry__in=held).count() == 3
    assert [e.content for e in MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)] == [
        "I keep my bike in the hallway."
    ]


@pytest.mark.parametrize("said", LESS_OFTEN)
def test_the_guard_reads_it_without_the_models(said):
    # The guard's own reading (no model): the decision does not rest on a model's score alone.
    check = policy_check(said)
    assert check.is_rule and check.weakens and check.control == "check frequency"
    assert check.reason == REASON


@pytest.mark.parametrize("said", NOT_LESS_OFTEN)
def test_more_often_asked_or_no_check_is_not_read_as_less_often(said):
    assert policy_check(said).control != "check frequency"
