"""History added behind newer values closes each window at the next value's date through the
clients too (issue 29): an MCP agent backfilling where the user lived, asked what held at a date,
and mem0's own client adding dated turns out of order. Every reply shows the date the client gave,
not the day it was stored. (REST adds and the text import: `test_history_windows.py`.)"""

from __future__ import annotations

from datetime import datetime

import anyio
import pytest

from api.services import api_key_issue, tenant_create, user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("closed_connections")]

# Moves told newest first, then the oldest, then the one between; the dates they held from.
MOVES = [
    ("The user lives in Porto.", "2024-03-10"),
    ("The user lives in Ghent.", "2020-09-01"),
    ("The user lives in Lund.", "2022-02-14"),
]
WINDOWS = {
    "The user lives in Ghent.": ("2020-09-01", "2022-02-14"),
    "The user lives in Lund.": ("2022-02-14", "2024-03-10"),
    "The user lives in Porto.": ("2024-03-10", None),
}


def _windows() -> dict[str, tuple[str, str | None]]:
    return {
        entry.content: (
            entry.valid_from.date().isoformat(),
            entry.valid_to.date().isoformat() if entry.valid_to else None,
        )
        for entry in MemoryEntry.objects.all()
    }


def test_an_agent_backfilling_moves_over_mcp_is_answered_as_of_each_date(owner, mcp_url):
    token = user_token_issue(user=owner).key

    async def scenario() -> dict[str, list[dict]]:
        async with m.http_client(mcp_url, token) as client:
            for content, day in MOVES:
                await m.ok(client, "memory_add", content=content, valid_from=f"{day}T09:00:00+00:00")
            asked = {}
            for instant in ("2021-06-01", "2023-01-01", "2025-05-05"):
                found = await m.ok(
                    client, "memory_search", query="Which city does the user live in?",
                    at=f"{instant}T00:00:00+00:00", limit=3,
                )  # fmt: skip
                asked[instant] = [*found["results"], *found["always"]]
            return asked

    asked = anyio.run(scenario)
    assert _windows() == WINDOWS
    expected = {"2021-06-01": "Ghent", "2023-01-01": "Lund", "2025-05-05": "Porto"}
    for instant, city in expected.items():
        cities = [item["content"] for item in asked[instant] if "lives in" in item["content"]]
        assert cities == [f"The user lives in {city}."], (instant, cities)
        [shown] = [item for item in asked[instant] if city in item["content"]]
        start, end = WINDOWS[shown["content"]]
        assert shown["valid_from"].startswith(start), shown
        assert (shown["valid_to"] or "").startswith(end or ""), shown


def test_mem0s_client_adding_dated_moves_out_of_order_keeps_one_current_city(live_url, operator):
    from mem0 import MemoryClient

    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    _key, plaintext = api_key_issue(tenant=tenant, scopes=["read", "write"])
    mem0 = MemoryClient(api_key=plaintext, host=live_url)
    for content, day in MOVES:
        said = int(datetime.fromisoformat(f"{day}T09:00:00+00:00").timestamp())
        mem0.add([{"role": "user", "content": content}], user_id="alice", infer=False, timestamp=said)

    assert _windows() == WINDOWS
    current = MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)
    assert list(current.values_list("content", flat=True)) == ["The user lives in Porto."]
    listed = mem0.get_all(filters={"user_id": "alice"})["results"]
    assert [memory["memory"] for memory in listed] == ["The user lives in Porto."]
    [found] = mem0.search("Where does the user live?", filters={"user_id": "alice"})["results"]
    assert found["memory"] == "The user lives in Porto."
    assert found["timestamp"].startswith("2024-03-10") and found["created_at"].startswith("2024-03-10")
