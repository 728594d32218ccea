"""Recall as a client is served it: the memories that answer the question fill the ranked slots,
the always-recall facts (pinned, safety, profile) come apart and never take one, and a budget
that leaves items out says so. Through REST, mem0's client and MCP, in English and Chinese."""

from __future__ import annotations

import anyio
import pytest

from api.models import TenantNamespace
from api.services import api_key_issue, tenant_create
from tests.api import mcp_helpers as m

pytestmark = pytest.mark.django_db(transaction=True)

WORLDS = {
    "en": {
        "always": [
            {"content": "The user is allergic to sesame.", "category": "safety", "pinned": True},
            {"content": "The user's name is Priya.", "category": "profile", "key": "name"},
            {"content": "The user lives in Bristol.", "category": "profile", "key": "home_city"},
            {"content": "The user uses a wheelchair.", "category": "safety", "pinned": True},
        ],
        "answer": "The user's tabby cat is called Biscuit.",
        "others": ["The user plays five-a-side on Thursdays.", "The user is reading a novel about whales."],
        "question": "What's my cat called?",
    },
    "zh": {
        "always": [
            {"content": "用户对芝麻过敏。", "category": "safety", "pinned": True},
            {"content": "用户叫林小雨。", "category": "profile", "key": "name"},
            {"content": "用户住在成都。", "category": "profile", "key": "home_city"},
        ],
        "answer": "用户养了一只叫汤圆的橘猫。",
        "others": ["用户每周四踢足球。", "用户最近在读一本关于鲸鱼的小说。"],
        "question": "我的猫叫什么名字\uff1f",
    },
}


def _fill(client, world: dict, user: str = "u1") -> None:
    for body in [*world["always"], {"content": world["answer"]}, *({"content": c} for c in world["others"])]:
        response = client.post("/api/v1/memories/", {"user_id": user, **body}, format="json")
        assert response.status_code == 201, response.content


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_answer_takes_the_first_slot_on_rest(key_client, lang):
    world = WORLDS[lang]
    _fill(key_client, world)

    body = key_client.post(
        "/api/v1/recall/", {"user_id": "u1", "query": world["question"], "limit": 2}, format="json"
    ).json()

    assert body["items"][0]["entry"]["content"] == world["answer"]
    assert len(body["items"]) <= 2
    always = {item["entry"]["content"] for item in body["always"]}
    assert {fact["content"] for fact in world["always"] if fact.get("pinned")} <= always
    assert not always & {item["entry"]["content"] for item in body["items"]}
    # The prompt block still forces the safety facts in, before the answer.
    block = body["prompt_block"]
    assert block.index(world["always"][0]["content"]) < block.index(world["answer"])


def test_without_a_budget_limit_items_come_back_and_a_budget_that_trims_says_so(key_client):
    for n in range(25):
        body = {"user_id": "u1", "content": f"The user watched film number {n} at the Odeon cinema."}
        assert key_client.post("/api/v1/memories/", body, format="json").status_code == 201
    _fill(key_client, WORLDS["en"])

    def recall(**extra) -> dict:
        body = {"user_id": "u1", "query": "films I watched at the Odeon cinema", "limit": 20, **extra}
        response = key_client.post("/api/v1/recall/", body, format="json")
        assert response.status_code == 200, response.content
        return response.json()

    unbounded = recall()
    assert len(unbounded["items"]) == 20 and unbounded["trimmed"] == 0
    assert all("Odeon" in item["entry"]["content"] for item in unbounded["items"])
    tight = recall(budget_tokens=120)
    assert 0 < len(tight["items"]) < 20 and tight["trimmed"] == 20 - len(tight["items"])
    assert sum(item["tokens"] for item in tight["items"]) <= 120
    assert len(tight["always"]) == len(unbounded["always"]) >= 2  # apart: not in the budget
    zero = {"user_id": "u1", "query": "films", "budget_tokens": 0}
    bad = key_client.post("/api/v1/recall/", zero, format="json")
    assert bad.status_code == 400 and "budget_tokens" in bad.json()["errors"]


@pytest.fixture
def tenant_key(operator):
    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    _key, plaintext = api_key_issue(tenant=tenant, scopes=["read", "write"])
    return plaintext


def test_the_answer_takes_the_first_slot_for_mem0s_client(live_url, tenant_key):
    from mem0 import MemoryClient

    mem0 = MemoryClient(api_key=tenant_key, host=live_url)
    world = WORLDS["en"]
    for fact in world["always"]:
        mem0.add(fact["content"], user_id="priya", infer=False)
    for text in [world["answer"], *world["others"]]:
        mem0.add(text, user_id="priya", infer=False)
    assert TenantNamespace.objects.count() == 1

    found = mem0.search(world["question"], filters={"user_id": "priya"}, top_k=2)["results"]

    assert found and found[0]["memory"] == world["answer"] and len(found) <= 2


def test_the_answer_takes_the_first_slot_over_mcp(mcp_url, tenant_key, client):
    from tests.api.conftest import client_with

    world = WORLDS["zh"]
    _fill(client_with(tenant_key), world)

    async def scenario() -> dict:
        async with m.http_client(mcp_url, tenant_key) as mcp:
            return await m.ok(mcp, "memory_search", query=world["question"], limit=2, user_id="u1")

    found = anyio.run(scenario)
    assert found["results"][0]["content"] == world["answer"] and len(found["results"]) <= 2
    assert "用户对芝麻过敏。" in {fact["content"] for fact in found["always"]}
