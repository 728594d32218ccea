# ruff: noqa: RUF001 -- Chinese users type full-width commas; so must the tests.
"""A condition told of someone the statement names with a title ("Account note, Mr Patel: he has
dementia", "For Mr Haines, who has epilepsy: …", "Bed 12 的 Mdm Lim 有 dysphagia", "对门王奶奶一个人住,
有心脏病") is a client's, a patient's or a neighbour's: nobody names their own child, or a parent in
their care, "Mr Patel" or "王奶奶". Before, told in a carer's or a clerk's words, they were pinned
as the user's or a dependant's (6 of batch 55's 15 false pins). A title in a greeting ("王老师您好,
我家朵朵…": said TO the teacher) and "Mr Tan is my dad" stay the user's to tell.

Through REST, mem0's route, the batch route, an import and MCP."""

from __future__ import annotations

import pytest

from api.services import user_token_issue
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines, mem0_add, pinned, rest_add

pytestmark = pytest.mark.django_db

TITLED = [
    "Account note, Mrs Okonjo: she has Alzheimer's. Only discuss the policy when her son is on the call.",
    "Front desk reminder: Mr Varga uses a hearing aid and needs the induction loop switched on.",
    "For Dr Ellison, who is type 1 diabetic: keep two cartons of juice in the green room.",
    "3号床的 Mr Wong 有糖尿病，晚饭前要测血糖。",
    "楼下李阿姨有心脏病，一个人住，我们每天去看看她。",
    "隔壁張伯伯中風過，走路要扶。",
]
STILL_THEIRS = [
    "王老师您好，我家朵朵对鸡蛋过敏，明天的点心麻烦单独准备。",
    "Mr Tan is my dad, he has a pacemaker and lives with me so I look after him.",
]


@pytest.mark.parametrize("said", TITLED)
def test_rest_and_mem0_keep_a_titled_persons_condition_unpinned(key_client, said):
    body = rest_add(key_client, said)
    assert body["action"] in ("added", "pending_review") and not pinned(body), body
    MemoryEntry.objects.all().delete()
    mem0_add(key_client, said)
    assert MemoryEntry.objects.exists() and not MemoryEntry.objects.filter(pinned=True).exists(), said


@pytest.mark.parametrize("said", STILL_THEIRS)
def test_a_greeting_a_parent_and_a_person_in_care_are_stillpinned(key_client, said):
    assert pinned(rest_add(key_client, said)), said


def test_the_batch_route_reads_them_alike(key_client):
    results = batch_add(key_client, [*TITLED, *STILL_THEIRS])
    read = [pinned(result) for result in results]
    assert read == [False] * len(TITLED) + [True] * len(STILL_THEIRS), read


def test_an_import_reads_them_alike(key_client):
    import_lines(key_client, TITLED[:2])
    assert MemoryEntry.objects.count() >= 2 and not MemoryEntry.objects.filter(pinned=True).exists()


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_them_alike(owner, mcp_url):
    token = user_token_issue(user=owner).key
    client, neighbour, greeting = m.adds(mcp_url, token, [TITLED[1], TITLED[4], STILL_THEIRS[0]])
    assert not pinned(client) and not pinned(neighbour), (client, neighbour)
    assert pinned(greeting), greeting
