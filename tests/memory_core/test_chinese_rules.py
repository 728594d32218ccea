# ruff: noqa: RUF001 -- Chinese users type full-width commas and question marks; so must the tests.
"""The Chinese rules on the labelled Chinese utterances (tests/data/zh_rules/): no safety fact of
the set is lost, nothing is pinned where nothing was said, every secret is found, every weakening
rule flagged, and what the rules write reads back to its own slot (so a later add of the same
statement, through REST or an import, supersedes instead of duplicating)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core.extraction import RuleBasedExtractor, remember_requests
from memory_core.extraction.slots import infer_slot
from memory_core.guards.policy import policy_check
from memory_core.guards.secrets import scan_secrets

DATA = Path(__file__).resolve().parent.parent / "data" / "zh_rules" / "labelled.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
AT = "2026-11-20T10:00:00+00:00"


def extract(text: str) -> list:
    return RuleBasedExtractor().extract([{"id": "m1", "role": "user", "content": text, "created_at": AT}])


def _ids(rows: list[dict]) -> list[str]:
    return [row["text"][:40] for row in rows]


def test_the_set_is_big_enough_varied_and_partly_written_after_tuning():
    assert len(ROWS) >= 150
    assert sum(row["split"] != "dev" for row in ROWS) >= 100
    assert len({row["category"] for row in ROWS}) >= 12
    assert sum(row["category"] == "negative" or not row["facts"] for row in ROWS) >= 50


SAFETY = [row for row in ROWS if any(fact.get("pinned") for fact in row["facts"])]


@pytest.mark.parametrize("row", SAFETY, ids=_ids(SAFETY))
def test_no_chinese_safety_fact_of_the_set_is_lost(row):
    pinned = {(c.key, c.pinned) for c in extract(row["text"]) if c.pinned}
    assert {(f["key"], True) for f in row["facts"] if f.get("pinned")} <= pinned


UNPINNED = [row for row in ROWS if row["category"] in ("negative", "negation", "policy", "secret")]


@pytest.mark.parametrize("row", UNPINNED, ids=_ids(UNPINNED))
def test_denials_questions_others_rules_and_secrets_pin_nothing(row):
    assert [c.content for c in extract(row["text"]) if c.pinned] == []


@pytest.mark.parametrize("row", ROWS, ids=_ids(ROWS))
def test_secrets_are_found_and_weakening_rules_flagged(row):
    assert scan_secrets(row["text"]).found == row["secret"]
    if row["policy"] == "weakening":
        assert policy_check(row["text"]).weakens
    if row["category"] in ("allergy", "condition", "medication", "negation", "remember"):
        assert not policy_check(row["text"]).is_rule, "a fact about the user must not wait for review"


KEYED = [row for row in ROWS if any(fact["key"] for fact in row["facts"])]


@pytest.mark.parametrize("row", KEYED, ids=_ids(KEYED))
def test_what_the_rules_write_reads_back_to_its_own_slot(row):
    for candidate in extract(row["text"]):
        if candidate.key:
            slot = infer_slot(candidate.content)
            assert slot is not None and (slot.key, slot.pinned) == (candidate.key, candidate.pinned)


@pytest.mark.parametrize(
    ("text", "key", "pinned"),
    [
        ("我以前对芒果过敏，后来就好了", "health.allergy.mango", False),
        ("我现在已经不对青霉素过敏了", "health.allergy.penicillin", False),
        ("我吃不了虾，会起疹子", "health.allergy.shrimp", True),
        ("我過敏，不能吃螃蟹", "health.allergy.crab", True),
    ],
)
def test_allergies_across_clauses_and_their_end(text, key, pinned):
    found = {c.key: c for c in extract(text) if c.key}
    assert key in found and found[key].pinned is pinned


@pytest.mark.parametrize(
    "text",
    [
        "我不对花生过敏",
        "我对什么都不过敏",
        "如果我对花生过敏怎么办？",
        "我闺蜜对花生过敏",
        "我对加班过敏了哈哈",
    ],
)
def test_no_allergy_slot_without_an_allergy_of_the_user(text):
    assert [c.key for c in extract(text) if c.key.startswith("health.allergy")] == []


def test_a_chinese_remember_request_is_explicit_and_a_secret_in_it_goes_on_whole_to_be_refused():
    asked = remember_requests({"id": "m1", "role": "user", "content": "帮我记住：我家wifi密码是 Lotus-8842"})
    assert asked and all(scan_secrets(c.content).found for c in asked)
    kept = remember_requests({"id": "m1", "role": "user", "content": "别忘了我女儿对鸡蛋过敏"})
    assert [(c.key, c.pinned) for c in kept] == [("family.daughter.health.allergy.egg", True)]
    assert remember_requests({"id": "m1", "role": "user", "content": "你还记得我叫什么吗？"}) == []
