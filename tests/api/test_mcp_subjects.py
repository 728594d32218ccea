"""The MCP authorization matrix for subjects: a tenant key that names one of its end users
(`user_id`) reaches that user's objects only. Every tool that takes an object's id (derived from the
server's own tool list) answers another end user's object with the REST API's 404, and leaves it
as it was; naming the owner reaches it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from memory_core.entities.models import Entity, Relation
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.conftest import client_with
from tests.api.entities_helpers import add

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("closed_connections")]

ADDRESS = {"user_id", "agent_id"}
# Tools whose input is refused (400) before any lookup unless one of their optional fields is given.
VALID_INPUT = {"entity_correct": {"name": "Anna"}, "relation_correct": {"ended": True}}


def _by_id_tools(tools: list[Any]) -> dict[str, list[str]]:
    """Each tool that takes an object's id, with its required arguments."""
    found = {}
    for tool in tools:
        required = [name for name in tool.input_schema.get("required", []) if name not in ADDRESS]
        if any(name.endswith("_id") for name in required):
            found[tool.name] = required
    return found


def test_naming_another_end_user_never_reaches_this_ones_objects(mcp_url, tenant, make_key):
    key = make_key(tenant)
    rest = client_with(key)
    memory = add(rest, "My sister Ana is a nurse.")["entry"]["id"]
    add(rest, "My colleague Bea plays chess.")
    add(rest, "The user plays the oboe.", user="u2")  # u2 exists and holds memories of their own
    ana = Entity.objects.get(name="Ana")
    bea = Entity.objects.get(name="Bea")
    relation = Relation.objects.get(predicate="sibling", object=ana)
    job = rest.post(
        "/api/v1/extractions/",
        {"user_id": "u1", "messages": [{"role": "user", "content": "I live in Oslo."}]},
        format="json",
    ).json()["id"]
    counts = MemoryEntry.objects.count(), Relation.objects.count()
    # What each required argument is, pointed at u1's objects.
    arguments = {
        "memory_id": memory,
        "entity_id": str(ana.pk),
        "relation_id": str(relation.pk),
        "content": "The user has no sister.",
        "into": str(bea.pk),
        "job_id": job,
        "subject_id": str(ana.pk),
        "predicate": "friend",
    }
    VALID_INPUT["relation_create"] = {"object_id": str(bea.pk)}
    rest_404 = {
        "memory_id": rest.get(f"/api/v1/memories/{memory}/?user_id=u2"),
        "entity_id": rest.get(f"/api/v1/entities/{ana.pk}/?user_id=u2"),
        "relation_id": rest.get(f"/api/v1/relations/{relation.pk}/?user_id=u2"),
        "job_id": rest.get(f"/api/v1/extractions/{job}/?user_id=u2"),
    }
    rest_404["subject_id"] = rest_404["entity_id"]
    assert {name: answer.status_code for name, answer in rest_404.items()} == dict.fromkeys(rest_404, 404)

    async def scenario():
        async with m.http_client(mcp_url, key) as client:
            tools = _by_id_tools((await client.list_tools()).tools)
            answers = {}
            for tool, required in tools.items():
                missing = [name for name in required if name not in arguments]
                assert not missing, f"{tool}: no value for {missing} in this matrix"
                given = {name: arguments[name] for name in required} | VALID_INPUT.get(tool, {})
                answers[tool] = (given, await m.call(client, tool, **given, user_id="u2"))
            owner_reads = [
                await m.call(client, "memory_get", memory_id=memory, user_id="u1"),
                await m.call(client, "entity_get", entity_id=str(ana.pk), user_id="u1"),
                await m.call(client, "relation_get", relation_id=str(relation.pk), user_id="u1"),
            ]
            return answers, owner_reads

    answers, owner_reads = anyio.run(scenario)
    # The tools of memories, people and relations that take an id: all of them are here.
    assert {
        "memory_get", "memory_erase", "memory_job", "entity_get", "entity_merge", "entity_observe",
        "relation_erase", "relation_create",
    } <= set(answers)  # fmt: skip
    for tool, (given, (failed, body)) in answers.items():
        kind = next(name for name in given if name in rest_404)
        assert failed and body == {**rest_404[kind].json(), "status": 404}, (tool, body)
    assert [failed for failed, _ in owner_reads] == [False, False, False]
    # Nothing of u1's changed.
    assert MemoryEntry.objects.filter(pk=memory, status="active", content__contains="sister Ana").exists()
    assert Entity.objects.filter(pk=ana.pk, name="Ana").exists() and Entity.objects.filter(pk=bea.pk).exists()
    assert Relation.objects.filter(pk=relation.pk, valid_to=None).exists()
    assert (MemoryEntry.objects.count(), Relation.objects.count()) == counts  # nothing linked or observed


def test_every_tool_needs_its_scope_as_the_api_would(mcp_url, tenant, make_key):
    """Derived from the server's own tool list: a tool marked read-only needs `read`, a destructive
    one `erase`, any other `write`. A key without that scope is refused with the REST API's 403 body;
    with it, the call is not refused for scope."""
    rest = client_with(make_key(tenant))
    memory = add(rest, "My sister Ana is a nurse.")["entry"]["id"]
    add(rest, "My colleague Bea plays chess.")
    ana, bea = Entity.objects.get(name="Ana"), Entity.objects.get(name="Bea")
    relation = Relation.objects.get(predicate="sibling", object=ana)
    job = rest.post(
        "/api/v1/extractions/",
        {"user_id": "u1", "messages": [{"role": "user", "content": "I like tea."}]},
        format="json",
    ).json()["id"]
    values = {
        "memory_id": memory, "entity_id": str(ana.pk), "relation_id": str(relation.pk), "job_id": job,
        "subject_id": str(ana.pk), "object_id": str(bea.pk), "predicate": "friend", "into": str(bea.pk),
        "content": "The user likes green tea.", "query": "tea", "confirm": True,
        "messages": [{"role": "user", "content": "I like green tea."}], "q": "Ana",
    }  # fmt: skip
    extra = {"entity_correct": {"name": "Anna"}, "relation_correct": {"ended": True}}
    reader, writer = make_key(tenant, ["read"]), make_key(tenant, ["read", "write"])

    async def scenario():
        answers = {}
        for key in (reader, writer):
            async with m.http_client(mcp_url, key) as client:
                for tool in (await client.list_tools()).tools:
                    hints = tool.annotations
                    needs = "read" if hints.read_only_hint else "erase" if hints.destructive_hint else "write"
                    required = [n for n in tool.input_schema.get("required", []) if n not in ADDRESS]
                    given = {n: values[n] for n in required} | extra.get(tool.name, {})
                    answers[(key, tool.name)] = (
                        needs,
                        await m.call(client, tool.name, **given, user_id="u1"),
                    )
        return answers

    answers = anyio.run(scenario)
    assert {name for _key, name in answers} == m.TOOLS
    for (key, tool), (needs, (failed, body)) in answers.items():
        allowed = needs == "read" or (needs == "write" and key == writer)
        if allowed:
            assert body.get("status") != 403, (tool, body)
        else:
            path = "/api/v1/memories/erase-all/" if needs == "erase" else "/api/v1/memories/"
            body_in = {"user_id": "u1", "confirm": True, "content": "x"}
            rest_body = client_with(key).post(path, body_in, format="json").json()
            assert failed and body == {**rest_body, "status": 403}, (tool, body)
            assert body["detail"] == f"This API key lacks the '{needs}' scope."
