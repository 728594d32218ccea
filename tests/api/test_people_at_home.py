# ruff: noqa: RUF001, RUF002 -- Chinese users type full-width punctuation; so must the tests.
"""Kin the user says live with them ("我媽媽秀芬現在跟我住", "外孙女叫朵朵，四岁，平时住我家", "她现在跟
我们一起住", "同我哋住") are in their care: a later condition said by the name alone is a dependant's,
pinned. A spouse said as 老伴 is the user's kin ("老伴老周…一直是我照顾他"), and an age written with
廿 ("阿峰今年廿三歲") is no part of the name. Cantonese says it its way
("我老豆國雄而家住喺我度", "孫仔朗朗搬咗嚟同我哋住"). Kin who live with the user now and then ("偶尔跟我住")
or only visit ("下周来出差，住我家") are not in their care: their conditions by name alone stay
unpinned. A Cantonese clause that opens with the bare classifier ("個仔Marcus…", "個女Chloe…") names
the user's own child; after someone's name ("Wendy 個仔叫 Jason") it is not the user's. Through REST, the
batch route, mem0's route, MCP, an import and the chat."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.entities.models import Relation
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.add_helpers import batch_add, import_lines
from tests.api.test_people_known_safety import _mem0_add, _rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (who they are and that they live with the user; later, a condition of theirs by name alone)
AT_HOME = [
    ("我媽媽秀芬現在跟我住，每個禮拜帶她去覆診。", "秀芬有糖尿病，每天打胰島素。"),
    ("我外孙女叫朵朵，四岁，平时住我家。", "朵朵对芒果过敏。"),
    ("奶奶叫李玉兰，她现在跟我们一起住。", "李玉兰有高血压，每天吃药。"),
    ("我家婆惠珍同我哋住。", "惠珍有骨質疏鬆，行路要扶。"),
    ("老伴老周前年中风了，一直是我照顾他。", "老周有糖尿病，要控制饮食。"),
    ("我個仔阿峰今年廿三歲，有自閉症，一直同我哋住。", "阿峰有癲癇，食緊藥。"),
    # Cantonese: 老豆 is the father, 孫仔 the grandson, 而家 "now", 住喺我度 "lives at my place"
    ("我老豆國雄而家住喺我度。", "國雄有柏金遜，食緊藥。"),
    ("孫仔朗朗搬咗嚟同我哋住。", "朗朗對花生敏感，一啲都唔食得。"),
    # a Latin name with a form of address (Ann姐), 一齊 and 負責 as traditional characters write them
    ("我阿嫲Ann姐同我哋一齊住。", "Ann姐有心臟病，食緊薄血丸。"),
    ("外婆 Rosie 而家住喺我哋屋企，我負責照顧佢。", "Rosie 有糖尿病，朝早要打針。"),
]
# English says it so too ("has lived with us since…", "moved in with us", a name given after it:
# "Ines is her name").
EN_AT_HOME = [
    (
        "My father-in-law, Walter, has lived with us since the spring.",
        "Walter has COPD and uses oxygen at night.",
    ),
    (
        "Grandma moved in with us after Christmas. Ines is her name, by the way.",
        "Ines takes warfarin every evening.",
    ),
    ("My brother Sami lives with me now.", "Sami has epilepsy."),
]
EN_NOT_AT_HOME = [
    ("My sister Lena lived with us when she was at uni.", "Lena has asthma."),
    ("My cousin Raf is staying with us for a few weeks.", "Raf is diabetic."),
    ("My uncle Colin doesn't live with us.", "Colin has angina."),
    ("My husband Tom lives with me.", "Tom has type 1 diabetes."),
]
NOT_AT_HOME = [
    ("我妈叫桂英，偶尔跟我住，平时住我姐家。", "桂英有高血压。"),
    ("我表哥阿明下周来出差，住我家。", "阿明有哮喘。"),
]


def _cared_for(namespace_id: int) -> list[str]:
    found = Relation.objects.filter(namespace_id=namespace_id, label="cares for", subject__is_self=True)
    return sorted(r.object.name for r in found)


@pytest.mark.parametrize(("who", "condition"), AT_HOME + EN_AT_HOME)
def test_rest_pins_the_condition_of_kin_who_live_with_the_user(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert _cared_for(MemoryEntry.objects.get(content=who).namespace_id) != []
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety"), body


@pytest.mark.parametrize(("who", "condition"), NOT_AT_HOME + EN_NOT_AT_HOME)
def test_kin_now_and_then_visiting_gone_or_a_partner_are_not_in_care(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert _cared_for(MemoryEntry.objects.get(content=who).namespace_id) == []
    assert body["entry"]["pinned"] is False, body


def test_the_batch_route_reads_them_in_order(key_client):
    (who, condition), (visit, asthma) = AT_HOME[6], NOT_AT_HOME[1]
    (en_who, en_condition), (once, en_asthma) = EN_AT_HOME[0], EN_NOT_AT_HOME[0]
    results = batch_add(key_client, [who, visit, en_who, once, condition, asthma, en_condition, en_asthma])

    assert _cared_for(MemoryEntry.objects.get(content=who).namespace_id) != []
    kept = {e.content: e.pinned for e in MemoryEntry.objects.all()}
    assert (kept[condition], kept[asthma], kept[en_condition], kept[en_asthma]) == (
        True,
        False,
        True,
        False,
    ), results


def test_an_import_reads_them_in_order(key_client):
    (who, condition), (sometimes, pressure) = AT_HOME[7], NOT_AT_HOME[0]
    rows = import_lines(key_client, [who, sometimes, condition, pressure])

    kept = {e.content: e.pinned for e in MemoryEntry.objects.all()}
    assert (kept[condition], kept[pressure]) == (True, False), rows


@pytest.mark.parametrize(("who", "condition"), [AT_HOME[0], AT_HOME[4], EN_AT_HOME[1]])
def test_mem0(key_client, who, condition):
    _mem0_add(key_client, who)
    _mem0_add(key_client, condition)

    assert MemoryEntry.objects.get(content=condition).pinned


@pytest.mark.django_db(transaction=True)
def test_mcp(owner, mcp_url):
    token = user_token_issue(user=owner).key
    (who, condition), (visit, asthma) = AT_HOME[1], NOT_AT_HOME[1]
    *_, pinned, not_pinned = m.adds(mcp_url, token, [who, visit, condition, asthma])
    assert pinned["entry"]["pinned"] and not not_pinned["entry"]["pinned"], (pinned, not_pinned)


def test_the_chat(owner, django_capture_on_commit_callbacks):
    who, condition = AT_HOME[3]
    for said in (who, condition):
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})

    kept = {e.content: e.pinned for e in MemoryEntry.objects.all()}
    assert any(pinned for content, pinned in kept.items() if "骨質疏鬆" in content), kept


# (a child named after the bare classifier, the user's; later, a condition by name alone; pinned?)
BARE_CLASSIFIER = [
    ("個仔Marcus下個禮拜去宿營，要執行李。", "Marcus有哮喘，要帶噴霧。", True),
    ("今日好忙，個女Chloe又發燒。", "Chloe對盤尼西林敏感。", True),
    ("隔籬 Wendy 個仔叫 Jason，成日嚟我哋度玩。", "Jason對花生敏感。", False),
]


@pytest.mark.parametrize(("who", "condition", "theirs"), BARE_CLASSIFIER)
def test_a_child_named_after_the_bare_classifier_is_the_users(key_client, who, condition, theirs):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)
    assert body["entry"]["pinned"] is theirs, body


def test_mem0_and_the_batch_route_read_the_bare_classifier(key_client):
    (who, condition, _), (other, peanuts, _) = BARE_CLASSIFIER[0], BARE_CLASSIFIER[2]
    batch_add(key_client, [who, other, condition, peanuts])
    kept = {e.content: e.pinned for e in MemoryEntry.objects.all()}
    assert (kept[condition], kept[peanuts]) == (True, False), kept

    MemoryEntry.objects.all().delete()
    who, condition, _ = BARE_CLASSIFIER[1]
    for said in (who, condition):
        _mem0_add(key_client, said)
    assert MemoryEntry.objects.get(content=condition).pinned


@pytest.mark.django_db(transaction=True)
def test_mcp_and_an_import_read_the_bare_classifier(key_client, owner, mcp_url):
    who, condition, _ = BARE_CLASSIFIER[0]
    *_, body = m.adds(mcp_url, user_token_issue(user=owner).key, [who, condition])
    assert body["entry"]["pinned"], body

    who, condition, _ = BARE_CLASSIFIER[1]
    import_lines(key_client, [who, condition])
    assert MemoryEntry.objects.get(content=condition).pinned


def test_the_chat_reads_the_bare_classifier(owner, django_capture_on_commit_callbacks):
    who, condition, _ = BARE_CLASSIFIER[0]
    for said in (who, condition):
        with django_capture_on_commit_callbacks(execute=True):
            client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})

    kept = {e.content: e.pinned for e in MemoryEntry.objects.all()}
    assert any(pinned for content, pinned in kept.items() if "哮喘" in content), kept
