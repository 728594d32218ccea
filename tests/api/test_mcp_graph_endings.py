"""Issue 29 through MCP, with the SDK's own client: a transcript's speaker owns the relations they
state, and a divorce said in Chinese closes the marriage, so `relation_list` at an instant after it
no longer lists the ex-husband, while one before it does."""

from __future__ import annotations

import anyio
import pytest

from api.services import user_token_issue
from tests.api import mcp_helpers as m

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("closed_connections")]


def test_speakers_and_an_ended_marriage_through_mcp(owner, mcp_url):
    token = user_token_issue(user=owner).key

    async def scenario():
        async with m.http_client(mcp_url, token) as client:
            await m.ok(client, "memory_add", content="Nadia: My son Felix plays the drums.")
            await m.ok(client, "memory_add", content="我的丈夫叫建国。", valid_from="2016-04-01T00:00:00Z")
            await m.ok(client, "memory_add", content="我和建国离婚了。", valid_from="2022-11-01T00:00:00Z")

            children = (await m.ok(client, "relation_list", predicate="child"))["results"]
            assert [(r["subject"]["name"], r["object"]["name"]) for r in children] == [("Nadia", "Felix")]

            def spouses(page: dict) -> list[str]:
                return [r["object"]["name"] for r in page["results"]]

            before = await m.ok(client, "relation_list", predicate="spouse", at="2020-01-01T00:00:00Z")
            after = await m.ok(client, "relation_list", predicate="spouse", at="2023-01-01T00:00:00Z")
            assert spouses(before) == ["建国"]
            assert spouses(after) == []
            (ended,) = (await m.ok(client, "relation_list", predicate="spouse", history=True))["results"]
            assert ended["valid_to"].startswith("2022-11-01")

    anyio.run(scenario)
