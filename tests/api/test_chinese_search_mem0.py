"""Chinese search through the unmodified mem0ai `MemoryClient` against a live server."""

# ruff: noqa: RUF001 - Chinese punctuation is what these tests type

from __future__ import annotations

import pytest

from api.services import api_key_issue, tenant_create

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def mem0(live_url, operator):
    from mem0 import MemoryClient

    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    _key, plaintext = api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])
    return MemoryClient(api_key=plaintext, host=live_url)


def test_mem0_search_finds_a_chinese_memory_by_a_word_inside_it(mem0):
    badge_text = "我的工牌号是EMP-30418，丢了找行政补办。"
    for text in ("我周末常去西湖边骑自行车。", badge_text, "我最近在学做川菜。"):
        added = mem0.add(text, user_id="li", infer=False)
        assert added["status"] == "SUCCEEDED"

    bike = mem0.search("骑车去哪儿？", filters={"user_id": "li"}, top_k=3)["results"]
    badge = mem0.search("工牌丢了怎么办", filters={"user_id": "li"}, top_k=3)["results"]
    by_id = mem0.search("EMP-30418", filters={"user_id": "li"}, top_k=3)["results"]

    assert bike[0]["memory"] == "我周末常去西湖边骑自行车。"
    assert badge[0]["memory"] == by_id[0]["memory"] == badge_text
