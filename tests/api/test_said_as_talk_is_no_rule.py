# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so must the tests.
"""A rule told as talk is no rule in force: still being talked over in Cantonese ("仲傾緊", "未有決
定"), heard from others ("apparently", "supposedly", "聽講", "据说"), someone's tip passed on ("My
uncle's tip: …", "我劝你…"), a rule the speaker set themselves ("New rule for myself: …",
"我给自己立了个规矩"), or a whether-to asked without its question mark ("…还要不要…啊"). Each is stored
and recalled like any turn, not held for an operator where nobody would see it again. A relaxation
so told still waits, flagged, and a rule told plainly is still held.

Through REST, mem0's route, the batch route, an import, MCP and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import FlaggedWrite, MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

TALK = [
    # still talked over, in Cantonese
    "公司想以後逢星期一開早會，仲未有決定。",
    "我哋討論緊以後垃圾由邊個倒，暫時未有決定。",
    # heard from others
    "Apparently the new manager wants every order double-bagged from now on.",
    "聽講學校以後規定每個學生都要著黑色皮鞋。",
    "Supposedly the landlord's going to make everyone park nose-in from next month.",
    # someone's tip, a friend's counsel
    "My uncle's tip: always photograph the meter reading before you move in.",
    "我劝你以后跟房东的沟通都留文字记录。",
    # the speaker's own resolution
    "New rule for myself: no coffee after 2pm, starting today.",
    "我给自己立了个规矩：每晚十一点前放下手机。",
    # whether to, asked without a question mark
    "经理以后周报还要不要每周五交啊",
]
RELAXATIONS_HEARD = [
    "Apparently from now on cashiers can give refunds without a receipt.",
    "听说以后访客进楼不用登记了。",
]
RULES = [
    "From now on every visitor signs in at reception.",
    "以后周报每周五交。",
]


@pytest.mark.parametrize("said", TALK)
def test_rest_and_mem0_store_talk_of_a_rule_as_said(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] == "added", body
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert result["event"] == "ADD", result
    assert MemoryEntry.objects.get().status == MemoryStatus.ACTIVE


@pytest.mark.parametrize("said", RELAXATIONS_HEARD)
def test_a_relaxation_heard_from_others_still_waits_flagged(key_client, said):
    body = rest_add(key_client, said)
    assert (body["action"], body["flagged"]) == ("pending_review", True), body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def test_the_batch_route_and_an_import_read_them_alike(key_client):
    results = batch_add(key_client, [*TALK, *RELAXATIONS_HEARD, *RULES])
    actions = [r["action"] for r in results]
    assert actions == ["added"] * len(TALK) + ["pending_review"] * 4, actions

    MemoryEntry.objects.all().delete()
    import_lines(key_client, [TALK[1], TALK[3], TALK[7], RELAXATIONS_HEARD[1]])
    statuses = {e.content: e.status for e in MemoryEntry.objects.all()}
    assert [statuses[c] for c in (TALK[1], TALK[3], TALK[7], RELAXATIONS_HEARD[1])] == [
        MemoryStatus.ACTIVE,
        MemoryStatus.ACTIVE,
        MemoryStatus.ACTIVE,
        MemoryStatus.PENDING_REVIEW,
    ], statuses


@pytest.mark.django_db(transaction=True)
def test_mcp_stores_talk_and_holds_a_relaxation_heard(owner, mcp_url):
    told = [TALK[0], TALK[2], TALK[6], TALK[9], RELAXATIONS_HEARD[0]]
    answers = m.adds(mcp_url, user_token_issue(user=owner).key, told)
    assert [(a["action"], a["flagged"]) for a in answers] == [("added", False)] * 4 + [
        ("pending_review", True)
    ], answers


def test_the_chat_keeps_talk_told_to_remember(owner, django_capture_on_commit_callbacks):
    told = [
        # in other words than the REST cases'
        "Remember that my cousin's tip: never book the last train home on a Friday.",
        "記住：聽講管理處以後晚上十點後唔准用洗衣房，仲傾緊。",
        "Remember: new rule for myself, I answer no work messages after 8pm.",
    ]
    for said in told:
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": said})

    kept = MemoryEntry.objects.all()
    assert kept.count() == 3 and all(m.status == MemoryStatus.ACTIVE for m in kept), [
        (m.content, m.status) for m in kept
    ]
    assert not FlaggedWrite.objects.exists()
