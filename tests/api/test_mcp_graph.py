"""The MCP tools added to reach the peers (issue 31), with the SDK's own client: an extraction job's
status, memory_list's date ranges (the same answers as REST's list), entity search by name and by
meaning, the graph a page at a time, relations created directly, observations added to an entity,
and the graph cleared only on a strict `true`; bad input and another tenant's ids refused with the
REST API's bodies, nothing written."""

from __future__ import annotations

from datetime import timedelta

import anyio
import pytest
from django.utils import timezone

from api.services import user_token_issue
from memory_core.entities.models import Entity, EntityMention, Relation
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.conftest import client_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("closed_connections")]


@pytest.fixture(params=["http", "stdio"])
def connect_owner(request, owner, mcp_url):
    if request.param == "http":
        token = user_token_issue(user=owner).key
        return lambda: m.http_client(mcp_url, token)
    return lambda: m.stdio_client(owner.username)


def test_a_person_builds_and_reads_their_graph(connect_owner, owner):
    async def scenario():
        async with connect_owner() as client:
            for text in ("My sister Ana is a nurse.", "My friend Marc flies airliners for a living."):
                await m.ok(client, "memory_add", content=text)
            people = {e["name"]: e for e in (await m.ok(client, "entity_list"))["results"]}
            ana, marc = people["Ana"], people["Marc"]

            by_name = await m.ok(client, "entity_search", q="ana")
            assert (by_name["results"][0]["id"], by_name["results"][0]["matched"]) == (ana["id"], "name")
            by_meaning = await m.ok(client, "entity_search", q="Who is a pilot?")
            assert by_meaning["results"][0]["id"] == marc["id"], by_meaning
            assert by_meaning["results"][0]["matched"] in {"meaning", "memory"}

            linked = await m.ok(
                client, "relation_create", subject_id=ana["id"], predicate="spouse",
                object_id=marc["id"], label="husband",
            )  # fmt: skip
            assert (linked["subject"]["name"], linked["label"], linked["object"]["name"]) == (
                "Ana", "husband", "Marc",
            )  # fmt: skip
            assert linked["statement"]["content"] == "Ana's husband is Marc."
            assert linked["memories"] == [linked["statement"]["id"]]
            role = await m.ok(
                client, "relation_create", subject_id="user", predicate="role", value="architect"
            )
            assert role["subject"]["is_self"] and role["value"] == "architect"

            noted = await m.ok(client, "entity_observe", entity_id=ana["id"], content="Ana is vegetarian.")
            assert noted["entity"]["id"] == ana["id"] and noted["memory"]["content"] == "Ana is vegetarian."
            opened = await m.ok(client, "entity_get", entity_id=ana["id"])
            assert {"Ana is vegetarian.", "Ana's husband is Marc."} <= {
                s["content"] for s in opened["memories"]
            }
            assert ("spouse", "Marc") in {
                (r["predicate"], (r["object"] or {}).get("name")) for r in opened["relations"]
            }

            first = await m.ok(client, "graph_read", limit=1)
            assert first["count"] == 2 and [e["name"] for e in first["entities"]] == ["Ana"]
            assert first["next_offset"] == 1 and {r["predicate"] for r in first["relations"]} >= {
                "spouse",
                "sibling",
            }
            last = await m.ok(client, "graph_read", limit=1, offset=1)
            assert [e["name"] for e in last["entities"]] == ["Marc"] and last["next_offset"] is None

            refused = [
                await m.call(client, "graph_clear", confirm="yes"),
                await m.call(client, "graph_clear", confirm=1),
                await m.call(client, "graph_clear", confirm=False),
            ]
            job = await m.ok(
                client,
                "memory_add_messages",
                messages=[{"role": "user", "content": "I always drink my tea without sugar."}],
            )
            followed = await m.ok(client, "memory_job", job_id=job["id"])
            assert followed["id"] == job["id"] and followed["status"] == job["status"]
            recent = await m.ok(client, "memory_list", recorded_after="2001-01-01T00:00:00Z", status="active")
            assert "Ana is vegetarian." in {r["content"] for r in recent["results"]}
            assert (await m.ok(client, "memory_list", valid_before="2001-01-01T00:00:00Z"))["results"] == []
            kept = m.orm(lambda: Entity.objects.filter(is_self=False).count())
            cleared = await m.ok(client, "graph_clear", confirm=True)
            return refused, kept, cleared, linked

    refused, kept, cleared, linked = anyio.run(scenario)
    for failed, body in refused:
        assert failed and body["status"] == 400 and "confirm" in body["errors"], body
    assert kept == 2
    assert cleared == {"entities": 2, "relations": 5}  # sibling, nurse, friend, spouse, architect
    assert not Entity.objects.exists() and not Relation.objects.exists()
    # The memories stay: the graph is what went.
    assert MemoryEntry.objects.filter(pk=linked["statement"]["id"], status="active").exists()
    assert MemoryEntry.objects.filter(content="Ana is vegetarian.").exists()


def test_direct_links_refuse_bad_input_and_write_nothing(mcp_url, tenant, make_key):
    key = make_key(tenant)
    rest = client_with(key)
    rest.post("/api/v1/memories/", {"user_id": "u1", "content": "My sister Ana is a nurse."}, format="json")
    ana = Entity.objects.get(name="Ana")
    before = MemoryEntry.objects.count(), Relation.objects.count(), EntityMention.objects.count()

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            calls = {
                "no object": ("relation_create", {"subject_id": str(ana.pk), "predicate": "spouse"}),
                "object and value": (
                    "relation_create",
                    {
                        "subject_id": str(ana.pk),
                        "predicate": "friend",
                        "object_id": str(ana.pk),
                        "value": "x",
                    },
                ),
                "itself": (
                    "relation_create",
                    {"subject_id": str(ana.pk), "predicate": "friend", "object_id": str(ana.pk)},
                ),
                "bad predicate": (
                    "relation_create",
                    {"subject_id": str(ana.pk), "predicate": "enemy", "value": "x"},
                ),
                "secret": (
                    "entity_observe",
                    {"entity_id": str(ana.pk), "content": "Ana's card number is 4111 1111 1111 1111."},
                ),
                "blank": ("entity_observe", {"entity_id": str(ana.pk), "content": ""}),
                "unknown argument": ("entity_search", {"q": "Ana", "fuzzy": True}),
                "limit": ("entity_search", {"q": "Ana", "limit": 500}),
                "not an id": ("entity_observe", {"entity_id": "nope", "content": "Ana likes tea."}),
            }
            return {
                name: await m.call(client, tool, user_id="u1", **args) for name, (tool, args) in calls.items()
            }

    answers = anyio.run(scenario)
    for name, (failed, body) in answers.items():
        expected = 404 if name == "not an id" else 400
        assert failed and body["status"] == expected and body["detail"], (name, body)
    assert "content" in answers["secret"][1]["errors"]
    assert answers["unknown argument"][1]["errors"] == {"fuzzy": ["Unknown argument."]}
    assert (MemoryEntry.objects.count(), Relation.objects.count(), EntityMention.objects.count()) == before
    assert not MemoryEntry.objects.filter(content__contains="4111").exists()


def test_another_tenants_entities_cannot_be_linked_observed_or_cleared(
    mcp_url, tenant, other_tenant, make_key
):
    mine, theirs = make_key(tenant), make_key(other_tenant)
    client_with(mine).post(
        "/api/v1/memories/", {"user_id": "u1", "content": "My sister Ana is a nurse."}, format="json"
    )
    ana = Entity.objects.get(name="Ana")
    rest_404 = client_with(theirs).get(f"/api/v1/entities/{ana.pk}/?user_id=u1").json()

    async def scenario():
        async with m.http_client(mcp_url, theirs) as client:
            return [
                await m.call(
                    client,
                    "relation_create",
                    subject_id=str(ana.pk),
                    predicate="role",
                    value="spy",
                    user_id="u1",
                ),
                await m.call(
                    client, "entity_observe", entity_id=str(ana.pk), content="Ana is a spy.", user_id="u1"
                ),
                await m.call(client, "entity_search", q="Ana", user_id="u1"),
                await m.call(client, "graph_read", user_id="u1"),
                await m.call(client, "graph_clear", confirm=True, user_id="u1"),
            ]

    link, observe, search, graph, clear = anyio.run(scenario)
    assert link == (True, {**rest_404, "status": 404}) and observe == (True, {**rest_404, "status": 404})
    assert search == (False, {"results": []})
    assert graph[1]["entities"] == [] and graph[1]["count"] == 0
    assert clear[1] == {"entities": 0, "relations": 0}
    assert Entity.objects.filter(pk=ana.pk).exists()
    assert not MemoryEntry.objects.filter(content__contains="spy").exists()


def test_memory_list_date_ranges_agree_with_rest(mcp_url, tenant, make_key):
    key = make_key(tenant)
    rest = client_with(key)
    old = timezone.now() - timedelta(days=400)
    for content, valid_from in (("The user lived in Oslo.", old), ("The user plays chess.", None)):
        body = {"user_id": "u1", "content": content} | (
            {"valid_from": valid_from.isoformat()} if valid_from else {}
        )
        assert rest.post("/api/v1/memories/", body, format="json").status_code == 201
    MemoryEntry.objects.filter(content__contains="Oslo").update(
        valid_to=old + timedelta(days=30), recorded_at=old, status="superseded"
    )
    cut = (timezone.now() - timedelta(days=1)).isoformat()
    queries = {
        "recorded_after": ({"recorded_after": cut}, ["The user plays chess."]),
        "recorded_before": ({"recorded_before": cut}, ["The user lived in Oslo."]),
        "valid_before": ({"valid_before": cut}, ["The user lived in Oslo."]),
        "valid_after": ({"valid_after": cut}, ["The user plays chess."]),
        "updated_after": ({"updated_after": cut}, ["The user lived in Oslo.", "The user plays chess."]),
        "status string": ({"status": "superseded"}, ["The user lived in Oslo."]),
    }

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            answers = {
                name: await m.ok(client, "memory_list", user_id="u1", **q) for name, (q, _) in queries.items()
            }
            bad = await m.call(
                client,
                "memory_list",
                user_id="u1",
                recorded_after=cut,
                recorded_before="2001-01-01T00:00:00Z",
            )
            return answers, bad

    answers, (failed, bad) = anyio.run(scenario)
    for name, (query, expected) in queries.items():
        assert sorted(r["content"] for r in answers[name]["results"]) == expected, name
        through_rest = rest.get("/api/v1/memories/", {"user_id": "u1", **query}).json()["results"]
        assert sorted(r["content"] for r in through_rest) == expected, name
    assert failed and bad["status"] == 400 and "recorded_before" in bad["errors"]
    rest_bad = rest.get(
        "/api/v1/memories/",
        {"user_id": "u1", "recorded_after": cut, "recorded_before": "2001-01-01T00:00:00Z"},
    )
    assert rest_bad.status_code == 400 and {**rest_bad.json(), "status": 400} == bad


def test_an_extraction_job_can_be_followed(mcp_url, tenant, make_key):
    key = make_key(tenant)

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            job = await m.ok(
                client, "memory_add_messages", user_id="u1",
                messages=[{"role": "user", "content": "I moved to Lisbon last month."}],
            )  # fmt: skip
            status = await m.ok(client, "memory_job", job_id=job["id"], user_id="u1")
            other = await m.call(client, "memory_job", job_id=job["id"], user_id="u2")
            missing = await m.call(client, "memory_job", job_id="not-a-job", user_id="u1")
            return job, status, other, missing

    job, status, other, missing = anyio.run(scenario)
    assert status["id"] == job["id"] and status["status"] in {"queued", "running", "done"}
    rest = client_with(key).get(f"/api/v1/extractions/{job['id']}/?user_id=u1").json()
    assert status == rest
    assert other[0] and other[1]["status"] == 404 and missing[0] and missing[1]["status"] == 404
