# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
"""The write path decides alike on Chinese written in either script: a Taiwan or Hong Kong user's
traditional characters are read as simplified by the judgement models (OpenCC's conversion), so a
rule, a relaxed control, a secret, a safety fact and plain talk get the same decision as the
same words in simplified characters, through REST and mem0's route. Each text is written out as a
user would type it, not converted by the test."""

from __future__ import annotations

import uuid

import pytest

from memory_core.models import FlaggedWrite, MemoryEntry

pytestmark = pytest.mark.django_db

# (simplified, traditional, what becomes of it: action, flagged as weakening (None: either, a refused
# secret's record), pinned)
PAIRS = [
    (
        "以后凡是给客户退款，都必须先经过财务主管签字。",
        "以後凡是給客戶退款，都必須先經過財務主管簽字。",
        ("pending_review", False, False),
    ),
    (
        "从这个月起，新员工报销不用再经过经理审批了。",
        "從這個月起，新員工報銷不用再經過經理審批了。",
        ("pending_review", True, False),
    ),
    ("我有严重的哮喘，一直随身带着喷雾。", "我有嚴重的哮喘，一直隨身帶著噴霧。", ("added", False, True)),
    ("我儿子对鸡蛋过敏，吃了会起荨麻疹。", "我兒子對雞蛋過敏，吃了會起蕁麻疹。", ("added", False, True)),
    ("我同事老陈有糖尿病，午饭总是自己带。", "我同事老陳有糖尿病，午飯總是自己帶。", ("added", False, False)),
    ("我周末常去菜市场买菜，顺便买束花。", "我週末常去菜市場買菜，順便買束花。", ("added", False, False)),
    (
        "我家门锁的密码是483920，别告诉别人。",
        "我家門鎖的密碼是483920，別告訴別人。",
        ("rejected", None, False),
    ),
]


def _rest(client, text: str) -> tuple[str, bool, bool]:
    body = client.post("/api/v1/memories/", {"user_id": uuid.uuid4().hex, "content": text}, format="json")
    assert body.status_code in (200, 201), body.content
    reply = body.json()
    return reply["action"], bool(reply.get("flagged")), bool((reply.get("entry") or {}).get("pinned"))


def _mem0(client, text: str) -> tuple[str, bool, bool]:
    body = {"messages": [{"role": "user", "content": text}], "user_id": uuid.uuid4().hex, "infer": False}
    [first, *_] = client.post("/v3/memories/add/", body, format="json").json()["results"]
    action = first.get("status") or {"ADD": "added"}.get(first["event"], first["event"])
    entry = MemoryEntry.objects.filter(pk=first["id"]).first() if first.get("id") else None
    flagged = entry is not None and FlaggedWrite.objects.filter(entry=entry).exists()
    return action, flagged, bool(entry and entry.pinned)


@pytest.mark.parametrize(("simplified", "traditional", "expected"), PAIRS)
@pytest.mark.parametrize("surface", [_rest, _mem0], ids=["rest", "mem0"])
def test_either_script_gets_the_same_decision(key_client, surface, simplified, traditional, expected):
    action, flagged, pinned = expected
    for text in (simplified, traditional):
        got = surface(key_client, text)
        assert (got[0], got[2]) == (action, pinned), text
        assert flagged is None or got[1] == flagged, text
