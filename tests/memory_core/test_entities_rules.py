"""What the offline rules read into the graph from statements written through the pipeline:
other wordings, both languages, transcript turns."""

from __future__ import annotations

import pytest

from memory_core.entities.models import Relation
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db

CASES = [
    ("My sister is Ana.", {("the user", "sibling", "Ana")}),
    ("Ana is my sister.", {("the user", "sibling", "Ana")}),
    ("The user's sister's name is Ana.", {("the user", "sibling", "Ana")}),
    ("My sister's husband works at Airbus.", {
        ("the user", "sibling", "my sister"), ("my sister", "spouse", "my sister's husband"),
        ("my sister's husband", "works_at", "Airbus")}),
    ("I'm a software engineer.", {("the user", "role", "software engineer")}),
    ("The user works for Contoso.", {("the user", "works_at", "Contoso")}),
    ("My colleague Tom moved to Berlin.", {("the user", "colleague", "Tom"), ("Tom", "lives_in", "Berlin")}),
    ("Priya has a cat named Mochi.", {("Priya", "pet", "Mochi")}),
    ("My mum lives in Porto.", {("the user", "parent", "my mum"), ("my mum", "lives_in", "Porto")}),
    ("Melanie said, on 9 June 2023: my kids love the beach.", {("Melanie", "child", "Melanie's kids")}),
    ("我姐姐叫安娜。", {("the user", "sibling", "安娜")}),
    ("李雷是我的同事。", {("the user", "colleague", "李雷")}),
    ("我在腾讯工作。", {("the user", "works_at", "腾讯")}),
    ("我的猫叫咪咪。", {("the user", "pet", "咪咪")}),
    ("我妈妈住在成都。", {("the user", "parent", "我的妈妈"), ("我的妈妈", "lives_in", "成都")}),
    ("安娜的丈夫马克是飞行员。", {("安娜", "spouse", "马克"), ("马克", "role", "飞行员")}),
    # Issue 29: speakers' lines, the person spoken to, names as said, a job before a place.
    ("Gustavo: My aunt Rosa lives in Recife.", {
        ("Gustavo", "relative", "Rosa"), ("Rosa", "lives_in", "Recife")}),
    ("Owen: Thanks for asking about my kids, Priya!", {("Owen", "child", "Owen's kids")}),
    ("User: my cousin is Bea.", {("the user", "relative", "Bea")}),
    ("Assistant: My sister is Ana.", set()),
    ("Note: my brother is Leo.", {("the user", "sibling", "Leo")}),
    ("My niece's name is \u201cZoe\u201d.", {("the user", "relative", "Zoe")}),
    ("Ines is a dentist in Faro.", {("Ines", "role", "dentist")}),
    # Not relations: a nationality, a diet, a liking.
    ("My wife is Chinese.", {("the user", "spouse", "my wife")}),
    ("Ana is a vegetarian.", set()),
    ("I love jazz.", set()),
    # Said as people say them: children counted, then named as each other's brother and sister; the
    # kin before its name in brackets; a name with an age after "She's"; not a nationality so said.
    ("我有两个孩子，哥哥叫浩浩，妹妹叫米米。", {  # noqa: RUF001
        ("the user", "child", "浩浩"), ("the user", "child", "米米")}),
    ("我有两个孩子。我哥哥是医生。", {("the user", "sibling", "我的哥哥"), ("我的哥哥", "role", "医生")}),
    ("我女儿今年八岁。", {("the user", "child", "我的女儿")}),  # 今年 is no name
    ("我女儿是红绿色盲。", {("the user", "child", "我的女儿")}),  # a condition is no name
    ("我家老大是自閉症。", {("the user", "child", "我的孩子")}),
    ("Our kids are Oscar (9) and Nell (6).", {
        ("the user", "child", "Oscar"), ("the user", "child", "Nell"), ("the user", "child", "my kids")}),
    ("Her kids are Oscar and Nell.", set()),
    ("Grandpa (Walter) moved in.", {("the user", "relative", "Walter")}),
    ("My mum moved in. She's Irish, she's 80 now.", {("the user", "parent", "my mum")}),
    ("My mum moved in. She's Rosalind, she's 80 now.", {("the user", "parent", "Rosalind")}),
    # The people the user looks after at work or in a club (`entities.served`), not their kin:
    ("One of my players, Kofi, has asthma.", {("the user", "other", "Kofi")}),
    ("Mr Okafor, a patient of mine, is on warfarin.", {("the user", "other", "Mr Okafor")}),
    ("我的病人王伯今天出院了。", {("the user", "other", "王伯")}),
    ("My son Jayden is one of my players.", {("the user", "child", "Jayden")}),
    ("My students love the new timetable.", set()),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_statements_become_relations(owner, text, expected):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content=text)
    found = {
        (r.subject.name, r.predicate, r.object.name if r.object else r.value)
        for r in Relation.objects.filter(namespace=namespace).select_related("subject", "object")
    }
    assert found == expected


ENDINGS = [
    ("My husband is Marco.", "I divorced Marco.", "spouse"),
    ("I am married to Jonah.", "Jonah and I got divorced.", "spouse"),
    ("My girlfriend is Mei.", "We broke up.", "partner"),
    ("I work at Northwind.", "I left my job at Northwind.", "works_at"),
    ("I work at Northwind.", "I resigned.", "works_at"),
    ("I live in Leeds.", "I moved out of Leeds.", "lives_in"),
    ("我的老公叫大伟。", "我和大伟离婚了。", "spouse"),
    ("我在百度工作。", "我从百度离职了。", "works_at"),
    ("我在百度工作。", "我辞职了。", "works_at"),
    ("我住在杭州。", "我们从杭州搬走了。", "lives_in"),
    ("我住在杭州。", "我搬出了杭州。", "lives_in"),
]


@pytest.mark.parametrize(("began", "ended", "predicate"), ENDINGS)
def test_an_ended_relation_closes_its_window(owner, began, ended, predicate):
    from datetime import UTC, datetime

    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content=began, valid_from=datetime(2020, 1, 1, tzinfo=UTC))
    memory_add(namespace=namespace, content=ended, valid_from=datetime(2024, 3, 1, tzinfo=UTC))
    (relation,) = Relation.objects.filter(namespace=namespace, predicate=predicate)
    assert relation.valid_to == datetime(2024, 3, 1, tzinfo=UTC)


def test_an_end_names_only_its_own_relation(owner):
    from datetime import UTC, datetime

    namespace = namespace_for_user(user=owner)
    memory_add(
        namespace=namespace, content="I work at Northwind.", valid_from=datetime(2020, 1, 1, tzinfo=UTC)
    )
    memory_add(
        namespace=namespace, content="Ana works at Globex.", valid_from=datetime(2020, 1, 1, tzinfo=UTC)
    )
    memory_add(namespace=namespace, content="Ana quit Globex.", valid_from=datetime(2024, 3, 1, tzinfo=UTC))
    open_ones = Relation.objects.filter(namespace=namespace, valid_to__isnull=True).select_related("subject")
    assert {(r.subject.is_self, r.predicate) for r in open_ones} == {(True, "works_at")}


# Near misses of the forms above: someone else's child, a role said of no one of the user's, a
# carer who is someone else, siblings after the children were counted in another sentence.
NOT_THE_USERS = [
    "Her daughter (Mia) is in my class.",
    "My friend's son (Leo) is starting school.",
    "One of the players, Jayden, got subbed off.",
    "I'm a student, Mum says I should rest.",
    "My sister has twins. The twins are Ava and Leo.",
    "我的顾客都很好",
    "我的学生证丢了",
    "我的小朋友叫多多，今年三岁",  # noqa: RUF001  # a parent's own child, said fondly
    "我弟弟为了照顾奶奶没去上大学",
    "我妈为了照顾我爸搬回老家了",
    "我是我妈妈同事的照顾者",
]


@pytest.mark.parametrize("text", NOT_THE_USERS)
def test_near_misses_make_no_one_the_users_child_pupil_or_charge(owner, text):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content=text)
    found = Relation.objects.filter(namespace=namespace, subject__is_self=True)
    assert not found.filter(label__in=["cares for", "pupil", "player", "patient", "client"]).exists()
    assert not found.filter(predicate="child", object__name__gt="").exists()


def test_siblings_said_after_the_children_were_counted_in_another_sentence_stay_siblings(owner):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content="我有两个孩子，妹妹今年结婚了。")  # noqa: RUF001
    relations = Relation.objects.filter(namespace=namespace, subject__is_self=True)
    found = {(r.predicate, r.label) for r in relations}
    assert ("sibling", "sister") in found and not any(p == "child" for p, _ in found)
