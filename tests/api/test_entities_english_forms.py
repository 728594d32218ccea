"""English as people say it: a word before the kin word ("our upstairs neighbour", "my climbing
friend"), a spouse described or married again after a date ("a woman named …", "wed again in
2021, to …", an aside before the verb), a boss said by a verb ("reporting to …", "working
under …") and asked by one ("who did I report to"), a possessive chain walked in its order ("my
sister's husband" is not "my husband's sister") and a late wife. Through REST and recall."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations

pytestmark = pytest.mark.django_db


def _graph(items: list[dict[str, Any]]) -> dict[str, float]:
    """Content → the graph's part of its score, of the entries recalled."""
    return {item["entry"]["content"]: item["breakdown"]["graph"] for item in items}


_FILLERS = (
    "I bought a second-hand piano.",
    "The bus into town was late again.",
    "I am trying to read more poetry.",
    "My laptop needs a new battery.",
)


def test_a_word_before_the_kin_word_names_the_kin(key_client):
    first = add(key_client, "Our upstairs neighbour on Fenner Street is Yusuf Adeyemi.", user="m1")
    add(key_client, "Yusuf Adeyemi restores old motorbikes.", user="m1")
    add(key_client, "My bouldering-gym friend Tove Lindqvist lives in Gdansk now.", user="m1")
    for filler in _FILLERS:
        add(key_client, filler, user="m1")
    namespace = namespace_of(first)
    friends = {
        r.object.name: r.label for r in relations(namespace, predicate="friend", subject__is_self=True)
    }
    assert friends.get("Yusuf Adeyemi") == "neighbour"
    assert friends.get("Tove Lindqvist") == "friend"
    items = recall(key_client, "What does our upstairs neighbour do in his spare time?", user="m1")
    assert "Yusuf Adeyemi restores old motorbikes." in contents(items)[:2]
    assert _graph(items)["Yusuf Adeyemi restores old motorbikes."] > 0


def test_a_spouse_described_married_again_or_after_an_aside(key_client):
    first = add(key_client, "My cousin Ilse is married to a woman named Carmen Oyelaran.", user="m2")
    add(key_client, "Carmen Oyelaran trains guide dogs.", user="m2")
    add(key_client, "My father, a widower since 2009, wed again in 2021, to Odile Marchetti.", user="m2")
    add(key_client, "Odile Marchetti sings in a jazz quartet.", user="m2")
    for filler in _FILLERS:
        add(key_client, filler, user="m2")
    namespace = namespace_of(first)
    spouses = {
        (r.subject.name or r.subject.aliases[0], r.object.name)
        for r in relations(namespace, predicate="spouse")
    }
    assert ("Ilse", "Carmen Oyelaran") in spouses
    assert any(object_name == "Odile Marchetti" for _, object_name in spouses)
    assert (
        "Odile Marchetti sings in a jazz quartet."
        in contents(recall(key_client, "What does my stepmother do in the evenings?", user="m2"))[:2]
    )


def test_a_boss_said_and_asked_by_a_verb(key_client):
    first = add(
        key_client,
        "In 2015 I took a job at Marlow Freight, reporting directly to Beatrice Okonkwo.",
        user="m3",
        valid_from="2015-03-01T00:00:00Z",
    )
    add(
        key_client,
        "In 2020 I moved to Hesketh Labs, working under a lab director, Casimir Dunne.",
        user="m3",
        valid_from="2020-09-01T00:00:00Z",
    )
    add(key_client, "Beatrice Okonkwo breeds koi carp.", user="m3")
    add(key_client, "Casimir Dunne plays the bassoon.", user="m3")
    for filler in _FILLERS:
        add(key_client, filler, user="m3")
    namespace = namespace_of(first)
    bosses = {
        r.object.name: r.status for r in relations(namespace, predicate="manager", subject__is_self=True)
    }
    assert bosses == {"Beatrice Okonkwo": "superseded", "Casimir Dunne": "active"}
    then = contents(recall(key_client, "Who did I report to in 2017?", user="m3", at="2017-06-01T00:00:00Z"))
    assert "Beatrice Okonkwo breeds koi carp." in then[:2]
    now = recall(key_client, "What does the person I am working under do for fun?", user="m3")
    assert "Casimir Dunne plays the bassoon." in contents(now)[:2]
    assert _graph(now).get("Beatrice Okonkwo breeds koi carp.", 0) == 0  # not the boss now


def test_a_possessive_chain_is_walked_in_its_order(key_client):
    first = add(key_client, "I am married to Greer Tallis.", user="m4")
    add(key_client, "My sister Wren is married to Lucan Hale.", user="m4")
    add(key_client, "Greer's brother Anton is married to Delphine Roux.", user="m4")
    add(key_client, "Lucan Hale is a harbour master.", user="m4")
    add(key_client, "Anton is a stonemason.", user="m4")
    add(key_client, "Greer is a dental hygienist.", user="m4")
    for filler in _FILLERS:
        add(key_client, filler, user="m4")
    namespace_of(first)
    # "My wife's brother" is Anton; "my sister's husband" is Lucan: neither for the other.
    items = recall(key_client, "What does my sister's husband do?", user="m4")
    assert "Lucan Hale is a harbour master." in contents(items)[:2]
    assert _graph(items).get("Anton is a stonemason.", 0) == 0
    items = recall(key_client, "What does my wife's brother do?", user="m4")
    assert "Anton is a stonemason." in contents(items)[:2]
    assert _graph(items).get("Lucan Hale is a harbour master.", 0) == 0


def test_a_late_wife_is_the_one_before(key_client):
    first = add(
        key_client,
        "My first wife, Rosamund, passed away in 2004.",
        user="m5",
        valid_from="2004-02-01T00:00:00Z",
    )
    add(key_client, "Rosamund kept bees and sold the honey at the market.", user="m5")
    add(key_client, "I married Ottilie Vance in 2010.", user="m5", valid_from="2010-06-12T00:00:00Z")
    add(key_client, "Ottilie kept a stall selling cheese at the market.", user="m5")
    for filler in _FILLERS:
        add(key_client, filler, user="m5")
    namespace = namespace_of(first)
    assert "wife" in entities(namespace)["Rosamund"].aliases
    assert contents(recall(key_client, "What did my late wife sell at the market?", user="m5"))[0] == (
        "Rosamund kept bees and sold the honey at the market."
    )
    assert contents(recall(key_client, "What does my wife sell at the market?", user="m5"))[0] == (
        "Ottilie kept a stall selling cheese at the market."
    )


@pytest.mark.parametrize(
    ("said", "name", "predicate"),
    [
        ("Hi, it's Noor's mum, she won't be in on Friday.", "Noor", "child"),
        ("Finn's dad here, quick question about the trip.", "Finn", "child"),
        ("I'm Abel's father and I'd like to book a parents' evening slot.", "Abel", "child"),
        ("I'm Greta's sister, she asked me to ring you.", "Greta", "sibling"),
        ("我是朵朵的妈妈，想问一下下周的课。", "朵朵", "child"),  # noqa: RUF001
        ("我係阿樂嘅爸爸。", "阿樂", "child"),
    ],
)
def test_the_speaker_saying_whose_parent_they_are_is_the_user(key_client, said, name, predicate):
    namespace = namespace_of(add(key_client, said, user="m9"))

    [relation] = relations(namespace)
    assert (relation.subject.is_self, relation.predicate, relation.object.name) == (True, predicate, name)
    assert not [e for e in entities(namespace) if "'s" in e or "的" in e]  # no stranger "Noor's mum"


def test_someone_elses_parent_said_in_passing_is_theirs_not_the_users(key_client):
    namespace = namespace_of(add(key_client, "Noor's mum said she'd bring the cake on Friday.", user="m10"))

    assert not relations(namespace, subject__is_self=True)
    assert [(r.subject.name, r.predicate) for r in relations(namespace)] == [("Noor", "parent")]


@pytest.mark.parametrize(
    ("said", "names", "label"),
    [
        ("I've got twins, Ava and Leo, both 6.", {"Ava", "Leo"}, "child"),
        ("We have three kids, Amy, Ben and Cal.", {"Amy", "Ben", "Cal"}, "child"),
        ("My daughters, Rosa and Ines, are at the same school.", {"Rosa", "Ines"}, "daughter"),
        ("Our sons Finn, Max and Otto share a room.", {"Finn", "Max", "Otto"}, "son"),
    ],
)
def test_children_said_as_a_list_are_each_the_users_child(key_client, said, names, label):
    namespace = namespace_of(add(key_client, said, user="m11"))

    children = relations(namespace, subject__is_self=True, predicate="child")
    assert {r.object.name for r in children} == names and {r.label for r in children} == {label}


def test_pets_or_friends_said_as_a_list_are_no_children(key_client):
    namespace = namespace_of(
        add(key_client, "I have two cats, Salt and Pepper, and my friends Ana and Bea.", user="m12")
    )

    assert not relations(namespace, predicate="child")


@pytest.mark.parametrize(
    ("said", "name", "label"),
    [
        ("My youngest is Mateo, he starts school in May.", "Mateo", "child"),  # by order of birth
        ("Our eldest, Rosa, is in her first year at uni.", "Rosa", "child"),
        ("my little boy is called jack", "jack", "son"),  # voice input: no capitals
        ("My lad Alfie plays rugby on Saturdays.", "Alfie", "son"),
        ("We've got a little girl called Poppy.", "Poppy", "daughter"),
        ("We just had a baby boy, Theo!", "Theo", "son"),
        ("Ruby is my youngest, she's ten and a total legend.", "Ruby", "child"),  # said the other way
        ("My eldest Connor is away at uni.", "Connor", "child"),
    ],
)
def test_a_child_said_by_a_word_parents_use_is_the_users_child(key_client, said, name, label):
    namespace = namespace_of(add(key_client, said, user="m13"))

    [relation] = relations(namespace, subject__is_self=True)
    said_of = (relation.predicate, relation.object.name.lower(), relation.label)
    assert said_of == ("child", name.lower(), label) and relation.object.kind == "person"


@pytest.mark.parametrize(
    "said",
    [
        "My oldest friend is Tom, we met at school.",  # the order word before a kin word: that kin
        "my boss called me up about the rota",  # a word of grammar after "called" is no name
        "Going out with my girls tonight, Ana and Bea too.",  # "my girls" are as often friends
        "Tom is my oldest mate from school.",  # an order word before a word that is no kin's
    ],
)
def test_order_words_and_lower_case_verbs_make_no_child(key_client, said):
    namespace = namespace_of(add(key_client, said, user="m14"))

    assert not relations(namespace, predicate="child")


@pytest.mark.parametrize(
    ("said", "names", "label"),
    [
        ("Irene — that's mum — is partially sighted now.", {"Irene"}, "mother"),  # an aside
        ("Dad (everyone calls him Rocky) lives with me now.", {"Rocky"}, "father"),
        ("Tom, my boss, said the rota is changing.", {"Tom"}, "boss"),
        ("It's me, my husband Dan and our two, Noah (7) and Lily (4).", {"Dan", "Noah", "Lily"}, None),
        # the count said as the user's: "I have two kids, …", "we've got three boys: …", "my two kids, …"
        ("I have two kids, Ava and Leo, and a very patient husband.", {"Ava", "Leo"}, None),
        ("We've got three boys: Tom, Jack and Alfie.", {"Tom", "Jack", "Alfie"}, None),
        # the kin typed in lower case, and a word after the name in the brackets
        ("gran (Margaret, for the record) has moved in with us.", {"Margaret"}, "grandmother"),
        ("mum (Sue) is coming round later with the cake.", {"Sue"}, "mother"),
        ("My two girls, Esme and Thea, start swimming on Saturday.", {"Esme", "Thea"}, None),
    ],
)
def test_a_name_given_in_an_aside_names_the_users_kin(key_client, said, names, label):
    namespace = namespace_of(add(key_client, said, user="m15"))

    # Kin said to live with the user are in their care too ("cares for", tests/api/test_people_at_home.py).
    mine = [r for r in relations(namespace, subject__is_self=True) if r.label != "cares for"]
    assert {r.object.name for r in mine} == names
    if label:
        assert [r.label for r in mine] == [label]


def test_an_aside_that_closes_no_mark_names_no_one(key_client):
    namespace = namespace_of(add(key_client, "Thanks Tom, my boss said yes to Friday.", user="m16"))

    assert [r.object.name for r in relations(namespace, subject__is_self=True) if r.object.named] == []


@pytest.mark.parametrize(
    "said",
    [
        "my sister called twice today",  # "called", the past tense: no name
        "My oldest GitHub repo is ten years old.",  # an order word before a capitalised thing
        "Our oldest Honda still runs.",
        "Tom is my oldest and dearest friend.",
        "Buster - good boy - ate his dinner.",  # a pet praised in an aside
        "I have two cats. My two, Mittens and Tiger, sleep all day.",
        "Two kids, Ben and Ollie, were fighting at the park today.",  # anyone's children
        "My sister has two kids, Milo and Hazel.",
    ],
)
def test_what_only_looks_like_an_introduction_names_no_child_and_no_one(key_client, said):
    namespace = namespace_of(add(key_client, said, user="m17"))

    assert not relations(namespace, predicate="child")
    assert not [r for r in relations(namespace, subject__is_self=True) if r.object.name.lower() == "twice"]
