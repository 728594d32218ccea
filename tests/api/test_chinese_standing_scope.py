# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
"""A Chinese rule said to hold from today on in formal or Cantonese words ("由今日起", "由今晚開始",
"即日起"), or every week or month with a request ("每個月月底請幫我…", "逢星期二請你提醒我…", as
English's "every week please…"), lasts beyond one occasion: held for an operator like "以后…". 请 in
请假 (leave) or 请客 (a treat) asks nothing: what someone does every month stays a plain fact.
Through REST, mem0's route, the batch route, an import, MCP and the chat's "remember that"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

STANDING = [
    "由今日起，阿婆啲藥晚飯後先食。",
    "即日起，会议室预订需提前一天。",
    "即日起員工餐廳只收八達通。",
    "每個月月底請幫我對一次水電單。",
    "逢星期二請你提醒我交功課。",
    "每周一请提醒阿姨换床单。",
]
NOT_RULES = [
    "我每个月都要请假带妈妈去复诊。",
    "他每个礼拜都请客，真大方。",
]


@pytest.mark.parametrize("said", STANDING)
def test_rest_and_mem0_hold_a_rule_from_today_or_every_week(key_client, said):
    assert rest_add(key_client, said)["action"] == "pending_review", said
    MemoryEntry.objects.all().delete()
    (result,) = mem0_add(key_client, said)["results"]
    assert result["status"] == "pending_review", result


@pytest.mark.parametrize("said", NOT_RULES)
def test_leave_or_a_treat_asks_nothing(key_client, said):
    assert rest_add(key_client, said)["action"] == "added", said


def test_the_batch_route_and_an_import_read_them_alike(key_client):
    results = batch_add(key_client, [*STANDING, *NOT_RULES])
    assert [r["action"] for r in results] == ["pending_review"] * len(STANDING) + ["added"] * 2, results

    MemoryEntry.objects.all().delete()
    import_lines(key_client, [STANDING[1], STANDING[4], NOT_RULES[0]])
    statuses = {e.content: e.status for e in MemoryEntry.objects.all()}
    assert [statuses[c] for c in (STANDING[1], STANDING[4], NOT_RULES[0])] == [
        MemoryStatus.PENDING_REVIEW,
        MemoryStatus.PENDING_REVIEW,
        MemoryStatus.ACTIVE,
    ], statuses


@pytest.mark.django_db(transaction=True)
def test_mcp_holds_them(owner, mcp_url):
    answers = m.adds(mcp_url, user_token_issue(user=owner).key, [STANDING[0], STANDING[3], NOT_RULES[1]])
    assert [a["action"] for a in answers] == ["pending_review", "pending_review", "added"], answers


def test_the_chat_holds_one_told_to_remember(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "記住：" + STANDING[2]})
    assert MemoryEntry.objects.get(namespace__owner=owner).status == MemoryStatus.PENDING_REVIEW
