"""A rule built on the user's or a dependant's condition waits for an operator; the condition it
states does not wait with it. "My son has a sesame allergy, so from now on…" is held for review
whole, and "My son has a sesame allergy" is a safety fact of its own, active and pinned, on every
surface (REST single and batch, mem0, MCP, the chat's "remember that", imports), whether the
condition comes before its instruction or after it ("…, because I have epilepsy"). A rule that
relaxes a control waits whole and flagged, and its condition is kept as under any rule, without the
relaxation; one built on someone else's condition gives no fact. Erasing everything leaves neither
in any column of any table."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from chat.models import Message
from memory_core.models import FlaggedWrite, MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.chat.helpers import client_for
from tests.erasure_helpers import assert_nothing_in_sql, canary

pytestmark = pytest.mark.django_db

# (what the user said, the condition it states first)
RULES_ON_A_CONDITION = [
    (
        "My son Leo has a severe sesame allergy, so from now on his lunchbox never has tahini or hummus.",
        "My son Leo has a severe sesame allergy",
    ),
    ("我女儿有癫痫，以后体育课老师都要先确认她带了药", "我女儿有癫痫"),  # noqa: RUF001
    ("我對青黴素過敏，以後幫我約醫生的時候都要先提醒他們", "我對青黴素過敏"),  # noqa: RUF001
]
# The condition said after the instruction it explains.
CONDITIONS_SAID_AFTER = [
    (
        "From now on, never book me a top bunk on the sleeper trains, because I have epilepsy.",
        "I have epilepsy.",
    ),
    (
        "House rule from today: nobody lights candles in the living room, my son has severe asthma.",
        "my son has severe asthma.",
    ),
    ("以后给我订酒店都要订无烟房，因为我有哮喘。", "我有哮喘。"),  # noqa: RUF001
    ("以後屋企唔准再煮花生嘢,因為我個女對花生嚴重過敏", "我個女對花生嚴重過敏"),
]
# A child named, never called "my son": whose condition it is comes from the rule around it (to a
# nanny, a grandmother, a coach), not from the clause alone.
NAMED_IN_A_CARERS_RULE = [
    (
        "Tomasz has a severe peanut allergy, so whenever you babysit him, never give him anything with nuts.",
        "Tomasz has a severe peanut allergy",
    ),
    ("诺诺有蚕豆病，以后阿姨做饭绝对不能放蚕豆。", "诺诺有蚕豆病"),  # noqa: RUF001
    ("Oskar has epilepsy, so grandma, please never leave him alone in the bath.", "Oskar has epilepsy"),
    ("小安有癲癇，以後游泳課教練一定要全程盯著她。", "小安有癲癇"),  # noqa: RUF001
]
# (a rule that relaxes a control, the condition it rests on)
WEAKENING_ON_A_CONDITION = [
    (
        "My son has asthma, so from now on staff may give his medical records to anyone who asks.",
        "My son has asthma",
    ),
    (
        "I'm diabetic, so from now on the night nurse no longer needs a second nurse to check my insulin.",
        "I'm diabetic",
    ),
    ("我女儿有哮喘，以后老师不用再打电话问我，直接给她用喷雾就行。", "我女儿有哮喘"),  # noqa: RUF001
]
# Told TO a sister, a helper or a partner ("姐姐注意", "老公你记得"): the kin word is who is addressed, not
# whose condition the rule rests on.
ADDRESSED_BY_A_KIN_WORD = [
    ("姐姐，提醒你：我女儿对芒果过敏，以后水果别切芒果给她。", "我女儿对芒果过敏"),  # noqa: RUF001
    ("老公你记得，儿子对青霉素过敏，以后带他看病都要先跟医生讲。", "儿子对青霉素过敏"),  # noqa: RUF001
    # Traditional, and Cantonese: the same reading through MCP and the text import (below).
    ("媽媽注意：我兒子對蛋過敏，以後幫他做早餐不要放蛋。", "我兒子對蛋過敏"),  # noqa: RUF001
    ("老公你記住，我個女對蝦過敏，以後煮嘢唔好放蝦。", "我個女對蝦過敏"),  # noqa: RUF001
    # A kin or a carer's word and a word asking for attention, nothing else ("阿姨请留意"), whatever
    # the model reads in so few words.
    ("阿姨请留意：我女儿对花生过敏，以后零食都不要买带花生的。", "我女儿对花生过敏"),  # noqa: RUF001
    (
        "Grandma, please note: my son is allergic to eggs, so never put egg in his breakfast.",
        "my son is allergic to eggs",
    ),
    # A parent or grandparent addressed bare, and a Cantonese word of asking ("唔該"), as the partner is.
    ("妈妈你记得，宝宝对鸡蛋过敏，以后辅食里都别放蛋黄。", "宝宝对鸡蛋过敏"),  # noqa: RUF001
    ("婆婆唔該記住，我個仔對蝦過敏，以後唔好俾佢食蝦餃。", "我個仔對蝦過敏"),  # noqa: RUF001
    ("外公你千万记住，我女儿有癫痫，以后带她出门都要带着急救药。", "我女儿有癫痫"),  # noqa: RUF001
]
# Addressed to whoever minds the child before the condition ("Ustadh,", "To the nursery staff:", "Kak
# Siti 注意：", "看護你好，"): the named child or grandparent is in the user's care, and the address is  # noqa: RUF003
# not kept with the condition.
ADDRESSED_TO_A_CARER = [
    (
        "Dear Mrs Hughes, Poppy is on Keppra for her seizures, so please make sure she never misses "
        "the lunchtime dose on school trips.",
        "Poppy is on Keppra for her seizures",
    ),
    (
        "To the after-school club staff: Arlo has a severe sesame allergy, so every snack must be "
        "checked before he eats it.",
        "Arlo has a severe sesame allergy",
    ),
    ("Kak Lina, Danial is diabetic, so from now on no sweet drinks after school.", "Danial is diabetic"),
    ("Cikgu，Aisyah有哮喘，以后体育课她累了就让她休息。", "Aisyah有哮喘"),  # noqa: RUF001
    ("看護你好，阿公有糖尿病，以後點心一律不要給他甜的。", "阿公有糖尿病"),  # noqa: RUF001
]
SOMEONE_ELSES = [
    "Our coach Dave has epilepsy, so from now on no strobe lights at the club.",
    # A titled name the rule opens with is its subject, not whom it is told to; "Coaches:" is the
    # club's word to its coaches, of a player.
    "Mr Tan, our regular on Thursdays, is allergic to shellfish, so never put prawns in his set.",
    "Coaches: Ruby has grommets, so from now on she skips all diving drills.",
    "Our receptionist Mark has epilepsy, so from now on the office never uses strobe lights at parties.",
    "我们部门的老王有心脏病，以后团建不要再安排爬山了。",  # noqa: RUF001
]


def _rest_add(client, said: str) -> dict:
    return client.post("/api/v1/memories/", {"user_id": "u1", "content": said}, format="json").json()


def _mem0_add(client, said: str) -> dict:
    body = {"messages": [{"role": "user", "content": said}], "user_id": "u1", "infer": False}
    return client.post("/v3/memories/add/", body, format="json").json()


def _held_and_pinned(said: str, fact: str) -> None:
    """The whole statement waits for review; its condition is an active, pinned safety fact."""
    rule = MemoryEntry.objects.get(content=said)
    assert rule.status == MemoryStatus.PENDING_REVIEW and not rule.pinned
    kept = MemoryEntry.objects.get(content=fact)
    assert (kept.status, kept.pinned, kept.category) == (MemoryStatus.ACTIVE, True, "safety")
    assert kept.type == "semantic" and kept.namespace_id == rule.namespace_id


@pytest.mark.parametrize(("said", "fact"), RULES_ON_A_CONDITION)
def test_rest_holds_the_rule_and_keeps_its_condition_pinned(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review" and body["entry"]["status"] == "pending_review"
    [also] = body["also"]
    assert (also["action"], also["entry"]["content"], also["entry"]["pinned"]) == ("added", fact, True)
    _held_and_pinned(said, fact)
    # Recalled with every answer while the rule waits; the rule itself is not recalled.
    recalled = key_client.post(
        "/api/v1/recall/", {"user_id": "u1", "query": "what should I cook tonight?"}, format="json"
    ).json()
    always = [item["entry"]["content"] for item in recalled["always"]]
    assert fact in always and said not in always
    assert said not in [item["entry"]["content"] for item in recalled["items"]]


@pytest.mark.parametrize(("said", "fact"), ADDRESSED_BY_A_KIN_WORD)
def test_a_rule_told_to_a_kin_word_keeps_the_dependants_condition(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"]) for a in body["also"]] == [("added", fact)]
    _held_and_pinned(said, fact)


def test_mem0_keeps_the_dependants_condition_of_a_rule_told_to_a_kin_word(key_client):
    said, fact = ADDRESSED_BY_A_KIN_WORD[1]
    reply = _mem0_add(key_client, said)

    assert [(r["event"], r["memory"]) for r in reply["results"]] == [("NONE", said), ("ADD", fact)]
    _held_and_pinned(said, fact)


def test_chat_remember_that_keeps_the_condition_of_a_rule_told_to_a_kin_word(
    owner, django_capture_on_commit_callbacks
):
    said, fact = ADDRESSED_BY_A_KIN_WORD[0]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "记住：" + said})  # noqa: RUF001

    assert MemoryEntry.objects.get(status=MemoryStatus.PENDING_REVIEW).type == "procedural"
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert (kept.content.rstrip("。"), kept.pinned, kept.category) == (fact, True, "safety")


@pytest.mark.parametrize(("said", "fact"), CONDITIONS_SAID_AFTER)
def test_a_condition_said_after_its_instruction_is_kept_too(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"]) for a in body["also"]] == [("added", fact)]
    _held_and_pinned(said, fact)


# Said without punctuation (voice input): the clause ends where the instruction's word begins.
UNPUNCTUATED = [
    ("我儿子对花生过敏所以以后幼儿园的点心都要先检查配料", "我儿子对花生过敏"),
    ("我有心脏病以後公司聚餐不要安排我去爬山", "我有心脏病"),
    (
        "My daughter has type 1 diabetes from now on every sleepover host gets her insulin plan",
        "My daughter has type 1 diabetes",
    ),
    # after the instruction, where the speaker is said again ("…的我…"), not after a word that takes
    # them as its object ("给我", "跟我")
    ("以后公司团建不要给我安排潜水我有哮喘", "我有哮喘"),
    ("以后订酒店都要订有电梯的我膝盖做过手术爬不了楼梯", "我膝盖做过手术爬不了楼梯"),
]


@pytest.mark.parametrize(("said", "fact"), UNPUNCTUATED)
def test_a_condition_said_without_punctuation_is_kept(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"]) for a in body["also"]] == [("added", fact)]
    _held_and_pinned(said, fact)


def test_mem0_keeps_a_condition_said_after_its_instruction_without_punctuation(key_client):
    said, fact = UNPUNCTUATED[4]
    reply = _mem0_add(key_client, said)

    assert [(r["event"], r["memory"]) for r in reply["results"]] == [("NONE", said), ("ADD", fact)]
    _held_and_pinned(said, fact)


@pytest.mark.django_db(transaction=True)
def test_mcp_keeps_a_condition_said_after_its_instruction_without_punctuation(owner, mcp_url):
    said, fact = "以后出差都别给我订红眼航班我有癫痫不能熬夜", "我有癫痫不能熬夜"
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])

    assert body["action"] == "pending_review"
    assert [a["entry"]["content"] for a in body["also"]] == [fact]
    _held_and_pinned(said, fact)


# Told to whoever helps at home, the condition between the address and the instruction: kept
# without either, and without the word that links it to the instruction ("…, 所以").
CONDITIONS_SAID_BETWEEN = [
    ("给以后来家里帮忙的阿姨：我爸有阿尔茨海默症，所以以后出门一定要有人陪着他。", "我爸有阿尔茨海默症"),  # noqa: RUF001
    ("畀以後嚟幫手嘅姐姐：我阿爸有柏金遜，所以以後佢沖涼一定要有人喺隔籬。", "我阿爸有柏金遜"),  # noqa: RUF001
    ("給以後來幫忙的鐘點阿姨：我媽有帕金森，所以以後她洗澡一定要有人在旁邊。", "我媽有帕金森"),  # noqa: RUF001
]


@pytest.mark.parametrize(("said", "fact"), CONDITIONS_SAID_BETWEEN)
def test_a_condition_said_between_an_address_and_its_instruction_is_kept(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"]) for a in body["also"]] == [("added", fact)]
    _held_and_pinned(said, fact)


def test_mem0_keeps_a_condition_said_between_address_and_instruction(key_client):
    said, fact = CONDITIONS_SAID_BETWEEN[1]
    reply = _mem0_add(key_client, said)

    assert [(r["event"], r["memory"]) for r in reply["results"]] == [("NONE", said), ("ADD", fact)]
    _held_and_pinned(said, fact)


def test_chat_remember_that_keeps_a_condition_said_between_address_and_instruction(
    owner, django_capture_on_commit_callbacks
):
    said, fact = CONDITIONS_SAID_BETWEEN[0]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"记住: {said}"})
    assert Message.objects.filter(role="assistant").exists()
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert (kept.content, kept.pinned, kept.category) == (fact, True, "safety")
    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW, content__contains="陪着他").exists()


@pytest.mark.parametrize(("said", "fact"), NAMED_IN_A_CARERS_RULE)
def test_a_named_childs_condition_in_a_carers_rule_is_the_users_dependant(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"]) for a in body["also"]] == [("added", fact)]
    _held_and_pinned(said, fact)


def test_mem0_keeps_a_named_childs_condition_while_the_rule_waits(key_client):
    said, fact = NAMED_IN_A_CARERS_RULE[1]
    reply = _mem0_add(key_client, said)

    assert [(r["event"], r["memory"]) for r in reply["results"]] == [("NONE", said), ("ADD", fact)]
    _held_and_pinned(said, fact)


@pytest.mark.parametrize(("said", "fact"), ADDRESSED_TO_A_CARER)
def test_a_condition_in_a_rule_addressed_to_a_carer_is_the_users_dependant(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"]) for a in body["also"]] == [("added", fact)]
    _held_and_pinned(said, fact)


def test_mem0_keeps_the_condition_of_a_rule_addressed_to_a_carer(key_client):
    said, fact = ADDRESSED_TO_A_CARER[2]
    reply = _mem0_add(key_client, said)

    assert [(r["event"], r["memory"]) for r in reply["results"]] == [("NONE", said), ("ADD", fact)]
    _held_and_pinned(said, fact)


@pytest.mark.django_db(transaction=True)
def test_mcp_keeps_the_condition_of_a_rule_addressed_to_a_carer(owner, mcp_url):
    said, fact = ADDRESSED_TO_A_CARER[4]
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])

    assert body["action"] == "pending_review"
    assert [a["entry"]["content"] for a in body["also"]] == [fact]
    _held_and_pinned(said, fact)


def test_the_chat_and_an_import_keep_the_condition_of_a_rule_addressed_to_a_carer(
    key_client, owner, django_capture_on_commit_callbacks
):
    said, fact = ADDRESSED_TO_A_CARER[1]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert (kept.pinned, kept.category) == (True, "safety") and "sesame" in kept.content
    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW, content__contains="snack").exists()

    said, fact = ADDRESSED_TO_A_CARER[3]
    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": f"{said}\n", "user_id": "u1"}, format="json"
    ).json()
    assert [(r["line"], r["action"]) for r in body["results"]] == [(1, "pending_review"), (1, "added")]
    _held_and_pinned(said, fact)


def test_an_import_lists_the_condition_on_the_line_of_its_rule(key_client):
    said, fact = RULES_ON_A_CONDITION[0]
    lines = f"I grow tomatoes on the balcony.\n{said}\n"
    preview = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": lines, "user_id": "u1", "dry_run": True}, format="json"
    ).json()
    rows = [(r["line"], r["action"]) for r in preview["results"]]
    assert rows == [(1, "added"), (2, "pending_review"), (2, "added")]
    assert preview["results"][2]["content"] == fact
    assert not MemoryEntry.objects.exists()  # a dry run writes neither

    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": lines, "user_id": "u1"}, format="json"
    ).json()

    assert body["counts"] == {"added": 2, "pending_review": 1} and body["done"] == body["total"] == 2
    _held_and_pinned(said, fact)


@pytest.mark.django_db(transaction=True)
def test_erasing_everything_leaves_neither_the_rule_nor_its_condition(key_client):
    name = canary("Leo")
    said = f"My son {name} has epilepsy, so from now on the swim coach always stays poolside when he swims."
    added = key_client.post("/api/v1/memories/", {"user_id": "u1", "content": said}, format="json").json()
    [also] = added["also"]
    assert name in also["entry"]["content"] and also["entry"]["pinned"]

    erased = key_client.post("/api/v1/memories/erase-all/", {"user_id": "u1", "confirm": True}, format="json")

    assert erased.status_code == 200 and erased.json()["erased"] == 2
    assert_nothing_in_sql(name)


def test_a_batch_keeps_each_condition_beside_its_own_rule(key_client):
    memories = [{"content": said} for said, _ in RULES_ON_A_CONDITION[:2]]
    memories.insert(1, {"content": "I spent the weekend repainting the shed."})
    response = key_client.post("/api/v1/memories/", {"user_id": "u1", "memories": memories}, format="json")

    assert response.status_code in (200, 201), response.content
    results = response.json()["results"]
    assert [r["action"] for r in results] == ["pending_review", "added", "pending_review"]
    assert results[1]["also"] == []
    for result, (said, fact) in zip((results[0], results[2]), RULES_ON_A_CONDITION[:2], strict=True):
        assert [a["entry"]["content"] for a in result["also"]] == [fact]
        _held_and_pinned(said, fact)


def test_mem0_lists_the_condition_after_the_held_rule(key_client):
    said, fact = RULES_ON_A_CONDITION[1]
    reply = _mem0_add(key_client, said)

    held, kept = reply["results"]
    assert (held["event"], held["status"]) == ("NONE", "pending_review")
    assert (kept["event"], kept["memory"]) == ("ADD", fact) and "status" not in kept
    assert "1 held for review" in reply["message"]
    _held_and_pinned(said, fact)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("said", "fact"),
    [RULES_ON_A_CONDITION[0], CONDITIONS_SAID_BETWEEN[2]],
    ids=["condition before its rule", "condition between address and instruction"],
)
def test_mcp_returns_the_condition_with_the_held_rule(owner, mcp_url, said, fact):
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])
    assert body["action"] == "pending_review"
    assert [a["entry"]["content"] for a in body["also"]] == [fact]
    _held_and_pinned(said, fact)


def test_chat_remember_that_keeps_the_condition_while_the_rule_waits(
    owner, django_capture_on_commit_callbacks
):
    said, fact = RULES_ON_A_CONDITION[2]
    client = client_for(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": f"记住: {said}"})
    assert Message.objects.filter(role="assistant").exists()
    # The chat writes the simplified form of what it remembers ("我对青黴素过敏").
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert (kept.pinned, kept.category, len(kept.content)) == (True, "safety", len(fact))
    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW, content__contains="提醒").exists()


@pytest.mark.parametrize("said", SOMEONE_ELSES)
def test_a_rule_that_rests_on_someone_elses_condition_waits_whole(key_client, said):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review" and body["also"] == []
    assert MemoryEntry.objects.count() == 1
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()


def _relaxation_held_flagged(said: str, fact: str) -> None:
    """The relaxation waits flagged and is never active; only its condition is, pinned."""
    _held_and_pinned(said, fact)
    assert FlaggedWrite.objects.filter(entry__content=said).exists()
    active = list(MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).values_list("content", flat=True))
    assert active == [fact]


@pytest.mark.parametrize(("said", "fact"), WEAKENING_ON_A_CONDITION)
def test_a_rule_that_relaxes_a_control_waits_flagged_and_its_condition_is_kept(key_client, said, fact):
    body = _rest_add(key_client, said)

    assert body["action"] == "pending_review"
    assert [(a["action"], a["entry"]["content"], a["entry"]["pinned"]) for a in body["also"]] == [
        ("added", fact, True)
    ]
    _relaxation_held_flagged(said, fact)


def test_mem0_keeps_the_condition_of_a_relaxing_rule_and_not_the_relaxation(key_client):
    said, fact = WEAKENING_ON_A_CONDITION[2]
    reply = _mem0_add(key_client, said)

    assert [(r["event"], r["memory"]) for r in reply["results"]] == [("NONE", said), ("ADD", fact)]
    _relaxation_held_flagged(said, fact)


def test_chat_remember_that_keeps_the_condition_of_a_relaxing_rule(owner, django_capture_on_commit_callbacks):
    said, _ = WEAKENING_ON_A_CONDITION[0]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": f"Remember that {said}"})
    assert Message.objects.filter(role="assistant").exists()
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert (kept.pinned, kept.category) == (True, "safety") and "asthma" in kept.content
    assert "records" not in kept.content
    held = MemoryEntry.objects.get(status=MemoryStatus.PENDING_REVIEW)
    assert "medical records" in held.content and FlaggedWrite.objects.filter(entry=held).exists()


def test_an_import_keeps_the_condition_of_a_relaxing_rule_and_not_the_relaxation(key_client):
    said, fact = WEAKENING_ON_A_CONDITION[1]
    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": f"{said}\n", "user_id": "u1"}, format="json"
    ).json()

    assert [(r["line"], r["action"]) for r in body["results"]] == [(1, "pending_review"), (1, "added")]
    _relaxation_held_flagged(said, fact)


@pytest.mark.django_db(transaction=True)
def test_mcp_keeps_the_condition_of_a_relaxing_rule_and_not_the_relaxation(owner, mcp_url):
    said, fact = WEAKENING_ON_A_CONDITION[1]
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])
    assert body["action"] == "pending_review"
    assert [a["entry"]["content"] for a in body["also"]] == [fact]
    _relaxation_held_flagged(said, fact)


# A carer told how to look after a named child, in wordings of these tests' own, through MCP, the
# chat's "remember that" and an import: the child's condition kept at once and pinned.
TOLD_TO_A_CARER = [
    (
        "Mila has coeliac disease, so nanny, never give her ordinary bread or pasta.",
        "Mila has coeliac disease",
    ),
    ("乐乐有哮喘，以后外婆带他出去玩一定要带上喷雾。", "乐乐有哮喘"),  # noqa: RUF001
    (
        "Ben is allergic to sesame, so whenever the childminder packs his lunch, no hummus.",
        "Ben is allergic to sesame",
    ),
]


@pytest.mark.django_db(transaction=True)
def test_mcp_keeps_a_named_childs_condition_told_to_a_carer(owner, mcp_url):
    said, fact = TOLD_TO_A_CARER[0]
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])
    assert body["action"] == "pending_review"
    _held_and_pinned(said, fact)


def test_the_chat_keeps_a_named_childs_condition_told_to_a_carer(owner, django_capture_on_commit_callbacks):
    said, fact = TOLD_TO_A_CARER[1]
    with django_capture_on_commit_callbacks(execute=True):
        client_for(owner).post(reverse("chat:new"), {"content": "记住：" + said})  # noqa: RUF001

    assert MemoryEntry.objects.get(status=MemoryStatus.PENDING_REVIEW).type == "procedural"
    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE)
    assert kept.content.rstrip("。") == fact and kept.pinned


def test_an_import_keeps_a_named_childs_condition_told_to_a_carer(key_client):
    said, fact = TOLD_TO_A_CARER[2]
    body = {"format": "text", "data": said + "\n", "user_id": "u1"}
    response = key_client.post("/api/v1/imports/", body, format="json")
    assert response.status_code in (200, 201, 202), response.content

    _held_and_pinned(said, fact)


@pytest.mark.django_db(transaction=True)
def test_mcp_keeps_the_dependants_condition_of_a_rule_told_to_a_kin_word(owner, mcp_url):
    said, fact = ADDRESSED_BY_A_KIN_WORD[2]
    [body] = m.adds(mcp_url, user_token_issue(user=owner).key, [said])
    assert body["action"] == "pending_review"
    assert [a["entry"]["content"] for a in body["also"]] == [fact]
    _held_and_pinned(said, fact)


def test_an_import_keeps_the_dependants_condition_of_a_rule_told_to_a_kin_word(key_client):
    said, fact = ADDRESSED_BY_A_KIN_WORD[3]
    lines = f"我哋今個禮拜去咗長洲。\n{said}\n"
    body = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": lines, "user_id": "u1"}, format="json"
    ).json()

    assert body["counts"] == {"added": 2, "pending_review": 1}, body
    rows = [(r["line"], r["action"], r["content"]) for r in body["results"]]
    assert (2, "added", fact) in rows
    _held_and_pinned(said, fact)
