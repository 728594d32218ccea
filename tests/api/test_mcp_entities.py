"""People and places through the MCP server, with the SDK's own client over streamable HTTP: list,
get (what is known and the sources), correct, merge, erase (memories go, with receipts naming the
key), relations; another tenant's and bad input refused with the REST API's error bodies."""

from __future__ import annotations

import anyio
import pytest

from api.services import api_key_issue, tenant_create
from memory_core.entities.models import Entity, Relation
from memory_core.models import ErasureReceipt, MemoryEntry
from memory_core.scan import scan_database
from tests.api import mcp_helpers as m
from tests.erasure_helpers import canary

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("closed_connections")]


def test_an_assistant_reads_corrects_merges_and_erases_people(mcp_url, operator):
    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    key = api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])[1]
    stranger = api_key_issue(
        tenant=tenant_create(name="Globex", slug="globex"), scopes=["read", "write", "erase"]
    )[1]
    sister = canary("Ana")

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            for text in (
                f"My sister {sister} is a nurse.",
                f"{sister}'s husband Marc is a pilot.",
                "My friend Bea likes green tea.",
                "My colleague Beatrice plays chess.",
            ):
                await m.ok(client, "memory_add", content=text, user_id="u1")
            people = {e["name"]: e for e in (await m.ok(client, "entity_list", user_id="u1"))["results"]}
            assert {sister, "Marc", "Bea", "Beatrice"} <= set(people)
            assert [
                e["name"] for e in (await m.ok(client, "entity_list", q="husband", user_id="u1"))["results"]
            ] == ["Marc"]

            ana = await m.ok(client, "entity_get", entity_id=people[sister]["id"], user_id="u1")
            links = {
                (r["predicate"], (r["object"] or {}).get("name") or r["value"]) for r in ana["relations"]
            }
            assert ("spouse", "Marc") in links and ("role", "nurse") in links
            assert {s["content"] for s in ana["memories"]} == {
                f"My sister {sister} is a nurse.",
                f"{sister}'s husband Marc is a pilot.",
            }
            past = await m.ok(
                client, "entity_get", entity_id=ana["id"], at="2001-01-01T00:00:00Z", user_id="u1"
            )
            # Only Ana's marriage, said undated of others, may have held then (its start unknown).
            assert [r["predicate"] for r in past["relations"]] == ["spouse"]

            fixed = await m.ok(
                client, "entity_correct", entity_id=people["Bea"]["id"], name="Bea Silva", user_id="u1"
            )
            assert fixed["name"] == "Bea Silva"
            merged = await m.ok(
                client,
                "entity_merge",
                entity_id=people["Beatrice"]["id"],
                into=people["Bea"]["id"],
                user_id="u1",
            )
            assert merged["id"] == people["Bea"]["id"] and "beatrice" in merged["aliases"]

            spouse = (
                await m.ok(client, "relation_list", entity=ana["id"], predicate="spouse", user_id="u1")
            )["results"]
            assert [r["object"]["name"] for r in spouse] == ["Marc"]
            one = await m.ok(client, "relation_get", relation_id=spouse[0]["id"], user_id="u1")
            assert (one["label"], one["object"]["name"]) == ("husband", "Marc")

            # Corrections: a value put right, a relation that ended (kept in the history).
            role = next(r for r in ana["relations"] if r["predicate"] == "role")
            fixed = await m.ok(
                client, "relation_correct", relation_id=role["id"], value="surgeon", user_id="u1"
            )
            assert fixed["value"] == "surgeon"
            ended = await m.ok(
                client, "relation_correct", relation_id=spouse[0]["id"], ended=True, user_id="u1"
            )
            assert ended["valid_to"] is not None
            now = await m.ok(client, "relation_list", entity=ana["id"], predicate="spouse", user_id="u1")
            assert now["results"] == []
            kept = await m.ok(
                client, "relation_list", entity=ana["id"], predicate="spouse", history=True, user_id="u1"
            )
            assert [r["id"] for r in kept["results"]] == [spouse[0]["id"]]
            for bad in ({"value": "   "}, {"ended": True, "valid_to": "2030-01-01T00:00:00Z"}):
                failed, body = await m.call(
                    client, "relation_correct", relation_id=role["id"], user_id="u1", **bad
                )
                assert failed and body["status"] == 400, (bad, body)
            assert m.orm(lambda: Relation.objects.get(pk=role["id"]).value) == "surgeon"

            # Refusals: the REST API's bodies.
            failed, body = await m.call(
                client, "entity_correct", entity_id=ana["id"], name="   ", user_id="u1"
            )
            assert failed and body["status"] == 400 and "name" in body["errors"]
            failed, body = await m.call(
                client, "entity_merge", entity_id=ana["id"], into=ana["id"], user_id="u1"
            )
            assert failed and body["status"] == 400
            failed, body = await m.call(client, "entity_get", entity_id="not-an-id", user_id="u1")
            assert failed and body["status"] == 404

            async with m.http_client(mcp_url, stranger) as other:
                for tool, args in (
                    ("entity_get", {"entity_id": ana["id"]}),
                    ("entity_correct", {"entity_id": ana["id"], "name": "Eve"}),
                    ("entity_erase", {"entity_id": ana["id"]}),
                    ("relation_erase", {"relation_id": spouse[0]["id"]}),
                    ("relation_get", {"relation_id": spouse[0]["id"]}),
                    ("relation_correct", {"relation_id": spouse[0]["id"], "value": "x"}),
                ):
                    failed, body = await m.call(other, tool, user_id="u1", **args)
                    assert failed and body["status"] == 404, (tool, body)
                assert (await m.ok(other, "entity_list", user_id="u1"))["results"] == []
            assert m.orm(lambda: Entity.objects.filter(name=sister).exists())

            await m.ok(client, "relation_erase", relation_id=spouse[0]["id"], user_id="u1")
            assert m.orm(lambda: not Relation.objects.filter(pk=spouse[0]["id"]).exists())

            erased = await m.ok(client, "entity_erase", entity_id=ana["id"], user_id="u1")
            assert erased["erased"] == 2 and len(erased["receipts"]) == 2
            left = {e["name"] for e in (await m.ok(client, "entity_list", user_id="u1"))["results"]}
            assert sister not in left and "Bea Silva" in left

    anyio.run(scenario)
    assert not MemoryEntry.objects.filter(content__contains=sister).exists()
    assert scan_database(sister) == {}
    assert ErasureReceipt.objects.filter(via="mcp").count() == 2


def test_an_assistant_asking_about_one_friend_does_not_get_the_group(mcp_url, operator):
    """Through memory_search, as through REST: "my friends" said in the plural is a group of its
    own, which a question about one friend does not reach and a question about the friends does."""
    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    key = api_key_issue(tenant=tenant, scopes=["read", "write"])[1]
    friend = canary("Lena")

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            for text in (
                "My friends took me sailing on the lake for my birthday.",
                f"My friend {friend} teaches maths in Porto.",
                "I had soup for lunch on Friday.",
                "The user prefers aisle seats on trains.",
            ):
                await m.ok(client, "memory_add", content=text, user_id="u1")
            people = {e["name"] for e in (await m.ok(client, "entity_list", user_id="u1"))["results"]}
            assert {friend, "my friends"} <= people

            async def by_graph(query: str) -> set[str]:
                found = (await m.ok(client, "memory_search", query=query, limit=5, user_id="u1"))["results"]
                return {r["content"] for r in found if "graph" in r["reasons"]}

            group = "My friends took me sailing on the lake for my birthday."
            one = await by_graph("What does my friend teach?")
            assert f"My friend {friend} teaches maths in Porto." in one and group not in one
            assert group in await by_graph("Where did my friends take me?")

    anyio.run(scenario)


def test_what_an_assistant_corrects_reaches_its_very_next_search(mcp_url, operator):
    """Recall walks a copy of the graph it keeps in memory: a rename or an ended relation made
    through the MCP server changes the next memory_search at once, never a stale walk."""
    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    key = api_key_issue(tenant=tenant, scopes=["read", "write"])[1]
    lawyer = "Tom is a lawyer in Leeds."

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            for text in (
                "My sister Ana is married to Tom.",
                lawyer,
                "I had soup for lunch on Friday.",
                "The user prefers aisle seats on trains.",
            ):
                await m.ok(client, "memory_add", content=text, user_id="u1")

            async def by_graph(query: str) -> set[str]:
                found = (await m.ok(client, "memory_search", query=query, limit=5, user_id="u1"))["results"]
                return {r["content"] for r in found if "graph" in r["reasons"]}

            husband = "What does my sister's husband do?"
            assert lawyer in await by_graph(husband)
            assert lawyer not in await by_graph("Where does Skipper work?")

            people = {
                e["name"]: e["id"] for e in (await m.ok(client, "entity_list", user_id="u1"))["results"]
            }
            await m.ok(client, "entity_correct", entity_id=people["Tom"], name="Skipper", user_id="u1")
            assert lawyer in await by_graph("Where does Skipper work?")

            spouse = await m.ok(
                client, "relation_list", entity=people["Tom"], predicate="spouse", user_id="u1"
            )
            relation = spouse["results"][0]["id"]
            await m.ok(client, "relation_correct", relation_id=relation, ended=True, user_id="u1")
            assert lawyer not in await by_graph(husband)

    anyio.run(scenario)
