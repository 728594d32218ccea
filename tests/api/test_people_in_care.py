"""Whose condition, for the people the user says they look after: a grandparent, a parent, a niece
or a sibling is someone else's by their kin word alone, and a dependant's once the user says they
care for them ("My gran, Edith, lives with us now and I look after her", "平时都是我照顾她", "I'm
the main carer for my mum"). Through REST, mem0 and MCP, English and Chinese; what was said of
them before is read again. Care said of a name alone (a carer's client at work) and a relative
the user does not look after are left as before."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.entities.models import Relation
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.test_people_known_safety import _entry, _mem0_add, _rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (who they are and that the user looks after them, later: a condition of theirs by name alone)
IN_CARE = [
    (
        "My gran, Edith, lives with us now and I look after her full time.",
        "Edith has had a pacemaker since March.",
    ),
    ("I'm the main carer for my dad, Frank.", "Frank is on warfarin and bruises easily."),
    (
        "My niece Isla is staying with me this term while my sister works abroad, so I'm looking after her.",
        "Isla has a severe sesame allergy.",
    ),
    ("I look after my brother Sam, he moved in after his accident.", "Sam has epilepsy."),
    ("我妈叫桂芳，现在跟我住，平时都是我照顾她。", "桂芳有心衰，要限盐。"),  # noqa: RUF001
    ("我外婆叫秀英，我一直在照顧外婆。", "秀英有糖尿病。"),  # noqa: RUF001
    (
        "My little brother Sam lives with me, I've been his legal guardian since our parents died.",
        "Sam has Tourette's and epilepsy.",
    ),
    ("I got special guardianship of my niece Tilly last year.", "Tilly has juvenile arthritis."),
    ("我阿哥阿強有智力障礙，爸媽走咗之後我就係佢嘅監護人。", "阿強有癲癇。"),  # noqa: RUF001
    ("我爸叫張國雄，住在我家，我是主要照顧者。", "張國雄最近手抖得更厲害，醫生加了藥量。"),  # noqa: RUF001
    ("我阿嬤叫金枝，現在跟我住，晚上都是我在顧她。", "金枝有高血壓，每天吃藥。"),  # noqa: RUF001
    ("法律上我是弟弟的監護人，他叫阿翔，跟我住。", "阿翔有第一型糖尿病。"),  # noqa: RUF001
    ("我媽咪同我住，我日日照顧佢，朋友都叫佢蓮姐。", "蓮姐有糖尿病。"),  # noqa: RUF001
    (
        "Mum's moved into the granny annexe so I can look after her properly. Her name's Pat btw.",
        "Pat has Parkinson's.",
    ),
    ("My mother-in-law Sheila is moving in with us so I can take care of her.", "Sheila has COPD."),
    ("我姐姐出国工作了，外甥小宇现在由我监护。", "小宇有先天性心脏病。"),  # noqa: RUF001
    # The name in brackets after the kin, a guardian "of" or "for", custody and a name with an age:
    ("Grandpa (Walter) lives with us now and I'm his carer.", "Walter has heart failure."),
    ("I'm the legal guardian of my sister Jess since Mum died.", "Jess is allergic to latex."),
    ("I got custody of my grandson two years ago. He's Kieran, he's 8.", "Kieran has type 1 diabetes."),
    ("My ammi lives with me and I take care of her. Her name's Farzana.", "Farzana has kidney disease."),
    ("我跟外婆一起住，她叫秀兰，今年八十了，平时我一个人照顾她。", "秀兰有糖尿病。"),  # noqa: RUF001
    ("我现在是我侄女小雨的监护人，她跟我住。", "小雨对青霉素过敏。"),  # noqa: RUF001
    ("阿爺叫土生，我搬返嚟就係為咗照顧佢。", "土生要洗腎，一個禮拜三次。"),  # noqa: RUF001
    # Care said with a hedge, as "her carer" become, or as the care the user does; a name others use
    (
        "Mum moved in after a couple of falls and I've basically become her full-time carer. Her name's Val.",
        "Val has vascular dementia and forgets her meals.",
    ),
    (
        "Nan (Dot to everyone else) is 94 and I'm pretty much her carer these days.",
        "Dot is registered blind.",
    ),
    ("My dad moved in with us and I do most of his personal care. His name's Walter.", "Walter has COPD."),
    # What the user changed in their life to look after them, and "the one who does" the care
    ("I gave up my job last spring to look after my dad, Ray.", "Ray is on oxygen at night for his COPD."),
    (
        "My nan Edie lives with us and I'm the one who does most of her looking after.",
        "Edie has macular degeneration and can't see the hob.",
    ),
    # The full name told after what the statement said of the kin; a name others call them by, after
    # an English kin word; a one-character given name said with a word of respect ("黃娣" -> "娣婆")
    ("我爷爷八十多了，平时都是我照顾，大名叫李国华。", "李国华有帕金森，手抖得厉害。"),  # noqa: RUF001
    (
        "My grandpa 跟我们住，我 full-time 照顾他，大家都叫他 Ah Hock。",  # noqa: RUF001
        "Ah Hock 有 diabetes，每天要打 insulin。",  # noqa: RUF001
    ),
    ("我同嫲嫲住，佢叫黃娣，我日日照顧佢。", "娣婆最近腳腫，醫生話係心衰。"),  # noqa: RUF001
    # A Latin name of three words after 叫, then said without its surname; care typed without
    # capitals or an apostrophe
    ("我妈叫 Tan Ah Lian，跟我住，I take care of her。", "Ah Lian 有 Parkinson's，每天要吃五种药。"),  # noqa: RUF001
    ("My dad Ron lives with me now and im his full time carer", "Ron has COPD and uses oxygen at night."),
    # A child the user is raising, guardianship said without whose, a kinship carer
    (
        "I've been raising my grandson Theo since he was two.",
        "Theo has cerebral palsy and uses a walking frame.",
    ),
    ("My niece Ava lives with me. She's 9 and I have legal guardianship now.", "Ava has type 1 diabetes."),
    ("my nephew Kofi moved in when he was six, I'm his kinship carer", "Kofi has sickle cell disease."),
    # a name said to be the kin after a word that opens the sentence ("对了", "其实"): no part of it
    ("对了建华是我爸中风以后都是我在照顾", "建华的导尿管今天好像堵了，怎么处理？"),  # noqa: RUF001
    # named by "X's my …", and care shared with a partner or a sibling ("我同老公輪流照顧佢")
    (
        "Walt's my grandad, he moved in after his stroke and I do most of his care.",
        "Walt has vascular dementia.",
    ),
    ("我婆婆叫金好，今年搬嚟同我哋住，我同家姐輪流照顧佢。", "金好有柏金遜，手震得好犀利。"),  # noqa: RUF001
    ("我爸叫国栋，我和我老婆一起照顾他。", "国栋有慢阻肺，晚上要吸氧。"),  # noqa: RUF001
    # named by what everyone calls them, after the care is said (and in quotes, past a plural kin)
    (
        "Mum moved in with us last spring and I'm her full-time carer now, everyone calls her Bea.",
        "Bea has Parkinson's and is on co-careldopa.",
    ),
    ("我外婆跟我们住，爸妈都在外地，平时都是我照顾她，大家都叫她“老太后”。", "老太后有心衰，要限水。"),  # noqa: RUF001
]
# The kin in the user's care said by their kin word alone: the model takes a grandmother's or a
# mother's condition for someone else's; the graph knows the user looks after them. (The user's
# care said first; then what is said of them; whether it is pinned.)
BY_KIN_WORD = [
    ("我奶奶今年88了，去年开始一直是我在照顾她。", "奶奶叫王秀兰，有高血压和糖尿病。", True),  # noqa: RUF001
    ("阿公跟我們住，平常都是我在顧他。", "阿公有帕金森氏症，走路會抖。", True),  # noqa: RUF001
    ("I look after my mum full time now.", "Mum has COPD and needs oxygen at night.", True),
    ("I've been my grandad's carer since spring.", "Grandad is on warfarin and bruises easily.", True),
    # No condition in it, someone else's kin, and a mother the user does not look after
    ("我奶奶今年88了，去年开始一直是我在照顾她。", "奶奶最近心情不错。", False),  # noqa: RUF001
    ("I look after my mum full time now.", "Mum loved the garden centre today.", False),
    ("I look after my mum full time now.", "My friend's mum has COPD too.", False),
    # Pinned by the models retrained after batch 48 (a strict xfail then), not by those retrained
    # with batches 49 and 50 (the regression read it someone else's, 0.74), pinned again by those
    # retrained with batch 51: the graph does not unpin a parent it knows is not in the user's care.
    pytest.param(
        "My mum lives in Spain with her husband.",
        "Mum has COPD and needs oxygen at night.",
        False,
        marks=pytest.mark.xfail(
            strict=True,
            reason="pinned by the models retrained with batch 51: the regression gives someone else's "
            "0.71, its average with the safety encoder 0.63 to the user or a dependant (over 0.586); "
            "docs/trust.md, batch 52",
        ),
    ),
]
# What says the user looks after someone, and no condition of theirs, is no safety fact; said with
# one, it is.
CARE_SAID = [
    ("i look after my mum she lives with me since dad passed", False),
    ("我奶奶今年88了，去年开始一直是我在照顾她", False),  # noqa: RUF001
    ("My brother Sam lives with us and I'm his legal guardian. He has Down syndrome.", True),
    ("I look after my mum, who has Alzheimer's.", True),
    # Held for review as a rule by the models retrained with batches 49 and 50 (its clause
    # 他中风以后右边身体不能动, "cannot move", read as a prohibition); stored and pinned again by those
    # retrained with batches 52 and 53.
    ("我一直在照顾我爸，他中风以后右边身体不能动。", True),  # noqa: RUF001
]
NOT_IN_CARE = [
    ("My sister Rosa lives in Leeds with her husband.", "Rosa has a severe sesame allergy."),
    ("I care for Mrs Okafor three mornings a week.", "Mrs Okafor has type 2 diabetes."),  # a client
    ("我哥叫建国，在深圳工作。", "建国有高血压。"),  # noqa: RUF001
    # her children in the user's care, not her
    ("My sister Jo lives round the corner and I look after her kids on Fridays.", "Jo has lupus."),
    # someone else changed their life to look after a parent; the user went to look after a friend's
    ("My brother Tom moved back home to look after our dad.", "Tom has asthma."),
    ("I went round to look after my friend Amy's kids.", "Amy has lupus."),
    # the one named is the kin's teacher, not the kin ("Tom is my son's teacher")
    ("Mr Hale is my son's teacher.", "Mr Hale has a pacemaker."),
]


def _cared_for(content: str) -> list[str]:
    entry = MemoryEntry.objects.get(content=content)
    return sorted(
        r.object.name
        for r in Relation.objects.filter(
            namespace_id=entry.namespace_id, label="cares for", subject__is_self=True
        )
    )


@pytest.mark.parametrize(("who", "condition"), IN_CARE)
def test_rest_pins_the_condition_of_someone_the_user_looks_after(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert _cared_for(who) != []
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety")


@pytest.mark.parametrize(("who", "condition"), NOT_IN_CARE)
def test_a_relative_not_in_care_and_a_client_at_work_are_not_pinned(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)

    assert _cared_for(who) == []
    assert body["entry"]["pinned"] is False


def test_what_was_said_before_the_user_said_they_look_after_them_is_read_again(key_client):
    first = _rest_add(key_client, "Edith has had a pacemaker since March.")["entry"]
    _rest_add(key_client, "My gran, Edith, lives with us now and I look after her full time.")

    assert first["pinned"] is False
    assert _entry("Edith has had a pacemaker since March.").pinned


def test_care_said_after_the_person_was_named_reads_their_earlier_conditions_again(key_client):
    _rest_add(key_client, "My dad is called Frank.")
    first = _rest_add(key_client, "Frank is on warfarin and bruises easily.")["entry"]
    _rest_add(key_client, "Since his fall I'm my dad's full-time carer.")

    assert first["pinned"] is False
    assert _entry("Frank is on warfarin and bruises easily.").pinned


@pytest.mark.parametrize(
    ("care", "condition"),
    [
        (
            "I'm looking after my nan, Joan, since her hip operation.",
            "Joan has dementia and gets confused in the evenings.",
        ),
        # by the kin word alone
        ("I look after my nan every day since her fall.", "Nan has type 2 diabetes and takes metformin."),
    ],
)
def test_mem0(key_client, care, condition):
    _mem0_add(key_client, care)
    _mem0_add(key_client, condition)

    assert _entry(condition).pinned


@pytest.mark.django_db(transaction=True)
def test_mcp(owner, mcp_url):
    token = user_token_issue(user=owner).key
    bodies = m.adds(mcp_url, token, ["我外婆叫秀英，我一直在照顧外婆。", "秀英有糖尿病。"])  # noqa: RUF001

    assert bodies[1]["entry"]["pinned"] is True


@pytest.mark.parametrize(
    "said",
    [
        "I take care of my colleague's shifts on Fridays.",  # someone's things, not them
        "We take care of my manager Priya's plants in August.",
        "I really care for my friend Tom.",  # fondness
        "我负责照顾老板的行程。",  # work
        "我照顾我妈的猫。",
    ],
)
def test_care_of_someones_things_or_at_work_is_no_care_of_them(key_client, said):
    _rest_add(key_client, said)

    assert _cared_for(said) == []


def test_her_is_the_woman_said_before_not_the_man(key_client):
    said = "My brother Sam lives nearby, and my mum Joan has dementia, so I look after her."
    _rest_add(key_client, said)

    assert _cared_for(said) == ["Joan"]


@pytest.mark.parametrize(("who", "said", "pinned"), BY_KIN_WORD)
def test_rest_reads_the_kin_word_of_someone_in_care_as_theirs(key_client, who, said, pinned):
    _rest_add(key_client, who)
    body = _rest_add(key_client, said)

    assert body["entry"]["pinned"] is pinned


@pytest.mark.parametrize(("said", "pinned"), CARE_SAID)
def test_care_alone_is_no_safety_fact_and_care_with_a_condition_is(key_client, said, pinned):
    body = _rest_add(key_client, said)

    assert body["entry"]["pinned"] is pinned
    assert _cared_for(said) != []


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_a_kin_word_in_care_and_care_alone(owner, mcp_url):
    token = user_token_issue(user=owner).key
    care, condition = "我妈妈搬来跟我住了，现在都是我在照顾她。", "妈妈有心衰，每天要吃利尿剂。"  # noqa: RUF001
    bodies = m.adds(mcp_url, token, [care, condition])

    assert [body["entry"]["pinned"] for body in bodies] == [False, True]


def test_the_chat_reads_a_kin_word_in_care_and_a_name_given_next(owner, django_capture_on_commit_callbacks):
    client = client_for(owner)
    said = [
        "Remember that I look after my mum full time now.",
        "Remember that Mum has COPD and needs oxygen at night.",
        "Remember that my amma lives with us and I take care of her.",
        "Remember that her name is Lakshmi.",
        "Remember that Lakshmi has kidney disease.",
    ]
    for text in said:
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("chat:new"), {"content": text})

    kept = {e.content: e.pinned for e in MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)}
    assert any(pinned for content, pinned in kept.items() if "COPD" in content), kept
    assert any(pinned for content, pinned in kept.items() if "kidney" in content), kept
    assert not any(pinned for content, pinned in kept.items() if "full time" in content), kept


# A child placed with the user (in a statement that says it is fostering) or in their guardianship or
# custody: the user's child.
FOSTERED = [
    (
        "We're foster carers and since March we've had 10-year-old Kayden living with us.",
        "Kayden has ADHD and takes methylphenidate every morning.",
    ),
    (
        "Jonah was placed with us in the summer, our first foster placement.",
        "Jonah has a severe nut allergy.",
    ),
    # a child in the user's care by law, named
    (
        "Since the court gave me guardianship of Kai last year it's all on me.",
        "Kai's CGM keeps losing signal.",
    ),
    ("We've had custody of Rosie since 2022.", "Rosie has a severe egg allergy."),
]


@pytest.mark.parametrize(("who", "condition"), FOSTERED)
def test_a_child_placed_with_foster_carers_is_theirs(key_client, who, condition):
    _rest_add(key_client, who)
    body = _rest_add(key_client, condition)
    assert (body["entry"]["pinned"], body["entry"]["category"]) == (True, "safety"), body


@pytest.mark.parametrize(
    ("who", "condition"),
    [
        ("Since June we've had Tyler living with us while his dad works in Dubai.", "Tyler has eczema."),
        # a placement at work is no foster placement
        ("Our student nurse Tom was placed with us for his ward placement this term.", "Tom has asthma."),
        # someone else's custody
        ("My sister finally got custody of Mia last week.", "Mia has asthma."),
    ],
)
def test_a_child_living_with_us_is_no_foster_child_unless_fostering_is_said(key_client, who, condition):
    _rest_add(key_client, who)
    assert _rest_add(key_client, condition)["entry"]["pinned"] is False


def test_the_neighbours_who_name_the_one_in_care_are_not_in_care(key_client):
    who = "我阿嬤跟我們住，鄰居阿雪都叫她阿月姨，平常都是我在照顧她。"  # noqa: RUF001
    _rest_add(key_client, who)
    assert _rest_add(key_client, "阿月最近失智越來越明顯。")["entry"]["pinned"] is True
    assert _rest_add(key_client, "阿雪有高血壓。")["entry"]["pinned"] is False
    assert len(_cared_for(who)) == 1


def test_mem0_reads_care_as_a_change_of_life_and_a_foster_placement(key_client):
    for said in [
        "I packed in the office job to take care of my mum, Brenda.",
        "Brenda has Lewy body dementia.",
        "Fostering update: we've taken in little Maisie, she's 3.",
    ]:
        _mem0_add(key_client, said)
    _mem0_add(key_client, "Maisie has cystic fibrosis and does physio twice a day.")

    assert _entry("Brenda has Lewy body dementia.").pinned
    assert _entry("Maisie has cystic fibrosis and does physio twice a day.").pinned


@pytest.mark.django_db(transaction=True)
def test_mcp_reads_a_name_told_after_and_a_given_name_said_with_respect(owner, mcp_url):
    bodies = m.adds(
        mcp_url,
        user_token_issue(user=owner).key,
        ["我外公九十岁了，跟我住，我一直在照顾他，全名叫陈福。", "福伯今天又摔了一跤，骨质疏松很严重。"],  # noqa: RUF001
    )
    assert bodies[1]["entry"]["pinned"] is True, bodies
