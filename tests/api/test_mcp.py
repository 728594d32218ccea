"""The MCP server with the SDK's own client, over streamable HTTP and stdio: every tool, the
profile resource, credentials and scopes, isolation, and refusals identical to the REST API's."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from api.services import user_token_issue
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="session")
def mcp_url() -> Iterator[str]:
    with m.asgi_server() as url:
        yield url


@pytest.fixture(autouse=True)
def _connections_closed_after_each_call() -> Iterator[None]:
    """The server answers in worker threads; a connection kept open there would outlive the test
    database (as tests/api/conftest.py's live_url does for Django's live server)."""
    from django.db import connections

    conf = connections.settings["default"]
    previous = conf.get("CONN_MAX_AGE", 0)
    conf["CONN_MAX_AGE"] = 0
    yield
    conf["CONN_MAX_AGE"] = previous


def test_it_lists_the_tools(mcp_url, owner_client):
    token = owner_client._credentials["HTTP_AUTHORIZATION"].split()[1]

    async def scenario():
        async with m.http_client(mcp_url, token) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    assert anyio.run(scenario) == m.TOOLS


@pytest.fixture(params=["http", "stdio"])
def connect_owner(request, owner, mcp_url):
    """Opens an MCP client acting for the owner: with their personal token over HTTP, or as
    `manage.py mcp --user alice` over stdio."""
    if request.param == "http":
        token = user_token_issue(user=owner).key
        return lambda: m.http_client(mcp_url, token)
    return lambda: m.stdio_client(owner.username)


def test_every_tool_works_for_a_person(connect_owner, owner):
    async def scenario():
        async with connect_owner() as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == m.TOOLS
            peanuts = await m.ok(
                client, "memory_add", content="The user is severely allergic to peanuts.",
                category="safety", pinned=True,
            )  # fmt: skip
            city = await m.ok(client, "memory_add", content="The user lives in Lyon.", category="profile")
            await m.ok(client, "memory_add", content="The user prefers answers in French.", category="preference")
            assert peanuts["action"] == "added" and peanuts["entry"]["status"] == "active"

            found = await m.ok(client, "memory_search", query="Which foods must I avoid cooking?", limit=5)
            first = found["results"][0]
            assert first["id"] == peanuts["entry"]["id"] and "peanuts" in first["content"]
            assert first["valid_from"] and first["recorded_at"] and first["source"]["kind"] == "api_import"
            assert (await m.ok(client, "memory_search", query="peanuts", at="2001-01-01T00:00:00Z"))["results"] == []
            assert (await m.ok(client, "memory_search", query="peanuts", types=["episodic"]))["results"] == []

            listed = await m.ok(client, "memory_list", limit=2)
            assert listed["count"] == 3 and len(listed["results"]) == 2 and listed["next_offset"] == 2
            assert [r["id"] for r in (await m.ok(client, "memory_list", q="Lyon"))["results"]] == [city["entry"]["id"]]

            got = await m.ok(client, "memory_get", memory_id=city["entry"]["id"])
            assert got["content"] == "The user lives in Lyon." and got["namespace"] == "user/alice"
            fixed = await m.ok(
                client, "memory_correct", memory_id=city["entry"]["id"], content="The user lives in Paris.",
                reason="moved",
            )  # fmt: skip
            assert fixed["supersedes"] == city["entry"]["id"] and fixed["id"] != city["entry"]["id"]
            history = await m.ok(client, "memory_history", memory_id=fixed["id"])
            assert [e["action"] for e in history["events"]][-1] == "corrected"

            picture = (await m.profile(client))["sections"]
            assert [s["content"] for s in picture["safety"]["statements"]] == [
                "The user is severely allergic to peanuts."
            ]
            assert [s["content"] for s in picture["identity"]["statements"]] == ["The user lives in Paris."]
            assert [s["content"] for s in picture["preferences"]["statements"]] == [
                "The user prefers answers in French."
            ]

            job = await m.ok(
                client, "memory_add_messages", conversation="trip-1",
                messages=[
                    {"role": "user", "content": "I'm vegetarian, by the way."},
                    {"role": "assistant", "content": "Noted."},
                ],
            )  # fmt: skip
            assert job["status"] == "done" and job["conversation"] == "trip-1"
            assert MemoryEntry.objects.filter(content__icontains="vegetarian").exists()

            erased = await m.ok(client, "memory_erase", memory_id=peanuts["entry"]["id"])
            assert erased["entries"] == 1
            assert not MemoryEntry.objects.filter(content__icontains="peanut").exists()

            failed, refused = await m.call(client, "memory_erase_all", confirm=False)
            assert failed and refused["errors"] == {"confirm": ["Set confirm to true to erase every memory."]}
            assert MemoryEntry.objects.exists()
            everything = await m.ok(client, "memory_erase_all", confirm=True)
            assert everything["erased"] >= 3 and everything["receipt"]["scope"] == "all"
        return True

    assert anyio.run(scenario)
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()
