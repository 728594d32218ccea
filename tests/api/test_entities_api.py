"""People and places through /api/v1/entities/ and /api/v1/relations/ (issue 19): what a user told
becomes entities and relations that the API lists, shows with their sources, corrects, merges,
splits and erases; someone else's are 404; bad input is a 400 that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from memory_core.entities.models import Entity, Relation
from memory_core.models import MemoryEntry
from tests.api.conftest import client_with
from tests.api.entities_helpers import add
from tests.erasure_helpers import assert_nothing_in_sql, canary

pytestmark = pytest.mark.django_db


def listed(client: Any, query: str = "", user: str = "u1") -> dict[str, dict[str, Any]]:
    response = client.get(f"/api/v1/entities/?user_id={user}{query}")
    assert response.status_code == 200, response.content
    return {row["name"]: row for row in response.json()["results"]}


def detail(client: Any, entity_id: str, query: str = "", user: str = "u1") -> Any:
    return client.get(f"/api/v1/entities/{entity_id}/?user_id={user}{query}")


def family(client: Any, sister: str = "Ana") -> tuple[dict[str, Any], dict[str, Any]]:
    first = add(client, f"My sister {sister} is a nurse.")
    second = add(client, f"{sister}'s husband Marc is a pilot.")
    return first["entry"], second["entry"]


def test_the_people_a_user_spoke_of_with_what_is_known_and_the_sources(key_client):
    nurse, pilot = family(key_client)
    add(key_client, "I work at Acme.")
    people = listed(key_client)
    assert {"Ana", "Marc", "Acme"} <= set(people)
    assert people["Ana"]["kind"] == "person" and "sister" in people["Ana"]["aliases"]
    assert people["Ana"]["memory_count"] == 2
    assert set(listed(key_client, "&kind=person")) == {"Ana", "Marc"}
    assert set(listed(key_client, "&q=marc")) == {"Marc"}
    assert set(listed(key_client, "&q=sister")) == {"Ana"}  # an alias finds her too

    response = detail(key_client, people["Ana"]["id"])
    assert response.status_code == 200
    ana = response.json()
    facts = {
        (r["subject"]["name"], r["predicate"], (r["object"] or {}).get("name") or r["value"])
        for r in ana["relations"]
    }
    assert {("Ana", "spouse", "Marc"), ("Ana", "role", "nurse")} <= facts
    assert any(r["predicate"] == "sibling" and r["subject"]["is_self"] for r in ana["relations"])
    assert {m["content"] for m in ana["memories"]} == {nurse["content"], pilot["content"]}
    spouse = next(r for r in ana["relations"] if r["predicate"] == "spouse")
    assert spouse["memories"] == [pilot["id"]]

    # Point in time: before anything was told, only what was said undated of others may have held
    # (Ana's marriage, since when unknown); what the user said of their own sister began then.
    past = detail(key_client, ana["id"], "&at=2001-01-01T00:00:00Z").json()["relations"]
    assert [(r["predicate"], r["start_known"]) for r in past] == [("spouse", False)]
    relations = key_client.get(f"/api/v1/relations/?user_id=u1&entity={ana['id']}&predicate=spouse").json()
    assert [r["object"]["name"] for r in relations["results"]] == ["Marc"]
    one = key_client.get(f"/api/v1/relations/{spouse['id']}/?user_id=u1")
    assert one.status_code == 200 and one.json()["label"] == "husband"


def test_correct_merge_and_split(key_client):
    add(key_client, "My friend Bea likes green tea.")
    chess = add(key_client, "My colleague Beatrice plays chess.")["entry"]
    people = listed(key_client)
    bea, beatrice = people["Bea"]["id"], people["Beatrice"]["id"]

    renamed = key_client.patch(f"/api/v1/entities/{bea}/?user_id=u1", {"name": "Bea Silva"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Bea Silva"
    assert "Bea Silva" in listed(key_client)

    merged = key_client.post(f"/api/v1/entities/{beatrice}/merge/?user_id=u1", {"into": bea}, format="json")
    assert merged.status_code == 200, merged.content
    assert merged.json()["id"] == bea and "beatrice" in merged.json()["aliases"]
    assert "Beatrice" not in listed(key_client)
    assert detail(key_client, beatrice).status_code == 404
    together = detail(key_client, bea).json()
    assert {m["content"] for m in together["memories"]} == {
        "My friend Bea likes green tea.",
        chess["content"],
    }
    assert {r["predicate"] for r in together["relations"]} >= {"friend", "colleague"}

    split = key_client.post(
        f"/api/v1/entities/{bea}/split/?user_id=u1",
        {"memories": [chess["id"]], "name": "Beatrice"},
        format="json",
    )
    assert split.status_code == 201, split.content
    other = detail(key_client, split.json()["id"]).json()
    assert [m["content"] for m in other["memories"]] == [chess["content"]]
    assert [r["predicate"] for r in other["relations"]] == ["colleague"]
    left = detail(key_client, bea).json()
    assert [m["content"] for m in left["memories"]] == ["My friend Bea likes green tea."]


def test_erasing_an_entity_erases_its_memories_and_relations_everywhere(key_client):
    sister = canary("Ana")
    nurse, pilot = family(key_client, sister)
    kept = add(key_client, "My friend Bea likes green tea.")["entry"]
    ana = listed(key_client)[sister]["id"]

    response = key_client.delete(f"/api/v1/entities/{ana}/?user_id=u1")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["erased"] == 2 and all(r["via"] == "api" and r["api_key"] for r in body["receipts"])
    assert not MemoryEntry.objects.filter(pk__in=[nurse["id"], pilot["id"]]).exists()
    assert MemoryEntry.objects.filter(pk=kept["id"]).exists()
    assert set(listed(key_client)) == {"Bea"}  # Marc was known only from an erased memory
    assert not Relation.objects.filter(label="husband").exists()
    assert_nothing_in_sql(sister)
    receipts = key_client.get("/api/v1/erasures/?user_id=u1").json()
    assert receipts["count"] == 2
    assert detail(key_client, ana).status_code == 404


def test_a_relation_is_ended_corrected_or_erased_and_the_memories_stay(key_client):
    nurse, _pilot = family(key_client)
    ana = listed(key_client)["Ana"]["id"]
    relations = detail(key_client, ana).json()["relations"]
    role = next(r for r in relations if r["predicate"] == "role")
    spouse = next(r for r in relations if r["predicate"] == "spouse")

    fixed = key_client.patch(
        f"/api/v1/relations/{role['id']}/?user_id=u1", {"value": "surgeon"}, format="json"
    )
    assert fixed.status_code == 200 and fixed.json()["value"] == "surgeon"
    ended = key_client.patch(f"/api/v1/relations/{spouse['id']}/?user_id=u1", {"ended": True}, format="json")
    assert ended.status_code == 200 and ended.json()["valid_to"] is not None
    now = {r["predicate"] for r in detail(key_client, ana).json()["relations"]}
    assert "spouse" not in now and "role" in now
    history = key_client.get(f"/api/v1/relations/?user_id=u1&entity={ana}&history=true").json()
    assert "spouse" in {r["predicate"] for r in history["results"]}

    assert key_client.delete(f"/api/v1/relations/{role['id']}/?user_id=u1").status_code == 204
    assert key_client.get(f"/api/v1/relations/{role['id']}/?user_id=u1").status_code == 404
    assert MemoryEntry.objects.filter(pk=nurse["id"], status="active").exists()


def test_someone_elses_entities_are_not_found(key_client, other_tenant, make_key, owner_client):
    family(key_client)
    add(key_client, "My friend Bea likes green tea.", user="u2")
    people = listed(key_client)
    ana, marc = people["Ana"]["id"], people["Marc"]["id"]
    bea = listed(key_client, user="u2")["Bea"]["id"]
    spouse = Relation.objects.get(predicate="spouse").pk
    stranger = client_with(make_key(other_tenant))
    attempts = [
        (stranger, "get", f"/api/v1/entities/{ana}/?user_id=u1", None),
        (stranger, "patch", f"/api/v1/entities/{ana}/?user_id=u1", {"name": "Eve"}),
        (stranger, "delete", f"/api/v1/entities/{ana}/?user_id=u1", None),
        (stranger, "post", f"/api/v1/entities/{ana}/merge/?user_id=u1", {"into": marc}),
        (stranger, "get", f"/api/v1/relations/{spouse}/?user_id=u1", None),
        (stranger, "delete", f"/api/v1/relations/{spouse}/?user_id=u1", None),
        (owner_client, "get", f"/api/v1/entities/{ana}/", None),
        (owner_client, "delete", f"/api/v1/entities/{ana}/", None),
        # The same tenant, another end user: theirs, not u1's.
        (key_client, "get", f"/api/v1/entities/{ana}/?user_id=u2", None),
        (key_client, "post", f"/api/v1/entities/{bea}/merge/?user_id=u2", {"into": ana}),
        (key_client, "post", f"/api/v1/entities/{ana}/merge/?user_id=u1", {"into": bea}),
        (key_client, "get", f"/api/v1/relations/?user_id=u2&entity={ana}", None),
    ]
    for client, method, url, body in attempts:
        response = getattr(client, method)(url, body, format="json")
        assert response.status_code == 404, (method, url, response.content)
        assert "Ana" not in response.content.decode()
    assert listed(stranger) == {} and listed(owner_client, user="") == {}
    assert set(listed(key_client)) == {"Ana", "Marc"} and set(listed(key_client, user="u2")) == {"Bea"}
    assert Entity.objects.get(pk=ana).name == "Ana" and Relation.objects.filter(pk=spouse).exists()


def test_bad_input_is_refused_and_changes_nothing(key_client):
    family(key_client)
    add(key_client, "My friend Bea likes green tea.", user="u2")
    people = listed(key_client)
    ana, marc = people["Ana"]["id"], people["Marc"]["id"]
    foreign_memory = MemoryEntry.objects.get(content="My friend Bea likes green tea.").pk
    role = Relation.objects.get(predicate="role", subject__name="Ana")
    spouse = Relation.objects.get(predicate="spouse")
    before = (sorted(Entity.objects.values_list("name", "kind")), Relation.objects.count())
    cases = [
        ("get", "/api/v1/entities/?user_id=u1&kind=alien", None, "kind"),
        ("get", "/api/v1/relations/?user_id=u1&predicate=likes", None, "predicate"),
        ("get", f"/api/v1/entities/{ana}/?user_id=u1&at=yesterday", None, "at"),
        ("patch", f"/api/v1/entities/{ana}/?user_id=u1", {}, "non_field_errors"),
        ("patch", f"/api/v1/entities/{ana}/?user_id=u1", {"kind": "alien"}, "kind"),
        ("patch", f"/api/v1/entities/{ana}/?user_id=u1", {"name": "   "}, "name"),
        ("patch", f"/api/v1/entities/{ana}/?user_id=u1", {"name": 12}, "name"),
        ("patch", f"/api/v1/entities/{ana}/?user_id=u1", {"name": "x" * 201}, "name"),
        ("post", f"/api/v1/entities/{ana}/merge/?user_id=u1", {"into": ana}, "into"),
        ("post", f"/api/v1/entities/{ana}/merge/?user_id=u1", {"into": "Marc"}, "into"),
        ("post", f"/api/v1/entities/{ana}/split/?user_id=u1", {"memories": [], "name": "Ana 2"}, "memories"),
        (
            "post",
            f"/api/v1/entities/{ana}/split/?user_id=u1",
            {"memories": [str(foreign_memory)], "name": "X"},
            None,
        ),
        (
            "post",
            f"/api/v1/entities/{ana}/split/?user_id=u1",
            {"memories": ["nope"], "name": "X"},
            "memories",
        ),
        ("patch", f"/api/v1/relations/{spouse.pk}/?user_id=u1", {"value": "Bob"}, "value"),
        (
            "patch",
            f"/api/v1/relations/{role.pk}/?user_id=u1",
            {"valid_to": "2001-01-01T00:00:00Z"},
            "valid_to",
        ),
        ("patch", f"/api/v1/relations/{role.pk}/?user_id=u1", {"ended": "yes"}, "ended"),
        ("patch", f"/api/v1/entities/{marc}/?agent_id=x&user_id=u1", {"name": "Marcus"}, "user_id"),
    ]
    for method, url, body, field in cases:
        response = getattr(key_client, method)(url, body, format="json")
        assert response.status_code == 400, (method, url, body, response.content)
        error = response.json()
        assert error["detail"] and (field is None or field in error["errors"]), (url, body, error)
    assert (sorted(Entity.objects.values_list("name", "kind")), Relation.objects.count()) == before
    role.refresh_from_db()
    assert role.value == "nurse" and role.valid_to is None


def test_a_corrected_name_outlives_other_erasures_and_leaves_with_its_memories(key_client):
    tea = add(key_client, "My friend Bea likes green tea.")["entry"]
    other = add(key_client, "My colleague Tom plays chess.")["entry"]
    bea = listed(key_client)["Bea"]["id"]
    full_name = canary("Silva")
    response = key_client.patch(f"/api/v1/entities/{bea}/?user_id=u1", {"name": full_name}, format="json")
    assert response.status_code == 200

    assert key_client.delete(f"/api/v1/memories/{other['id']}/?user_id=u1").status_code == 204
    assert listed(key_client)[full_name]["id"] == bea  # the prune after that erasure kept it
    assert set(listed(key_client, f"&q={full_name.lower()}")) == {full_name}

    assert key_client.delete(f"/api/v1/memories/{tea['id']}/?user_id=u1").status_code == 204
    assert listed(key_client) == {}
    assert_nothing_in_sql(full_name)


def test_an_entity_and_the_lists_cost_the_same_queries_however_much_is_known(key_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def cost(url: str) -> int:
        with CaptureQueriesContext(connection) as queries:
            assert key_client.get(url).status_code == 200
        return len(queries)

    add(key_client, "My friend Bea likes green tea.")
    bea = listed(key_client)["Bea"]["id"]
    urls = [
        f"/api/v1/entities/{bea}/?user_id=u1",
        "/api/v1/entities/?user_id=u1",
        "/api/v1/relations/?user_id=u1",
    ]
    few = [cost(url) for url in urls]
    for i, city in enumerate(["Lyon", "Porto", "Oslo", "Riga", "Bern", "Graz"]):
        add(key_client, f"Bea moved to {city} in 201{i}.")
        add(key_client, f"My colleague Tom{i} works at Acme{i}.")
    assert len(detail(key_client, bea).json()["memories"]) >= 7
    assert [cost(url) for url in urls] == few


def test_people_told_in_chinese_are_listed_found_and_shown(key_client, owner):
    add(key_client, "我的姐姐叫小红。")
    add(key_client, "小红的丈夫是医生。")
    people = listed(key_client)
    assert "小红" in people and "姐姐" in people["小红"]["aliases"]
    assert set(listed(key_client, "&q=姐姐")) == {"小红"}
    shown = detail(key_client, people["小红"]["id"]).json()
    assert {m["content"] for m in shown["memories"]} >= {"我的姐姐叫小红。"}
    links = {(r["predicate"], r["subject"]["is_self"]) for r in shown["relations"]}
    assert {("sibling", True), ("spouse", False)} <= links
