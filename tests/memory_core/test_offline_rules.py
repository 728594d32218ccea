"""The offline extractor on the labelled utterances (tests/data/extraction/) and on the wordings
users reported: safety facts first, then jobs, moves, identifiers, names, family, events, one-off
requests, negation, secrets and Chinese."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.extraction import RuleBasedExtractor, remember_requests
from memory_core.guards.secrets import scan_secrets

DATA = Path(__file__).resolve().parent.parent / "data" / "extraction"
AT = "2026-11-20T10:00:00+00:00"  # a Friday; the labelled dates resolve against it
ROWS = [json.loads(line) for line in (DATA / "utterances.jsonl").read_text(encoding="utf-8").splitlines()]


def extract(text: str) -> list:
    return RuleBasedExtractor().extract([{"id": "m1", "role": "user", "content": text, "created_at": AT}])


def keyed(text: str) -> dict[str, object]:
    return {candidate.key: candidate for candidate in extract(text) if candidate.key}


def test_the_labelled_set_is_big_enough_and_partly_held_out():
    assert len(ROWS) >= 320
    assert sum(row["split"] == "heldout" for row in ROWS) >= 0.25 * sum(row["split"] == "dev" for row in ROWS)
    assert sum(not row["expected"] for row in ROWS) >= 80


SAFETY_ROWS = [row for row in ROWS if any(e["category"] == "safety" for e in row["expected"])]


@pytest.mark.parametrize("row", SAFETY_ROWS, ids=[row["text"][:60] for row in SAFETY_ROWS])
def test_no_sentence_of_the_set_loses_a_safety_fact_it_states(row):
    found = extract(row["text"])

    for expected in row["expected"]:
        if expected["category"] == "safety" and expected["key"]:
            assert ("safety", expected["key"]) in {(c.category, c.key) for c in found}, expected["content"]
        elif expected["category"] == "safety":  # a denial, kept without a slot
            assert expected["content"] in [c.content for c in found if c.category == "safety" and not c.key]


NOTHING_ROWS = [row for row in ROWS if not row["expected"]]


@pytest.mark.parametrize("row", NOTHING_ROWS, ids=[row["text"][:60] for row in NOTHING_ROWS])
def test_small_talk_questions_and_one_off_requests_give_nothing_to_keep(row):
    found = extract(row["text"])

    # An explicit "remember that <secret>" is passed on whole so that the pipeline refuses it visibly.
    assert [c.content for c in found if not scan_secrets(c.content).found] == []


def test_every_statement_is_a_self_contained_third_person_sentence():
    for row in ROWS:
        for candidate in extract(row["text"]):
            text = f" {candidate.content} "
            assert not any(word in text for word in (" I ", " I'm ", " my ", " My ", " me ", "我")), text
            assert candidate.content[-1] in ".\u3002", candidate.content


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "I'm vegetarian and allergic to nuts",
            {"diet": "The user is vegetarian.", "health.allergy.nut": "The user is allergic to nuts."},
        ),
        (
            "I'm allergic to penicillin and shellfish",
            {
                "health.allergy.penicillin": "The user is allergic to penicillin.",
                "health.allergy.shellfish": "The user is allergic to shellfish.",
            },
        ),
        (
            "I'm not allergic to anything but I am lactose intolerant",
            {"health.intolerance.lactose": "The user is lactose intolerant."},
        ),
        (
            "I take metformin twice a day",
            {"health.medication.metformin": "The user takes metformin twice a day."},
        ),
        ("I'm on blood thinners", {"health.medication.blood_thinner": "The user is on blood thinners."}),
        (
            "I have type 1 diabetes and asthma",
            {"health.diabetic": "The user has type 1 diabetes.", "health.asthma": "The user has asthma."},
        ),
        ("我对花生过敏", {"health.allergy.peanut": "用户对花生过敏。"}),
        ("我不吃猪肉", {"diet.avoid.pork": "用户不吃猪肉。"}),
        ("我有糖尿病", {"health.diabetic": "用户有糖尿病。"}),
    ],
)
def test_it_keeps_every_safety_fact_of_a_compound_sentence(said, expected):
    found = keyed(said)

    assert {key: c.content for key, c in found.items()} == expected
    assert all(c.category == "safety" and c.pinned for c in found.values())


def test_a_negated_allergy_ends_the_allergy_instead_of_stating_it():
    (candidate,) = extract("I'm not allergic to peanuts anymore")

    # Same slot, so it supersedes "allergic to peanuts"; never itself "allergic to peanuts".
    assert candidate.key == "health.allergy.peanut"
    assert candidate.content == "The user is no longer allergic to peanuts."
    assert candidate.category == "safety" and not candidate.pinned


def test_a_plain_denial_is_kept_beside_the_fact_not_in_its_place():
    (candidate,) = extract("I'm not allergic to penicillin, that was my brother")

    assert (candidate.content, candidate.key) == ("The user is not allergic to penicillin.", "")
    assert candidate.category == "safety" and not candidate.pinned


@pytest.mark.parametrize(
    ("said", "key", "content"),
    [
        ("I started a new job at Fabrikam last week", "employer", "The user works at Fabrikam."),
        ("I just got promoted to team lead", "job", "The user was promoted to team lead."),
        ("I work at Contoso as a nurse", "job", "The user works as a nurse at Contoso."),
        ("I got a job at Amazon!", "employer", "The user works at Amazon."),
        ("I was laid off from Contoso last month", "employer", "The user no longer works at Contoso."),
        ("我在腾讯工作", "employer", "用户在腾讯工作。"),
    ],
)
def test_it_follows_job_changes_in_everyday_wordings(said, key, content):
    assert keyed(said)[key].content == content


def test_a_quit_and_a_new_role_update_both_slots():
    found = keyed("I quit Contoso and joined Northwind as a data analyst")

    assert found["employer"].content == "The user no longer works at Contoso."
    assert found["job"].content == "The user works as a data analyst at Northwind."


def test_it_keeps_the_second_fact_of_a_compound_sentence():
    found = keyed("I live in Lyon and work as a pharmacist")

    assert found["home_city"].content == "The user lives in Lyon."
    assert found["job"].content == "The user works as a pharmacist."


@pytest.mark.parametrize(
    ("said", "content", "valid_from"),
    [
        ("We moved to Porto in March", "The user lives in Porto (moved there in March 2026).", "2026-03-01"),
        ("I just moved to Berlin", "The user moved to Berlin and lives there now.", None),
        ("我住在上海", "用户住在上海。", None),
    ],
)
def test_it_follows_moves(said, content, valid_from):
    candidate = keyed(said)["home_city"]

    assert (candidate.content, candidate.valid_from) == (content, valid_from)


@pytest.mark.parametrize(
    ("said", "key"),
    [
        ("My ticket is INC-20931", "ticket.inc_20931"),
        ("order #88231 still hasn't arrived", "order.88231"),
        ("booking ref QX7P2L for the 12th", "booking.qx7p2l"),
        ("case number 004512 is still open", "case.004512"),
        ("我的订单号是88231", "order.88231"),
    ],
)
def test_it_keeps_identifiers_in_any_tense(said, key):
    (candidate,) = extract(said)

    assert (candidate.key, candidate.category, candidate.type) == (key, "task_state", "episodic")
    assert key.split(".")[1].replace("_", "-").upper() in candidate.content.upper().replace("#", "")


@pytest.mark.parametrize(
    "said",
    [
        "I'd like a vegetarian option today",
        "Can I get it in blue this time?",
        "I'd prefer an aisle seat this time",
        "I'll have the salmon",
        "今天我想吃素",
    ],
)
def test_a_one_off_request_is_never_a_standing_preference(said):
    assert extract(said) == []


def test_a_standing_preference_is_kept():
    (candidate,) = extract("I prefer window seats")

    assert (candidate.key, candidate.category) == ("preference.window_seat", "preference")


@pytest.mark.parametrize(
    ("said", "key", "content"),
    [
        ("Call me Sam", "preferred_name", "The user prefers to be called Sam."),
        ("叫我小王", "preferred_name", "用户希望被称为小王。"),
        ("Hi, I'm Priya.", "name", "The user's name is Priya."),
        ("我叫李明", "name", "用户的名字是李明。"),
    ],
)
def test_it_keeps_names(said, key, content):
    assert keyed(said)[key].content == content


def test_a_dated_family_event_keeps_the_name_and_the_date():
    found = extract("My daughter Mia starts school in September")

    name = next(c for c in found if c.key)
    event = next(c for c in found if not c.key)
    assert (name.key, name.content) == ("family.daughter.mia", "The user's daughter is named Mia.")
    assert event.type == "episodic" and event.category == "event"
    assert event.content == "The user's daughter Mia starts school in September 2027."
    assert event.valid_from == "2027-09-01"


def test_a_relatives_fact_is_scoped_to_the_relative():
    found = keyed("My son is allergic to peanuts and I live in Oslo")

    assert set(found) == {"family.son.health.allergy.peanut", "home_city"}
    assert found["family.son.health.allergy.peanut"].content == "The user's son is allergic to peanuts."


def test_it_never_puts_a_secret_into_a_statement():
    found = extract("My order number is 88231 and my password is hunter2")

    assert [c.key for c in found] == ["order.88231"]
    assert all("hunter2" not in c.content for c in found)


def test_chinese_and_english_statements_of_one_fact_share_the_slot():
    for english, chinese in [
        ("I'm allergic to peanuts", "我对花生过敏"),
        ("I work at Tencent", "我在腾讯工作"),
        ("I live in Shanghai", "我住在上海"),
        ("Call me Xiao Wang", "叫我小王"),
        ("My order number is 88231", "我的订单号是88231"),
        ("I don't eat pork", "我不吃猪肉"),
        ("I have diabetes", "我有糖尿病"),
    ]:
        assert set(keyed(english)) == set(keyed(chinese)), english


def test_remember_that_keeps_a_compound_safety_sentence_whole():
    found = remember_requests(
        {"id": "m1", "role": "user", "content": "Remember that I'm vegan and allergic to soy."}
    )

    assert [(c.key, c.confidence) for c in found] == [("diet", 1.0), ("health.allergy.soy", 1.0)]
