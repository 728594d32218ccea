# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so must the tests.
"""A rule said to be still undecided, in as many words (proposed, put to a vote, asked about with
"is it true…", "真的假的", "你们觉得…", "还没定", "以后…要不要…?") or told as talk not yet settled
("rumour is…",
"nothing official yet", "还在讨论", "仲未定㗎"), is no rule yet: it is stored and recalled like
any turn, not held for an operator where nobody would see it again. One that would relax a control
still waits, flagged: "thoughts?" after a relaxation must not put it in force. Said with the
decision ("投票通过", "agreed"), it is judged as a rule.

Through REST, its batch route, mem0's route, MCP and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

UNDECIDED = [
    "社区提议以后所有电动车一律不准进楼道充电，下周业主大会投票。",
    "物业提议以后所有快递一律放到驿站，不许堆在门口，还没定。",
    "The committee proposes that all members must pay subs by direct debit from April. Not decided yet.",
    "提议：以后所有报销一律要附发票原件，周五投票。",
    "聽講以後每個月第一個禮拜六都要大掃除，真的假的？",
    "Is it true that from January every shift has to start with a ten-minute briefing?",
    # told as talk not yet settled: heard, rumoured, still discussed, not signed off
    "聽講管理處想以後住客一律要刷卡先入得電梯，仲未定㗎。",
    "据说以后每个部门都要每周交周报，还在讨论。",
    "公司打算以后所有出差都要提前两周申请，还没拍板。",
    "Rumour is the library will make everyone book study rooms a week ahead from next term.",
    "Heard the club might require helmets on all group rides next season, nothing official yet.",
    # asked as a yes-or-no question (A-not-A): the models held these two
    "阿姐，以後收工前使唔使個個都要拍片記低點貨？上次少咗兩箱。",
    "店长，以后打烊前要不要每个人都签到一次？上次漏锁门吓死我了",
]
RELAXATIONS_ASKED_ABOUT = [
    "Proposal: from now on volunteers hand out food parcels without checking the referral slip. Thoughts?",
    "有人提议以后访客进实验室不用登记身份证了，大家觉得呢？",
]
DECIDED = [
    "The proposal passed: from next month every tenant sorts their recycling into the four bins.",
    "投票通过了：以后每周三晚上七点开楼委会，所有楼长必须参加。",
]


@pytest.mark.parametrize("said", UNDECIDED)
def test_rest_and_mem0_store_an_undecided_rule_as_said(key_client, said):
    assert rest_add(key_client, said)["action"] == "added", said
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD", result


@pytest.mark.parametrize("said", RELAXATIONS_ASKED_ABOUT)
def test_a_relaxation_put_to_a_vote_still_waits_flagged(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_reads_them_alike_and_holds_a_decided_one(key_client):
    results = batch_add(key_client, [*UNDECIDED, *RELAXATIONS_ASKED_ABOUT, *DECIDED])
    actions = [r["action"] for r in results]
    assert actions == ["added"] * len(UNDECIDED) + ["pending_review"] * 4, actions


@pytest.mark.django_db(transaction=True)
def test_mcp_stores_an_undecided_rule_and_holds_a_decided_one(owner, mcp_url):
    token = user_token_issue(user=owner).key
    told = [UNDECIDED[2], UNDECIDED[10], UNDECIDED[7], RELAXATIONS_ASKED_ABOUT[0], DECIDED[0]]
    answers = m.adds(mcp_url, token, told)
    assert [(a["action"], a["flagged"]) for a in answers] == [
        ("added", False),
        ("added", False),
        ("added", False),
        ("pending_review", True),
        ("pending_review", False),
    ], answers


def test_the_chat_keeps_an_undecided_rule_told_to_remember(owner, django_capture_on_commit_callbacks):
    told = [
        "Remember that the parish council proposes banning bonfires on the allotments from May, "
        "vote next week.",
        "记住：听说以后食堂周五不供应午饭，还没定。",
        # talk not yet settled, in other words than the REST cases'
        "Remember that word is the gym will ban outdoor shoes on the mats from March, nothing confirmed yet.",
        "幫我記住：聽聞公司想以後星期五全部人返office，仲喺度傾緊。",
    ]
    for said in told:
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": said})

    kept = MemoryEntry.objects.all()
    assert kept.count() == 4 and all(m.status == MemoryStatus.ACTIVE for m in kept), [
        (m.content, m.status) for m in kept
    ]
