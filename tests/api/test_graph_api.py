"""The graph over REST beside MCP's tools (issue 31): search by name and meaning, a relation
created directly (resting on a statement the pipeline wrote), an observation, the graph a page at a
time, clearing it on a strict `true`; bad input refused with nothing written."""

from __future__ import annotations

from django.db import connection

from memory_core.entities.models import Entity, Relation
from memory_core.models import MemoryEntry
from tests.api.entities_helpers import add


def test_a_tenant_links_observes_searches_pages_and_clears(key_client):
    add(key_client, "My sister Ana is a nurse.")
    add(key_client, "My friend Marc flies airliners for a living.")
    ana, marc = Entity.objects.get(name="Ana"), Entity.objects.get(name="Marc")

    found = key_client.get("/api/v1/entities/search/", {"q": "Who is a pilot?", "user_id": "u1"}).json()
    assert found["results"][0]["id"] == str(marc.pk)
    linked = key_client.post(
        "/api/v1/relations/",
        {"user_id": "u1", "subject_id": str(ana.pk), "predicate": "spouse", "object_id": str(marc.pk),
         "label": "husband", "valid_from": "2019-06-01T00:00:00Z"},
        format="json",
    )  # fmt: skip
    assert linked.status_code == 201, linked.content
    statement = MemoryEntry.objects.get(pk=linked.json()["statement"]["id"])
    assert statement.content == "Ana's husband is Marc." and statement.valid_from.year == 2019
    assert Relation.objects.get(pk=linked.json()["id"]).valid_from.year == 2019

    noted = key_client.post(
        f"/api/v1/entities/{ana.pk}/observations/",
        {"user_id": "u1", "content": "Ana is vegetarian."},
        format="json",
    )
    assert noted.status_code == 201 and noted.json()["memory"]["content"] == "Ana is vegetarian."
    opened = key_client.get(f"/api/v1/entities/{ana.pk}/", {"user_id": "u1"}).json()
    assert "Ana is vegetarian." in {m["content"] for m in opened["memories"]}

    page = key_client.get("/api/v1/graph/", {"user_id": "u1", "limit": 1}).json()
    assert page["count"] == 2 and page["next_offset"] == 1 and page["entities"][0]["name"] == "Ana"

    refused = key_client.post("/api/v1/graph/clear/", {"user_id": "u1", "confirm": "true"}, format="json")
    assert refused.status_code == 400 and "confirm" in refused.json()["errors"]
    assert Entity.objects.filter(is_self=False).count() == 2
    cleared = key_client.post("/api/v1/graph/clear/", {"user_id": "u1", "confirm": True}, format="json")
    assert cleared.status_code == 200 and cleared.json()["entities"] == 2
    assert not Entity.objects.exists() and MemoryEntry.objects.filter(content="Ana is vegetarian.").exists()


def test_bad_links_are_refused_and_nothing_is_written(key_client):
    add(key_client, "My sister Ana is a nurse.")
    ana = str(Entity.objects.get(name="Ana").pk)
    Entity.objects.filter(is_self=True).delete()  # "my sister": only its relation made it; gone now
    before = MemoryEntry.objects.count(), Relation.objects.count()
    for body, field in (
        ({"subject_id": "user", "predicate": "role", "value": "card 4111 1111 1111 1111"}, "content"),
        ({"subject_id": ana, "predicate": "spouse"}, "object"),
        ({"subject_id": ana, "predicate": "role", "value": "   "}, "value"),
        ({"subject_id": ana, "predicate": "teacher", "value": "x"}, "predicate"),
        ({"subject_id": "user", "predicate": "friend", "object_id": "not-a-uuid"}, "object_id"),
        ({"subject_id": ana, "predicate": "role", "value": "card 4111 1111 1111 1111"}, "content"),
    ):
        response = key_client.post("/api/v1/relations/", {"user_id": "u1", **body}, format="json")
        assert response.status_code == 400, (body, response.content)
        assert field is None or field in response.json()["errors"], (body, response.json())
    missing = key_client.post(
        "/api/v1/relations/",
        {"user_id": "u2", "subject_id": ana, "predicate": "role", "value": "x"},
        format="json",
    )
    assert missing.status_code == 404
    assert (MemoryEntry.objects.count(), Relation.objects.count()) == before
    assert not Entity.objects.filter(is_self=True, relations_out__isnull=True).exists()  # no trace left


_SYLLABLES = ("ka", "ro", "mi", "te", "lu", "sa", "no", "vi", "de", "pa", "zo", "ri")


def test_meaning_search_finds_the_tenants_own_among_many_nearer_of_others(key_client):
    """Another user's three hundred pilots are all nearer "Who is a pilot?" than this user's one:
    a search filtered to this user after the index picked the nearest overall found none of his."""
    names = [(a + b).capitalize() + c for a in _SYLLABLES for b in _SYLLABLES for c in ("n", "x")][:300]
    for start in range(0, len(names), 100):
        batch = [{"content": f"My friend {name} is an airline pilot."} for name in names[start : start + 100]]
        response = key_client.post("/api/v1/memories/", {"user_id": "u2", "memories": batch}, format="json")
        assert response.status_code in (200, 201), response.content
    add(key_client, "My sister Ana is a nurse.")
    add(key_client, "My friend Marc flies airliners for a living.")
    marc = Entity.objects.get(name="Marc")
    with connection.cursor() as cursor:
        # The plan of a table grown large (the CI run's, half-way): the nearest rows come from
        # the HNSW index rather than from a sort of this user's rows.
        cursor.execute("SET LOCAL enable_sort = off")

    found = key_client.get("/api/v1/entities/search/", {"q": "Who is a pilot?", "user_id": "u1"}).json()
    assert found["results"][0]["id"] == str(marc.pk), found
    assert found["results"][0]["matched"] == "memory"
    assert {r["name"] for r in found["results"]} <= {"Ana", "Marc"}
