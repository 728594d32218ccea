# ruff: noqa: RUF001 -- Chinese users type full-width punctuation; so do these tests.
"""A rule announced as dropped relaxes whatever it required ("We've dropped the rule that the
kayakers wear helmets on the canal", "我们取消了访客必须登记的规定"): never stored active, held for an
operator flagged with its reason, through REST, mem0's route, the chat's "remember that" and an
import. Asked about, proposed, or told of another place, it is not read as this one's decision."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.guards.policy import policy_check
from memory_core.models import FlaggedWrite, MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

DROPPED = [
    "We've dropped the rule that the kayakers wear helmets on the canal stretch.",
    "Management have scrapped the requirement for a second signature on petty cash claims.",
    "The policy that contractors are escorted on site has been retired as of today.",
    "我们取消了访客必须登记的规定，直接进就行。",
    "公司廢除了加班要主管簽字的制度，下週開始。",
    # a requirement said to be no more, whatever it required
    "Hi-vis vests are no longer required in the car park now the resurfacing is done.",
    "From this term the school no longer requires a parent's signature on reading logs.",
    "物业通知：即日起业主取快递不再要求出示身份证。",
    "會所由下個月起唔再要求會員登記訪客。",
]
NOT_DROPPED = [
    "Should we drop the rule about helmets on the canal?",
    "Apparently my gym dropped the ID check at the door.",
    "新闻说有家银行取消了大额取现的预约要求。",
    "I dropped the kids at school and went for a run.",
    "他把规定的表格取回来了。",
    "Is a helmet no longer required on the lower trail?",
    "听说隔壁小区不再要求登记了。",
]
REASON = "drops a rule or requirement"


@pytest.mark.parametrize("said", DROPPED)
def test_rest_and_mem0_hold_a_dropped_rule_flagged(key_client, said):
    _held_flagged_on_rest_and_mem0(key_client, said)


def _held_flagged_on_rest_and_mem0(client, said: str) -> None:
    """Held for an operator and flagged on REST and on mem0's route (a user of its own), never active."""
    body = client.post("/api/v1/memories/", {"user_id": "u1", "content": said}, format="json").json()
    assert body["action"] == "pending_review" and body["flagged"], body

    request = {"messages": [{"role": "user", "content": said}], "user_id": uuid.uuid4().hex, "infer": False}
    [result] = client.post("/v3/memories/add/", request, format="json").json()["results"]
    assert result["status"] == "pending_review"
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    assert FlaggedWrite.objects.count() == 2


@pytest.mark.parametrize("said", NOT_DROPPED)
def test_asked_reported_or_no_rule_is_not_read_as_dropped(said):
    assert policy_check(said).reason != REASON


def test_the_chat_and_an_import_hold_it_too(owner, key_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "记住：" + DROPPED[3]})
    held = MemoryEntry.objects.get(namespace__owner=owner)
    assert held.status == MemoryStatus.PENDING_REVIEW and FlaggedWrite.objects.filter(entry=held).exists()

    body = {"format": "text", "data": DROPPED[1] + "\n" + DROPPED[4] + "\n", "user_id": "u1"}
    response = key_client.post("/api/v1/imports/", body, format="json")
    assert response.status_code in (200, 201, 202), response.content
    imported = MemoryEntry.objects.exclude(namespace__owner=owner)
    assert [e.status for e in imported] == [MemoryStatus.PENDING_REVIEW] * 2
    assert FlaggedWrite.objects.filter(entry__in=imported).count() == 2


# A check stopped or made less often by those who run it, with no word of permission: "we'll stop
# the …", a check "scrapped", a daily one cut to one weekday, 不用每天都记录了.
CHECKS_STOPPED = [
    "We'll stop doing the evening roll call at the hostel, the night porter knows everyone.",
    "The midday fridge temperature check is scrapped, the morning one covers it.",
    "Going forward we'll skip the second walk-round of the scaffold on Fridays.",
    "The weekly fire alarm test has been cut to the first Monday only now.",
    "以后不用每天都登记来访车辆了，一个星期登记一次就好。",
    "晚上不用再点名了，大家自己注意安全。",
    # a check made on a sample instead of on all
    "From May, bags get checked on one in five visitors instead of everybody at the gate.",
    "以后包裹检查改成十个抽一个，不用所有人都查了。",
]
CHECKS_KEPT = [
    "Should we stop the evening roll call?",
    "We're adding a second walk-round of the scaffold on Fridays.",
    "I'll stop checking my work email at weekends.",
    "Apparently the other site scrapped their midday fridge check.",
    "这周每天都要登记来访车辆，一个都不能漏。",
    "Bags now get checked for everyone, not one in five.",
]


@pytest.mark.parametrize("said", CHECKS_KEPT)
def test_a_check_asked_about_added_or_personal_is_not_read_as_stopped(said):
    assert not policy_check(said).weakens


def test_the_chat_holds_a_stopped_check(owner, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "Remember that " + CHECKS_STOPPED[0]})
    held = MemoryEntry.objects.get(namespace__owner=owner)
    assert held.status == MemoryStatus.PENDING_REVIEW and FlaggedWrite.objects.filter(entry=held).exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_holds_a_dropped_rule_and_a_stopped_check_flagged(owner, mcp_url):
    said = [DROPPED[3], CHECKS_STOPPED[1], CHECKS_STOPPED[4], DROPPED[7], CHECKS_STOPPED[7]]
    for body in m.adds(mcp_url, user_token_issue(user=owner).key, said):
        assert body["action"] == "pending_review", body
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    assert FlaggedWrite.objects.count() == len(said)


# A standing health reminder dropped or paused relaxes the user's own safety step (the models alone
# stored 2 of these 6 active and held 3 unflagged): held flagged. Not a reminder of chores, one for
# tomorrow only, nor one asked about.
HEALTH_REMINDERS_DROPPED = [
    "The iron tablets are done for good, so get rid of that morning reminder.",
    "Dr Patel took me off the statin, delete the evening pill reminder please.",
    "你每天晚上那个测血糖提醒关掉吧。",
    "医生说铁剂可以停了，你早上那个吃药提醒删了吧。",
    "复查结果挺好，钙片不用吃了，每天中午的提醒帮我去掉。",
    "醫生話血壓藥可以停，唔使再提醒我食藥喇。",
]
HEALTH_REMINDERS_KEPT = [
    "Stop reminding me about the bins.",
    "Delete the reminder for tomorrow's blood test, it got moved.",
    "Should I delete my pill reminder?",
    "要不要把吃药提醒取消？",
    "你每天晚上那个吃药提醒改成九点吧。",
    "航班取消了，记得提醒我吃药。",
]


@pytest.mark.parametrize("said", HEALTH_REMINDERS_KEPT)
def test_a_reminder_of_chores_for_one_day_or_asked_about_is_not_read_as_dropped(said):
    assert policy_check(said).reason != "drops a standing health reminder"


def test_the_batch_route_an_import_mcp_and_the_chat_hold_a_dropped_health_reminder(
    owner, key_client, django_capture_on_commit_callbacks
):
    body = {"user_id": "u1", "memories": [{"content": c} for c in HEALTH_REMINDERS_DROPPED[:2]]}
    results = key_client.post("/api/v1/memories/", body, format="json").json()["results"]
    assert [r["action"] for r in results] == ["pending_review"] * 2, results
    data = HEALTH_REMINDERS_DROPPED[2] + "\n" + HEALTH_REMINDERS_DROPPED[3] + "\n"
    response = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": data, "user_id": "u2"}, format="json"
    )
    assert response.status_code in (200, 201, 202), response.content
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "记住：" + HEALTH_REMINDERS_DROPPED[4]})

    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    assert FlaggedWrite.objects.count() == 5


@pytest.mark.django_db(transaction=True)
def test_mcp_holds_a_dropped_health_reminder_flagged(owner, mcp_url):
    said = [HEALTH_REMINDERS_DROPPED[1], HEALTH_REMINDERS_DROPPED[5]]
    for body in m.adds(mcp_url, user_token_issue(user=owner).key, said):
        assert body["action"] == "pending_review", body
    assert FlaggedWrite.objects.count() == len(said)


@pytest.mark.parametrize("said", CHECKS_STOPPED + HEALTH_REMINDERS_DROPPED)
def test_a_check_or_a_health_reminder_stopped_is_held_flagged_on_rest_and_mem0(key_client, said):
    _held_flagged_on_rest_and_mem0(key_client, said)


@pytest.mark.parametrize("said", DROPPED[5:] + CHECKS_STOPPED[6:])
def test_a_requirement_no_more_or_a_check_on_a_sample_is_read_by_the_rules_alone(said):
    """Read without the models: a requirement no longer asked for, whatever it was, and a check
    made on one in N instead of on everyone."""
    assert policy_check(said).weakens, said
