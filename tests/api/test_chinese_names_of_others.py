# ruff: noqa: RUF001, RUF002
"""A name said after something the user introduced is that thing's name, not the user's: "我养了一只
柯基，叫豆豆" names the dog, "陈敏有个女儿，叫小雨" someone's daughter. Before, the clause "叫豆豆"
was read as the user's own name and replaced it; now the user's name stays current, on REST and on
mem0's route, whatever the vocabulary knows of the animal, vehicle, shop or person introduced."""

from __future__ import annotations

import pytest

from memory_core.models import MemoryEntry

pytestmark = pytest.mark.django_db

INTRODUCED_THEN_NAMED = [
    "我养了一只柯基，叫豆豆。",
    "陈敏有个女儿，叫小雨。",
    "我上个月买了一辆二手车，叫小白。",
    "我表姐開了一間咖啡店，叫半糖。",
]


def _name_entry() -> MemoryEntry:
    return MemoryEntry.objects.get(content="我叫李娜。")


@pytest.mark.parametrize("said", INTRODUCED_THEN_NAMED)
def test_rest_keeps_the_users_name(key_client, said):
    key_client.post("/api/v1/memories/", {"user_id": "u1", "content": "我叫李娜。"}, format="json")
    assert _name_entry().key == "name"

    body = key_client.post("/api/v1/memories/", {"user_id": "u1", "content": said}, format="json").json()

    assert body["action"] == "added" and body["entry"]["key"] != "name"
    assert _name_entry().valid_to is None and _name_entry().status == "active"
    current = key_client.get("/api/v1/memories/", {"user_id": "u1"}).json()["results"]
    assert {"我叫李娜。", said} <= {item["content"] for item in current}


def test_mem0_keeps_the_users_name(key_client):
    for said in ("我叫李娜。", INTRODUCED_THEN_NAMED[0]):
        body = {"messages": [{"role": "user", "content": said}], "user_id": "u1", "infer": False}
        reply = key_client.post("/v3/memories/add/", body, format="json").json()
        assert [r["event"] for r in reply["results"]] == ["ADD"]
    assert _name_entry().valid_to is None


def test_the_users_own_name_and_a_known_pet_are_still_read(key_client):
    for said in ("我叫李娜。", "我养了一只猫，叫大福。", "其实我叫李雪。"):
        key_client.post("/api/v1/memories/", {"user_id": "u1", "content": said}, format="json")

    assert MemoryEntry.objects.get(content="我养了一只猫，叫大福。").key.startswith("pet.cat")
    assert _name_entry().valid_to is not None  # "其实我叫李雪" replaced it
