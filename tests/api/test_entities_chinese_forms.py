# ruff: noqa: RUF001 - Chinese punctuation is what these tests type
"""Chinese as people write it: traditional characters and Cantonese words ("我同陳志偉結婚",
"志偉個妹", "老細係…"), a date between who and what they did ("我2012年嫁给了…", "…2019年又结婚了,
娶的是…"), a full name right after the kin word ("我哥哥梁文博2015年娶了…") and a boss said at a
clause's start ("当时的主管是…"): each read into the graph, so the kin question finds the answer.
Through REST and recall."""

from __future__ import annotations

import pytest

from tests.api.entities_helpers import add, contents, namespace_of, recall, relations

pytestmark = pytest.mark.django_db

_FILLERS = ("我最近在学游泳。", "我的电脑该换了。", "周末我去了海边。")


def test_traditional_and_cantonese_statements_build_the_graph(key_client):
    first = add(key_client, "我2014年同陳志偉結婚。", user="hk", valid_from="2014-05-01T00:00:00Z")
    add(key_client, "志偉個妹陳曉晴喺銀行做嘢。", user="hk")
    add(key_client, "曉晴2021年嫁咗畀黃啟明。", user="hk", valid_from="2021-02-01T00:00:00Z")
    add(key_client, "黃啟明係開巴士嘅。", user="hk")
    add(key_client, "我契媽叫羅美華。", user="hk")
    add(key_client, "美華喺元朗開咗間茶餐廳。", user="hk")
    for filler in ("我鍾意飲奶茶。", "我部電話好舊。", "我每日搭地鐵返工。"):
        add(key_client, filler, user="hk")
    namespace = namespace_of(first)
    spouses = {r.object.name for r in relations(namespace, predicate="spouse", subject__is_self=True)}
    assert spouses == {"陳志偉"}  # the name as written, not as simplified
    # Asked in simplified or in traditional alike.
    assert "黃啟明係開巴士嘅。" in contents(recall(key_client, "我小姑子的老公做什么的？", user="hk"))[:3]
    assert "美華喺元朗開咗間茶餐廳。" in contents(recall(key_client, "我契媽做緊咩生意？", user="hk"))[:3]


def test_a_date_between_who_and_the_wedding_and_a_name_after_the_kin_word(key_client):
    first = add(key_client, "我2012年嫁给了范志远。", valid_from="2012-03-01T00:00:00Z", user="zh")
    add(key_client, "我和范志远2017年离婚了。", valid_from="2017-06-01T00:00:00Z", user="zh")
    add(key_client, "范志远2019年又结婚了，娶的是袁丽娜。", valid_from="2019-09-01T00:00:00Z", user="zh")
    add(key_client, "袁丽娜在一家健身房当教练。", user="zh")
    add(key_client, "我哥哥梁文博2015年娶了一个叫秦雪的人。", valid_from="2015-10-01T00:00:00Z", user="zh")
    add(key_client, "秦雪在电视台做主持人。", user="zh")
    for filler in _FILLERS:
        add(key_client, filler, user="zh")
    namespace = namespace_of(first)
    mine = {r.object.name: r.status for r in relations(namespace, predicate="spouse", subject__is_self=True)}
    assert mine == {"范志远": "superseded"}
    assert (
        "袁丽娜在一家健身房当教练。"
        in contents(recall(key_client, "我前夫现在的老婆是做什么的？", user="zh"))[:3]
    )
    assert "秦雪在电视台做主持人。" in contents(recall(key_client, "我嫂子是做什么工作的？", user="zh"))[:3]


def test_a_boss_said_at_a_clauses_start_is_the_users_then(key_client):
    first = add(
        key_client, "2013年我进了华远物流，当时的主管是孔德明。", valid_from="2013-02-01T00:00:00Z", user="zb"
    )
    add(key_client, "2018年我调到了采购部，部长是葛春燕。", valid_from="2018-04-01T00:00:00Z", user="zb")
    add(key_client, "孔德明后来开了一家面馆。", user="zb")
    add(key_client, "葛春燕每天早上练太极。", user="zb")
    for filler in _FILLERS:
        add(key_client, filler, user="zb")
    namespace = namespace_of(first)
    bosses = {r.object.name for r in relations(namespace, predicate="manager", subject__is_self=True)}
    assert bosses == {"孔德明", "葛春燕"}
    items = recall(key_client, "2015年我的顶头上司是谁？", user="zb", at="2015-06-01T00:00:00Z")
    assert contents(items)[0] == "2013年我进了华远物流，当时的主管是孔德明。"


@pytest.mark.parametrize(
    ("said", "name", "label"),
    [
        ("我儿子豆豆今年上三年级。", "豆豆", "son"),  # a pet name right after the kin word
        ("我女兒阿敏最近迷上畫畫。", "阿敏", "daughter"),
        ("我个女叫晴晴，今年五岁。", "晴晴", "daughter"),  # Cantonese 個女: my daughter
        ("我個仔阿朗今日去咗露營。", "阿朗", "son"),
        ("我的孩子Jun Hao今年七岁。", "Jun Hao", "child"),  # a Latin name in a Chinese sentence
        ("这是我继子，叫嘉嘉，下个月搬来。", "嘉嘉", "stepson"),  # named after a comma; "这" is no name
    ],
)
def test_a_child_named_as_parents_say_it_is_the_users_child(key_client, said, name, label):
    namespace = namespace_of(add(key_client, said, user="zk"))

    [relation] = relations(namespace, subject__is_self=True)
    assert (relation.object.name, relation.label) == (name, label)


def test_a_doubled_adverb_before_a_verb_is_still_no_name(key_client):
    namespace = namespace_of(add(key_client, "我儿子明明知道不能吃糖。", user="zk7"))

    assert [r.object.name for r in relations(namespace, subject__is_self=True)] != ["明明"]


def test_a_doubled_adverb_after_the_kin_word_is_no_name(key_client):
    namespace = namespace_of(add(key_client, "我儿子天天吵着要养狗。", user="zk2"))

    assert [r.object.name for r in relations(namespace, subject__is_self=True)] != ["天天"]


@pytest.mark.parametrize(
    ("said", "name", "label"),
    [
        ("我们家老大叫果果，今年上二年级。", "果果", "child"),  # birth order after 家
        ("咱家老二叫乐乐。", "乐乐", "child"),
        ("我家小儿子叫豆豆。", "豆豆", "son"),
        ("我大女兒叫小雨。", "小雨", "daughter"),
        ("我有个女儿，叫朵朵。", "朵朵", "daughter"),  # said with 有 … 叫
        ("去年多了个继子，叫浩浩。", "浩浩", "stepson"),
        ("我屋企個仔叫阿樂。", "阿樂", "son"),  # Cantonese: the son of my home
        ("我有兩個仔，大仔叫樂樂。", "樂樂", "son"),  # Cantonese 大仔: the elder son
        ("阿公的名字叫林金水，醫院都要寫全名。", "林金水", "grandfather"),  # her/his name is
        ("嫲嫲個名叫何桂英。", "何桂英", "grandmother"),
        ("我爸姓周，小区里都叫他老周。", "老周", "father"),  # what everyone calls him
        ("我個仔叫 Marcus，今年六歲。", "Marcus", "son"),  # a Latin name after a space
        ("我儿子明明今年三十了。", "明明", "son"),  # a doubled word before an age: a name
        ("我女儿甜甜五岁。", "甜甜", "daughter"),
        ("我爸老陈去年搬来跟我住。", "老陈", "father"),  # 老 and a surname
        ("我的 boy Ethan 今年 P3 了。", "Ethan", "son"),  # code-switched
        ("my daughter 欣怡 SPM 快到了。", "欣怡", "daughter"),
        ("我妈搬来跟我住了，大家都叫她 Ah Bee。", "Ah Bee", "mother"),
        ("我個仔俊熙今年讀P3。", "俊熙", "son"),  # a given name before a school year
        ("我女儿朵朵下个月上幼儿园了。", "朵朵", "daughter"),
        ("我家小宝贝叫糖糖，刚满八个月。", "糖糖", "child"),  # 小宝贝: the little one
        # a given name before living with the user
        ("阿嬤秀英跟我住。", "秀英", "grandmother"),
        ("我妈淑芬搬来跟我住了。", "淑芬", "mother"),
        ("外婆桂芳下个月要搬过来跟我们一起住。", "桂芳", "grandmother"),
        ("我阿爺志強同我哋住。", "志強", "grandfather"),
    ],
)
def test_a_child_said_by_the_order_of_birth_or_with_you_is_the_users(key_client, said, name, label):
    namespace = namespace_of(add(key_client, said, user="zk3"))

    # Kin said to live with the user are in their care too ("cares for", tests/api/test_people_at_home.py).
    [relation] = [r for r in relations(namespace, subject__is_self=True) if r.label != "cares for"]
    assert (relation.object.name, relation.label) == (name, label)


def test_the_children_after_the_first_said_by_order_are_the_same_homes(key_client):
    namespace = namespace_of(add(key_client, "我们家老大叫果果，老二叫米米。", user="zk5"))

    children = relations(namespace, subject__is_self=True, predicate="child")
    assert {r.object.name for r in children} == {"果果", "米米"}
    # Without 家 the order words are the ranks at work: no child.
    namespace = namespace_of(add(key_client, "我们老大叫王强，老二叫李明。", user="zk6"))
    assert not relations(namespace, subject__is_self=True, predicate="child")


@pytest.mark.parametrize(
    ("said", "children"),
    [
        # after the user's children said as a group, a sibling's word names one of them
        ("我家雙胞胎，哥哥叫宥宥、妹妹叫恩恩，今年三歲。", {("宥宥", "son"), ("恩恩", "daughter")}),
        ("我有两个孩子，姐姐叫朵朵，弟弟叫乐乐。", {("朵朵", "daughter"), ("乐乐", "son")}),
        ("我哋屋企兩個仔，哥哥叫阿朗，弟弟叫阿希。", {("阿朗", "son"), ("阿希", "son")}),
        ("我有一儿一女，哥哥是小宇，妹妹是小雨。", {("小宇", "son"), ("小雨", "daughter")}),
    ],
)
def test_siblings_named_after_the_users_children_as_a_group_are_the_users_children(
    key_client, said, children
):
    namespace = namespace_of(add(key_client, said, user="zk8"))

    found = {(r.object.name, r.label) for r in relations(namespace, subject__is_self=True)}
    assert found == children
    # The user's own brother, said without children before: still a brother.
    namespace = namespace_of(add(key_client, "我哥哥叫建国，在深圳工作。", user="zk9"))
    assert {(r.object.name, r.label) for r in relations(namespace, subject__is_self=True)} == {
        ("建国", "brother")
    }


@pytest.mark.parametrize(
    "said",
    ["我们老大叫王强，脾气很急。", "小王有个儿子叫乐乐。", "我家附近有个公园叫东湖。"],
)
def test_a_boss_another_persons_child_or_a_place_is_not_the_users_child(key_client, said):
    namespace = namespace_of(add(key_client, said, user="zk4"))

    assert not relations(namespace, subject__is_self=True, predicate="child")


@pytest.mark.parametrize(
    "said",
    [
        "my son 现在很好，谢谢关心。",  # not a name after the kin word
        "my dad 喜欢钓鱼。",
        "我爸生病了，医生叫他多休息。",  # 叫他: told him to
        "我老公今天加班，他叫外卖。",  # 他叫: he ordered
        "我女儿天天8点睡觉。",  # a doubled adverb before a time
        "我妈偶尔跟我住。",  # how often, before living with the user
        "我爸暫時住我家。",
        "我奶奶自己跟我住，不肯请保姆。",
    ],
)
def test_words_after_a_kin_word_or_a_pronoun_that_are_no_name(key_client, said):
    namespace = namespace_of(add(key_client, said, user="zk8"))

    assert [r.object.name for r in relations(namespace, subject__is_self=True) if r.object.named] == []
