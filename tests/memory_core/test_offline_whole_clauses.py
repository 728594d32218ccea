"""The offline extractor keeps whole statements (issue 32): a clause with a subject of its own never
becomes the object of the clause before ("allergic to it's serious"), and a relative's job is
learned however it is said, in English and Chinese. Wordings written for this test, not the set's."""

from __future__ import annotations

import pytest

from memory_core.extraction import RuleBasedExtractor

AT = "2026-12-01T10:00:00+00:00"


def extract(text: str) -> list:
    return RuleBasedExtractor().extract([{"id": "m1", "role": "user", "content": text, "created_at": AT}])


@pytest.mark.parametrize(
    "text",
    [
        "I'm allergic to peanuts, it's serious.",
        "I am allergic to sesame and it's really bad.",
        "My son is allergic to eggs, that's why we cook at home.",
        "I react badly to latex, it's scary, and I'm allergic to bee stings.",
        "I'm allergic to shellfish; they're everywhere here.",
    ],
)
def test_a_clause_with_its_own_subject_is_never_the_object_of_an_allergy(text):
    found = extract(text)
    pinned = [c.content for c in found if c.category == "safety"]
    assert pinned, text
    for content in pinned:
        assert "'s" not in content.split(" to ", 1)[-1] and "'re" not in content, content
        assert not any(word in content for word in ("serious", "really bad", "why", "scary", "everywhere")), (
            content
        )


def test_a_list_still_continues_its_frame():
    contents = {c.content for c in extract("I'm allergic to cats, dogs and horses.")}
    assert {
        "The user is allergic to cats.",
        "The user is allergic to dogs.",
        "The user is allergic to horses.",
    } <= contents


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ("My brother's a carpenter.", "family.brother.job", "The user's brother works as a carpenter."),
        ("My mum's a midwife.", "family.mother.job", "works as a midwife"),
        ("My husband works in finance.", "family.husband.job", "The user's husband works in finance."),
        (
            "My daughter Ella is employed as a translator.",
            "family.daughter.ella.job",
            "works as a translator",
        ),
        ("我哥当飞行员。", "family.brother.job", "用户的哥是飞行员。"),
        ("我姐是一名会计。", "family.sister.job", "用户的姐是一名会计。"),
        ("我老公做程序员。", "family.husband.job", "用户的老公是程序员。"),
        ("我妹妹的职业是护士。", "family.sister.job", "用户的妹妹是护士。"),
        ("我妈妈在中学教书。", "family.mother.job", "用户的妈妈是老师。"),
    ],
)
def test_a_relatives_job_is_learned_in_english_and_chinese(text, key, expected):
    jobs = {c.key: c.content for c in extract(text)}
    assert key in jobs, (text, jobs)
    assert expected in jobs[key]


def test_a_possession_is_not_read_as_is():
    # "my brother's wife": the wife's fact, not "the brother is wife …".
    assert not any(c.key == "family.brother.job" for c in extract("My brother's wife is a lawyer."))


def test_a_capitalised_place_is_not_a_field_of_work():
    assert not any(c.key.endswith("job") for c in extract("My wife works in London."))
