"""POST /api/v1/recall/: ranked entries with their score breakdown, the prompt block, the budget."""

from __future__ import annotations

import pytest

from memory_core.lifecycle import memory_pause
from memory_core.models import RecallLog

pytestmark = pytest.mark.django_db


@pytest.fixture
def remembered(key_client):
    for body in [
        {"content": "The user is severely allergic to peanuts.", "category": "safety", "pinned": True},
        {"content": "The user lives in Shanghai.", "key": "home_city", "category": "profile"},
        {"content": "On 2026-06-29 refund RF20260629001 was filed for order 88231.", "type": "episodic"},
        {"content": "The user enjoys hiking in the mountains."},
    ]:
        assert (
            key_client.post("/api/v1/memories/", {"user_id": "u1", **body}, format="json").status_code == 201
        )
    return key_client


def recall(client, **body):
    response = client.post("/api/v1/recall/", {"user_id": "u1", **body}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_it_ranks_with_a_breakdown_and_a_prompt_block(remembered):
    result = recall(remembered, query="What happened with refund RF20260629001?")
    contents = [item["entry"]["content"] for item in result["items"]]
    # The answer first; the pinned allergy (no answer to this) apart, first in the prompt block.
    assert contents[0] == "On 2026-06-29 refund RF20260629001 was filed for order 88231."
    always = [item["entry"]["content"] for item in result["always"]]
    assert always[0] == "The user is severely allergic to peanuts." and always[0] not in contents
    assert result["prompt_block"].index("peanuts") < result["prompt_block"].index("RF20260629001")
    refund = next(item for item in result["items"] if "RF2026" in item["entry"]["content"])
    assert set(refund["breakdown"]) == {
        "similarity",
        "context",
        "keyword",
        "time",
        "names",
        "recency",
        "importance",
        "confidence",
        "graph",
        "neighbour",
    }
    assert "keyword" in refund["reasons"] and refund["score"] > 0
    assert "RF20260629001" in result["prompt_block"] and result["tokens"] > 0
    logged = len(result["items"]) + len(result["always"])
    assert RecallLog.objects.filter(turn_ref=result["turn_ref"]).count() == logged


def test_it_respects_limit_budget_and_types(remembered):
    assert len(recall(remembered, query="hiking", limit=1)["items"]) == 1
    small = recall(remembered, query="hiking", budget_tokens=20)
    assert sum(item["tokens"] for item in small["items"]) <= 20
    events = recall(remembered, query="refund", types=["episodic"])
    assert {item["entry"]["type"] for item in events["items"]} == {"episodic"}


def test_it_recalls_as_of_a_point_in_time(remembered, key_client):
    key_client.post(
        "/api/v1/memories/",
        {"user_id": "u1", "content": "The user lives in Beijing.", "key": "home_city"},
        format="json",
    )
    now = recall(key_client, query="Where does the user live?")
    assert "The user lives in Beijing." in now["prompt_block"]
    assert "Shanghai" not in now["prompt_block"]
    past = recall(key_client, query="Where does the user live?", at="2000-01-01T00:00:00Z")
    assert past["items"] == []


def test_it_recalls_nothing_for_unknown_or_paused_users(remembered):
    assert recall(remembered, user_id="nobody", query="peanuts")["items"] == []
    from api.models import TenantUser

    memory_pause(actor=TenantUser.objects.get(external_id="u1").user, paused=True)
    assert recall(remembered, query="peanuts")["items"] == []


def test_a_recalled_entry_is_the_whole_memory_as_its_own_page_shows_it(key_client):
    """Recall reads its candidates slim and the returned entries whole: every field a client sees
    (timestamps to the microsecond, metadata, validity, provenance) is the memory's own, with or
    without recording, and the access count is the one before this recall."""
    created = key_client.post(
        "/api/v1/memories/",
        {
            "user_id": "u1",
            "content": "Mira's cello lesson moved to Thursdays at 17:30.",
            "metadata": {"source": "school newsletter", "weeks": [1, 2, 3]},
            "valid_from": "2026-03-04T05:06:07.123456+00:00",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    memory_id = created.json()["entry"]["id"]

    def page() -> dict:
        return key_client.get(f"/api/v1/memories/{memory_id}/?user_id=u1").json()

    for query in ("When is the cello lesson?", "cello Thursdays"):
        before = page()
        result = recall(key_client, query=query)
        entry = next(item["entry"] for item in result["items"] if item["entry"]["id"] == memory_id)
        shared = [name for name in before if name in entry]
        assert len(shared) > 15
        assert {name: entry[name] for name in shared} == {name: before[name] for name in shared}
        assert entry["valid_from"].startswith("2026-03-04T05:06:07.123456")
        assert entry["metadata"] == {"source": "school newsletter", "weeks": [1, 2, 3]}
        assert page()["access_count"] == before["access_count"] + 1
