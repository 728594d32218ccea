# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
"""A secret whose value has the shape of something else (a combination written like a date, a door
code shaped like an identifier, a PIN after the device it is for) is refused when the secret model
is sure of its sentence, on every surface that writes (REST and its batch, mem0's route, MCP, an
import, the chat's "remember that"), and its value is in no answer and no column of any table.
Before, the shape rules gave those numbers to the date, the identifier or the word before them, and
the value was stored; so was a keypad code written with its "#" ("大堂新密碼 #2719*", read as a
reference number). Dates, order, ticket and flight numbers and phone numbers in ordinary sentences
are still kept."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, rest_add
from tests.chat.helpers import client_for
from tests.erasure_helpers import scan_database

pytestmark = pytest.mark.django_db

# (what was said, the value in it)
SHAPED_AS_SOMETHING_ELSE = [
    ("Plant room safe has a new combination: 14-09-62, turn right first.", "14-09-62"),
    ("They changed the staff gate at the depot today, it's K4471Z now.", "K4471Z"),
    ("储物间的保险箱换了，现在是 23-11-47，先往左转。", "23-11-47"),
    ("员工通道门禁今天改了，现在是 Q5582W。", "Q5582W"),
    # a keypad code written with its "#" or "*" after the word that names it (not "ticket #2719")
    ("新的門禁密碼 #6617*，聽日開始用。", "6617"),
    ("管理處通知：大堂密碼下個月轉做 #4096*，記得同屋企人講聲，唔好貼出嚟。", "4096"),
    ("The bin store keypad code is #3390 from today.", "3390"),
]
ORDINARY_NUMBERS = [
    "Our flight is BA2490 on 31-07, gate closes at 9.",
    "Order 88231 arrived on 12-03-24, box was a bit crushed.",
    "My new number is 07700 900123, text me there.",
    "我们订了 5 月 18 日的 G1234 次高铁，9 点 05 分发车。",
    "Ticket #2719 is closed now, thanks for the quick fix.",
]
# A public line's number is the line's (专线, 總機, like 热线 and "hotline"): kept, however short;
# a code told beside one is still refused.
HOTLINES = ["心理援助专线是 12356，半夜也有人接。", "反诈专线是 96110，接到可疑电话先打这个。"]


def _nowhere(value: str) -> None:
    assert not MemoryEntry.objects.filter(content__contains=value).exists()
    found = scan_database(value, text_only=True)
    found.pop("django_migrations", None)
    # Four digits turn up by chance in an API key's random hash or prefix (CI saw it once): no
    # memory is in those columns; any other column holding the value fails.
    if set(found.get("api_apikey", ["secret_hash"])) <= {"secret_hash", "prefix"}:
        found.pop("api_apikey", None)
    assert found == {}, found


@pytest.mark.parametrize(("said", "value"), SHAPED_AS_SOMETHING_ELSE)
def test_rest_and_mem0_refuse_a_value_shaped_as_something_else(key_client, said, value):
    body = rest_add(key_client, said)
    assert body["action"] == "rejected" and value not in str(body), body
    (result,) = mem0_add(key_client, said)["results"]
    assert result["status"] == "rejected" and value not in str(result), result
    _nowhere(value)


@pytest.mark.parametrize("said", [*ORDINARY_NUMBERS, *HOTLINES])
def test_ordinary_numbers_are_still_kept(key_client, said):
    assert rest_add(key_client, said)["action"] == "added"
    (result,) = mem0_add(key_client, said + " Cheers.")["results"]
    assert result["event"] in ("ADD", "UPDATE") and "status" not in result, result


@pytest.mark.django_db(transaction=True)
def test_mcp_refuses_them(owner, mcp_url):
    told = [*SHAPED_AS_SOMETHING_ELSE[1:3], SHAPED_AS_SOMETHING_ELSE[5]]
    answers = m.adds(mcp_url, user_token_issue(user=owner).key, [said for said, _ in told])
    for body, (_, value) in zip(answers, told, strict=True):
        assert body["action"] == "rejected" and value not in str(body), body
        _nowhere(value)


def test_the_batch_route_and_an_import_refuse_a_keypad_code_and_keep_a_ticket_number(key_client):
    (_, code), (_, door), ticket = (
        SHAPED_AS_SOMETHING_ELSE[6],
        SHAPED_AS_SOMETHING_ELSE[4],
        ORDINARY_NUMBERS[4],
    )
    told = [SHAPED_AS_SOMETHING_ELSE[6][0], ticket]
    assert [r["action"] for r in batch_add(key_client, told)] == ["rejected", "added"]
    rows = import_lines(
        key_client, ["管理處話大堂嘅門禁密碼轉咗做 #5820*，唔好話俾外人知。", SHAPED_AS_SOMETHING_ELSE[4][0]]
    )
    assert [row["action"] for row in rows] == ["rejected", "rejected"], rows
    for value in (code, door, "5820"):
        assert value not in str(rows)
        _nowhere(value)
    assert MemoryEntry.objects.filter(content=ticket).exists()


def test_a_code_told_digit_by_digit_is_refused_by_the_chat_the_batch_route_and_an_import(
    key_client, owner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(
            reverse("chat:new"), {"content": "Remember that the side gate opens with 7, 2, 9, 4."}
        )
    # the user's own message keeps it (as the chat keeps every message); no reply and no memory does
    assert "7, 2, 9, 4" not in Message.objects.filter(role="assistant").latest("id").content
    assert not MemoryEntry.objects.filter(content__contains="7, 2, 9, 4").exists()

    told = [
        "车库卷帘门的遥控密码是 6，0，3，8，别跟物业说。",
        "The grandkids are 9, 7, 5 and 2 now, hard to believe.",
    ]
    assert [r["action"] for r in batch_add(key_client, told)] == ["rejected", "added"]
    rows = import_lines(
        key_client, ["Bike lock combo: 3, 3, 9, 1.", "The under-9s won 3, 1, 0, 2 this morning."]
    )
    assert [row["action"] for row in rows] == ["rejected", "added"], rows
    for value in ("6，0，3，8", "3, 3, 9, 1"):
        _nowhere(value)


def test_the_chat_refuses_to_remember_it_and_never_echoes_it(owner, django_capture_on_commit_callbacks):
    said, value = SHAPED_AS_SOMETHING_ELSE[0]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})

    reply = Message.objects.filter(role="assistant").latest("id").content
    assert value not in reply
    assert not MemoryEntry.objects.filter(content__contains=value).exists()


def test_the_batch_route_and_an_import_refuse_them_and_keep_the_ordinary_numbers(key_client):
    told = [SHAPED_AS_SOMETHING_ELSE[0][0], ORDINARY_NUMBERS[0], SHAPED_AS_SOMETHING_ELSE[3][0]]
    refused, kept, refused_too = batch_add(key_client, told)
    assert (refused["action"], kept["action"], refused_too["action"]) == ("rejected", "added", "rejected")
    assert "14-09-62" not in str(refused) and "Q5582W" not in str(refused_too)

    rows = import_lines(
        key_client, [SHAPED_AS_SOMETHING_ELSE[1][0], ORDINARY_NUMBERS[3], SHAPED_AS_SOMETHING_ELSE[2][0]]
    )
    assert [row["action"] for row in rows] == ["rejected", "added", "rejected"], rows
    assert "K4471Z" not in str(rows) and "23-11-47" not in str(rows)
    for _, value in SHAPED_AS_SOMETHING_ELSE[:4]:  # the ones told here
        _nowhere(value)
    assert MemoryEntry.objects.filter(content__in=[ORDINARY_NUMBERS[0], ORDINARY_NUMBERS[3]]).count() == 2


# A house number is the street's: a delivery or visit note with an address is kept, whatever its
# heading makes the secret model think; a code told beside an address is still refused.
ADDRESSES = [
    "Van: Hotpoint fridge to 14 Carlow Way, 10-12 slot, order 55120.",
    "Rounds: Mrs Okafor at 27 Linden Grove first, then the flats on Quay Street.",
    "Gate: drop the marquee poles at 3 Old Mill Lane, round the back by 8.",
]
CODE_AT_AN_ADDRESS = ("The key safe at 14 Carlow Way opens with 7316, it's by the back door.", "7316")


@pytest.mark.parametrize("said", ADDRESSES)
def test_a_house_number_is_no_secret(key_client, said):
    assert rest_add(key_client, said)["action"] == "added"
    (result,) = mem0_add(key_client, said + " Ta.")["results"]
    assert result["event"] in ("ADD", "UPDATE") and "status" not in result, result


def test_the_batch_route_keeps_addresses_and_refuses_the_code_beside_one(key_client):
    said, value = CODE_AT_AN_ADDRESS
    results = batch_add(key_client, [*ADDRESSES, said])
    assert [r["action"] for r in results] == ["added"] * len(ADDRESSES) + ["rejected"], results
    _nowhere(value)


@pytest.mark.django_db(transaction=True)
def test_mcp_keeps_an_address_and_refuses_a_code_beside_one(owner, mcp_url):
    said, value = CODE_AT_AN_ADDRESS
    kept, refused = m.adds(mcp_url, user_token_issue(user=owner).key, [ADDRESSES[0], said])
    assert (kept["action"], refused["action"]) == ("added", "rejected"), (kept, refused)
    assert value not in str(refused)


def test_an_import_and_the_chat_keep_an_address(key_client, owner, django_capture_on_commit_callbacks):
    rows = import_lines(key_client, [*ADDRESSES[1:], CODE_AT_AN_ADDRESS[0]])
    assert [row["action"] for row in rows] == ["added", "added", "rejected"], rows
    _nowhere(CODE_AT_AN_ADDRESS[1])

    told = "Remember that the florist delivers the wreath to 9 Abbey Close on Thursday."
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": told})
    assert MemoryEntry.objects.filter(content__contains="9 Abbey Close").exists()


@pytest.mark.django_db(transaction=True)
def test_the_batch_route_and_mcp_keep_a_hotline_and_refuse_a_code_beside_it(key_client, owner, mcp_url):
    beside = "社保专线是 12333，我的查询密码是 508817。"
    results = batch_add(key_client, [HOTLINES[0], beside])
    assert [r["action"] for r in results] == ["added", "rejected"], results
    kept, refused = m.adds(mcp_url, user_token_issue(user=owner).key, [HOTLINES[1], beside])
    assert (kept["action"], refused["action"]) == ("added", "rejected"), (kept, refused)
    _nowhere("508817")


def test_an_import_and_the_chat_keep_a_hotline(key_client, owner, django_capture_on_commit_callbacks):
    rows = import_lines(key_client, HOTLINES)
    assert [row["action"] for row in rows] == ["added", "added"], rows
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "记住：老人防骗专线是 96110。"})
    assert MemoryEntry.objects.filter(content__contains="96110", status="active").count() == 2
