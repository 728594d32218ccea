"""Whose condition a statement tells, from the people the user named before: "Ella has epilepsy"
after "my daughter is called Ella" is a dependant's safety fact, pinned; "Maya can't have dairy"
after "my colleague Maya…" is someone else's, not pinned and not in the user's own health slot.
On every surface that writes (REST single and batch, mem0, MCP, the chat), in English and Chinese
(simplified and traditional). A name that owns another person ("Ella's teacher"), the user's own
condition told beside a name, and a parent (who may or may not be in the user's care) are left to
the safety model as before."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (who the user said the person is, later: a condition of that person's by name alone)
THEIR_CHILD = [
    ("My daughter is called Ella.", "Ella has epilepsy."),
    ("My stepson Kai moved in with us in March.", "Kai is allergic to penicillin."),
    ("My son is called Rory.", "rory has type 1 diabetes"),  # a name typed in lower case
    ("我女儿叫小米。", "小米对花生过敏。"),
    ("我兒子叫阿杰。", "阿杰有氣喘，隨身帶噴霧。"),  # noqa: RUF001
    ("My daughter is called Ines.", "Ines is allergic to cats and dogs."),  # a pet word is no person
    ("My son is called Noah.", "Noah has asthma and uses a blue inhaler."),  # read as a health slot too
    ("我儿子叫豆豆。", "豆豆对猫毛过敏，一碰就打喷嚏。"),  # noqa: RUF001
    # A treatment or device named, which the model alone does not read as a condition:
    ("My son is called Arjun.", "Arjun's CGM fell off in the pool again."),
    ("My daughter is called Tilly.", "Tilly's on methotrexate every Friday now."),
    ("我女儿叫一一。", "一一的人工耳蜗外机坏了，保修要怎么弄？"),  # noqa: RUF001
    # Children listed as they are counted, or named before what they do:
    ("Our kids are Oscar (9) and Nell (6).", "Nell has coeliac disease."),
    ("我有两个孩子，姐姐叫朵朵，弟弟叫豆豆。", "豆豆对鸡蛋过敏，一吃就起疹子。"),  # noqa: RUF001
    ("我有兩個仔女，哥哥叫浩然，妹妹叫心悠。", "心悠有蠶豆症。"),  # noqa: RUF001
    ("我儿子乐乐上小学了。", "乐乐有哮喘，体育课要带喷雾。"),  # noqa: RUF001
    # A possessive typed without its apostrophe (voice input):
    ("my son is called finn", "finns epipen runs out next week can u remind me"),
]
SOMEONE_ELSES = [
    ("My colleague Maya sits next to me.", "Maya can't have dairy, she's lactose intolerant."),
    ("My friend Noah is visiting this weekend.", "Noah has asthma and uses a blue inhaler."),
    ("我同事叫小林。", "小林对芒果过敏，吃了会起疹子。"),  # noqa: RUF001
    ("My colleague Dev sits opposite me.", "Dev's CGM fell off in the pool again."),
    # Pupils, players and customers the user looks after at work are someone else's:
    (
        "I coach the under-10s and one of my swimmers, Kofi, has asthma.",
        "Kofi left his inhaler at the pool again.",
    ),
    ("我们班有个学生叫乐乐，他对花生过敏。", "乐乐今天又忘带肾上腺素笔了。"),  # noqa: RUF001
    ("我们科里有个病人叫王伯，住了快一个月了。", "王伯对青霉素过敏。"),  # noqa: RUF001
    ("Regular customer, Mrs Adebayo, always asks about nuts.", "Mrs Adebayo has a severe nut allergy."),
]


def _rest_add(client, content: str, user: str = "u1") -> dict:
    response = client.post("/api/v1/memories/", {"user_id": user, "content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _mem0_add(client, content: str, user: str = "u1") -> dict:
    body = {"messages": [{"role": "user", "content": content}], "user_id": user, "infer": False}
    response = client.post("/v3/memories/add/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _entry(content: str) -> MemoryEntry:
    return MemoryEntry.objects.get(content=content, status=MemoryStatus.ACTIVE)


def _always_recalled(entry: MemoryEntry) -> bool:
    return entry.pinned or entry.category in ("safety", "profile")


# Introduced as "X's name is Y", "X's called Y", or as a child the user fosters.
NAMED_AFTER_THEIR_KIN_WORD = [
    (
        "Mum's name is Pat, she lives with us and I'm her carer.",
        "Pat has vascular dementia and wanders at night.",
    ),
    ("My son's name's Idris.", "Idris is allergic to kiwi."),
    ("my daughter's called Wren", "wren has coeliac disease"),
    ("We're fostering Amira, she's 6.", "Amira has sickle cell disease."),
    # Named by a pronoun after the kin ("…my dad, he's called Gary"), a grandparent with their name
    # ("Grandad Cyril"), in Chinese by a nickname ("小名叫"), code-switched ("我 son 叫 Ethan").
    ("I'm 19 and I look after my dad, he's called Gary.", "gary has chronic kidney disease stage 4"),
    ("Grandad Cyril lives with us and I'm his main carer.", "Cyril has Parkinson's and a new tremor."),
    ("女儿小名叫圆圆，今年三年级。", "圆圆有妥瑞氏症，最近抽动比较频繁。"),  # noqa: RUF001
    ("我 son 叫 Ethan，今年七岁。", "Ethan 有 eczema，每天要擦 steroid cream。"),  # noqa: RUF001
    ("BB女叫心怡，啱啱六個月大。", "心怡對牛奶蛋白敏感，要飲水解奶粉。"),  # noqa: RUF001
    ("The twins, Rosie and Jack, turn four next week!", "Rosie has a severe egg allergy."),
    ("my son ollie (14) just started at the big school", "ollie has type 1 diabetes and carries insulin"),
]
# A full name, then the name the person goes by: the given name, a romanised surname first, a
# Chinese full name's given name.
SAID_BY_A_SHORTER_NAME = [
    ("My daughter is called Maisie Clarke.", "Maisie has a severe peanut allergy."),
    ("My grandson is called Tan Wei Ming, I'm his guardian.", "Wei Ming has epilepsy, on Keppra."),
    ("我儿子叫李浩然，今年八岁。", "浩然有哮喘，晚上要用喷雾。"),  # noqa: RUF001
]


@pytest.mark.parametrize(("who", "condition"), SAID_BY_A_SHORTER_NAME)
def test_a_dependant_said_by_a_shorter_name_is_still_theirs(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety"), body


@pytest.mark.parametrize(("who", "condition"), NAMED_AFTER_THEIR_KIN_WORD)
def test_rest_pins_the_condition_of_kin_named_after_their_kin_word(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)
    assert (body["action"], body["entry"]["pinned"], body["entry"]["category"]) == ("added", True, "safety")


def test_mem0_and_a_batch_read_kin_named_after_their_kin_word(key_client):
    (who, condition), (who2, condition2) = NAMED_AFTER_THEIR_KIN_WORD[1], NAMED_AFTER_THEIR_KIN_WORD[3]
    _mem0_add(key_client, who)
    _mem0_add(key_client, condition)
    assert _entry(condition).pinned
    body = key_client.post(
        "/api/v1/memories/",
        {"user_id": "u2", "memories": [{"content": who2}, {"content": condition2}]},
        format="json",
    ).json()
    assert body["results"][1]["entry"]["pinned"] is True, body


@pytest.mark.parametrize(("who", "condition"), THEIR_CHILD)
def test_rest_pins_a_named_childs_condition(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert body["action"] == "added"
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")
    assert not body["entry"]["key"].startswith("health.")  # the child's, not the user's own slot


@pytest.mark.parametrize(("who", "condition"), THEIR_CHILD[:1] + THEIR_CHILD[3:4])
def test_the_same_words_from_another_user_who_named_no_child_are_not_pinned(key_client, who, condition):
    _rest_add(key_client, who, user="parent")
    body = _rest_add(key_client, condition, user="stranger")

    assert body["entry"]["pinned"] is False


@pytest.mark.parametrize(("who", "condition"), SOMEONE_ELSES)
def test_rest_does_not_pin_a_named_colleagues_or_friends_condition(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert body["action"] == "added"
    entry = _entry(condition)
    assert not _always_recalled(entry)
    assert not entry.key.startswith("health.")  # not the user's own health slot


def test_a_name_that_owns_another_person_is_not_who_the_condition_is_of(key_client):
    _rest_add(key_client, "My daughter is called Ella.")
    _rest_add(key_client, "Ella's swimming teacher has epilepsy, so lessons pause if she feels unwell.")
    body = _rest_add(key_client, "Ella's teacher has epilepsy.")

    assert body["entry"]["pinned"] is False


def test_the_users_own_condition_told_beside_a_colleagues_name_stays_pinned(key_client):
    _rest_add(key_client, "My colleague Maya sits next to me.")
    body = _rest_add(key_client, "I'm diabetic, Maya knows where my glucose tablets are.")

    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")


def test_a_batch_reads_the_people_named_earlier(key_client):
    _rest_add(key_client, "My son is called Teo.")
    _rest_add(key_client, "My colleague Ines sits by the window.")
    memories = [
        {"content": "Teo is allergic to wasp stings."},
        {"content": "Ines is allergic to wasp stings."},
    ]
    response = key_client.post("/api/v1/memories/", {"user_id": "u1", "memories": memories}, format="json")

    assert response.status_code in (200, 201), response.content
    teo, ines = response.json()["results"]
    assert (teo["action"], teo["entry"]["pinned"]) == ("added", True)
    assert (ines["action"], ines["entry"]["pinned"]) == ("added", False)


def test_mem0_pins_the_childs_and_not_the_friends(key_client):
    _mem0_add(key_client, "My daughter is called Zoe and my best friend is called Lena.")
    _mem0_add(key_client, "Zoe is allergic to sesame.")
    _mem0_add(key_client, "Lena is allergic to sesame.")

    assert _entry("Zoe is allergic to sesame.").pinned
    assert not _always_recalled(_entry("Lena is allergic to sesame."))


@pytest.mark.django_db(transaction=True)
def test_mcp_pins_a_named_childs_condition_and_not_a_colleagues(owner, mcp_url):
    token = user_token_issue(user=owner).key
    bodies = m.adds(
        mcp_url,
        token,
        ["我女儿叫朵朵。", "我同事叫阿伟。", "朵朵有癫痫，在吃丙戊酸钠。", "阿伟有癫痫，在吃丙戊酸钠。"],  # noqa: RUF001
    )
    child, colleague = bodies[2], bodies[3]
    assert (child["action"], child["entry"]["pinned"]) == ("added", True)
    assert colleague["entry"]["pinned"] is False


def test_the_chat_pins_a_named_childs_condition_said_in_passing(owner, django_capture_on_commit_callbacks):
    client = client_for(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": "Remember that my son is called Arlo."})
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": "Remember that Arlo has coeliac disease."})

    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE, content__contains="coeliac")
    assert kept.pinned and kept.category == "safety"


def test_a_rule_around_a_named_childs_condition_keeps_the_condition_pinned(key_client):
    _rest_add(key_client, "My daughter is called Isla.")
    body = _rest_add(
        key_client, "Isla has epilepsy, so from now on she never takes a bath without an adult in the room."
    )

    assert body["action"] == "pending_review"
    [kept] = body["also"]
    assert kept["entry"]["content"].startswith("Isla has epilepsy") and kept["entry"]["pinned"] is True


def test_a_rule_around_a_named_colleagues_condition_waits_whole_and_keeps_no_fact(key_client):
    _rest_add(key_client, "My colleague Marek sits by the window.")
    body = _rest_add(
        key_client, "Marek has epilepsy, so from now on our team never uses strobe lights at parties."
    )

    assert body["action"] == "pending_review"
    assert body["also"] == []
    assert not MemoryEntry.objects.filter(pinned=True).exists()


@pytest.mark.parametrize(
    ("who", "said"),
    [
        (
            "My colleague Tom sits by the door.",
            "Tom is covering for me while Mum's in hospital with heart failure.",
        ),
        ("My daughter is called Ella.", "Ella's teacher has epilepsy."),
        ("我同事叫阿伟。", "阿伟帮我照顾一下，我妈妈心脏病住院了。"),  # noqa: RUF001
        # A condition said to be over: whether there is one is the model's to say, not the graph's.
        ("My daughter is called Ella.", "Ella's asthma is gone since she turned ten."),
        ("My son is called Rory.", "Rory grew out of his egg allergy last year."),
        ("我女儿叫小晴。", "小晴的湿疹已经好了，不用再擦药。"),  # noqa: RUF001
    ],
)
def test_a_statement_that_speaks_of_someone_by_a_kin_word_is_read_as_without_the_graph(key_client, who, said):
    _rest_add(key_client, who, user="named")
    named = _rest_add(key_client, said, user="named")
    unnamed = _rest_add(key_client, said, user="never-named")

    assert named["entry"]["pinned"] == unnamed["entry"]["pinned"]


def test_an_import_reads_the_people_named_before_it(key_client):
    _rest_add(key_client, "My daughter is called Ella.")
    _rest_add(key_client, "My colleague Maya sits next to me.")
    body = {"format": "text", "data": "Ella has epilepsy.\nMaya can't have dairy.\n", "user_id": "u1"}
    response = key_client.post("/api/v1/imports/", body, format="json")

    assert response.status_code in (200, 201, 202), response.content
    assert _entry("Ella has epilepsy.").pinned
    assert not _always_recalled(_entry("Maya can't have dairy."))


# A condition said of a person the user named, which the model reads only once that person is said
# by a pronoun ("Desmond has kidney disease": 0.21 someone's; "he has kidney disease": above 0.3).
BY_PRONOUN = [
    ("I look after my dad, Desmond, since his fall.", "Desmond has kidney disease."),
    # Not pinned by the models retrained with batches 49 and 50 (read by its pronoun, 0.17 the
    # user's or a dependant's; docs/trust.md, batch 51); pinned again since the self-description
    # contrast set; not by those retrained with batch 60, which read it by the name 0.047 anyone's,
    # under the floor at which the graph is read at all (0.05); pinned again by those retrained
    # with batch 61.
    ("我跟奶奶住，她叫桂兰，今年九十岁，平时我照顾她。", "桂兰最近走路老是摔，医生说要用助行器。"),  # noqa: RUF001
    # The same by the name 0.09 anyone's, by its pronoun 0.53.
    ("我跟奶奶住，她叫桂兰，今年九十岁，平时我照顾她。", "桂兰晚上总是睡不好，医生开了安眠药。"),  # noqa: RUF001
]


@pytest.mark.parametrize(("who", "condition"), BY_PRONOUN)
def test_a_named_dependants_condition_the_model_reads_by_a_pronoun_is_pinned(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")


def test_news_of_a_named_child_that_tells_no_condition_is_not_pinned(key_client):
    _rest_add(key_client, "My daughter is called Ella.")
    for said in (
        "Ella is off school today with a tummy bug.",
        "Ella has a school trip on Friday and needs a packed lunch.",
        "Ella's swimming lesson moved to Tuesdays.",
    ):
        assert _rest_add(key_client, said)["entry"]["pinned"] is False, said


@pytest.mark.parametrize(
    ("said", "moved"),
    [
        (
            "My mum has dementia and lives with us now, I look after her.",
            "My mum moved to a care home in Leeds.",
        ),
        ("我爸去年中风了，现在一直住我这儿，我照顾他。", "我爸搬去养老院了。"),  # noqa: RUF001
    ],
)
def test_a_dependants_condition_said_with_where_they_live_is_pinned_and_outlives_a_move(
    key_client, said, moved
):
    body = _rest_add(key_client, said)
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")

    _rest_add(key_client, moved)
    entry = _entry(said)
    assert entry.pinned


# The user introducing one of their kin by name, with no condition in it: no safety fact (the model
# alone pinned these: what is said of "my daughter" it learned to read as her condition).
INTRODUCTIONS = [
    "My daughter Nia is 8 weeks old.",
    "My little girl Maisie started nursery today.",
    "我女儿糖糖下个月上幼儿园了。",
    "我個女阿澄今年四歲，啱啱返學。",  # noqa: RUF001
    "我個仔阿朗今年讀小二。",
]
INTRODUCTIONS_WITH_A_CONDITION = [
    "My son Arlo has a cow's milk protein allergy.",
    "我儿子豆豆有哮喘，晚上常咳。",  # noqa: RUF001
    "my son Reuben (5) has autism and starts a new school next week",
    "我女兒小芸今年15歲，是唐氏症寶寶。",  # noqa: RUF001
]


@pytest.mark.parametrize("said", INTRODUCTIONS)
def test_an_introduction_of_the_users_kin_is_not_pinned(key_client, said):
    assert _rest_add(key_client, said)["entry"]["pinned"] is False
    _mem0_add(key_client, said, user="u2")
    stored = MemoryEntry.objects.filter(content=said)
    assert stored.count() == 2 and not stored.filter(pinned=True).exists()


@pytest.mark.parametrize("said", INTRODUCTIONS_WITH_A_CONDITION)
def test_an_introduction_with_a_condition_in_it_is_pinned(key_client, said):
    body = _rest_add(key_client, said)
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")


def test_a_child_also_named_in_a_team_sheet_stays_the_users_child(key_client):
    _rest_add(key_client, "My son is called Jayden.")
    _rest_add(key_client, "One of the players, Jayden, got subbed off at half time.")
    _rest_add(key_client, "Jayden, one of my players, scored twice today!")

    body = _rest_add(key_client, "Jayden has a peanut allergy.")

    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")


# The same promises through the other ways in: a cared-for father's condition the model reads only by
# a pronoun is pinned, a pupil's is not, an introduction is not.
_THROUGH_EVERY_WAY_IN = [
    "I look after my dad, Desmond, since his fall.",
    "Desmond has kidney disease.",
    "One of my pupils, Ayaan, is in Year 5.",
    "Ayaan has type 1 diabetes.",
    "My daughter Nia is 8 weeks old.",
]
_PINNED = {"Desmond has kidney disease.": True, "Ayaan has type 1 diabetes.": False}


def _as_stored() -> dict[str, bool]:
    wanted = [*_PINNED, "My daughter Nia is 8 weeks old."]
    return {
        e.content: e.pinned
        for e in MemoryEntry.objects.filter(content__in=wanted, status=MemoryStatus.ACTIVE)
    }


def test_mem0_reads_a_pronoun_a_pupil_and_an_introduction_as_rest_does(key_client):
    for said in _THROUGH_EVERY_WAY_IN:
        _mem0_add(key_client, said)

    assert _as_stored() == {**_PINNED, "My daughter Nia is 8 weeks old.": False}


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_a_pronoun_a_pupil_and_an_introduction_as_rest_does(owner, mcp_url):
    token = user_token_issue(user=owner).key
    bodies = m.adds(mcp_url, token, _THROUGH_EVERY_WAY_IN)

    assert [b["entry"]["pinned"] for b in bodies[1::2]] == [True, False]
    assert bodies[4]["entry"]["pinned"] is False


def test_the_chat_reads_a_pronoun_a_pupil_and_an_introduction_as_rest_does(
    owner, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    for said in _THROUGH_EVERY_WAY_IN:
        # "Remember that my daughter…", "Remember that Desmond…": a name keeps its capital
        opening = said if said.split()[0] in ("Desmond", "Ayaan", "I") else said[0].lower() + said[1:]
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("chat:new"), {"content": f"Remember that {opening}"})

    kept = {e.content: e.pinned for e in MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)}
    assert any(pinned for content, pinned in kept.items() if "kidney" in content)
    assert not any(pinned for content, pinned in kept.items() if "diabetes" in content)
    assert not any(pinned for content, pinned in kept.items() if "8 weeks" in content)


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_kin_named_after_their_kin_word(owner, mcp_url):
    (grandad, his), (baby, hers) = NAMED_AFTER_THEIR_KIN_WORD[5], NAMED_AFTER_THEIR_KIN_WORD[8]
    bodies = m.adds(mcp_url, user_token_issue(user=owner).key, [grandad, baby, his, hers])
    assert [(b["action"], b["entry"]["pinned"]) for b in bodies[2:]] == [("added", True)] * 2, bodies
