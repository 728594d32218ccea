"""After an erasure no process keeps the erased words in memory: the caches keyed by text (query
vectors, judgement scores, secret scans, graph questions, the graphs) are emptied at once in the
process that erased, and in any other process at its next write or recall after the erasure
committed, as the sequence every erasure moves tells it."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.db import connection

from memory_core import process_caches
from memory_core.embeddings import query_cache
from memory_core.judgement import scores
from tests.api.entities_helpers import add, recall


def _fill(client: Any, user: str = "u1") -> dict[str, Any]:
    """A memory and a question about it: every cache of the write and read paths holds words."""
    entry = add(client, "My nephew Oskarsson Tiberius keeps bees in Kilnsea.", user=user)
    add(client, "我的外甥在青岛养蜂。", user=user)
    recall(client, "Who keeps bees in Kilnsea?", user=user)
    recall(client, "我的外甥在哪里养蜂？", user=user)  # noqa: RUF001
    assert process_caches.held() > 0
    assert any("Kilnsea" in key[2] for key in query_cache._items)
    return entry


@pytest.mark.django_db(transaction=True)
def test_erasing_through_rest_empties_this_processs_caches(key_client):
    entry = _fill(key_client)
    erased = key_client.delete(f"/api/v1/memories/{entry['entry']['id']}/?user_id=u1")
    assert erased.status_code == 204
    assert process_caches.held() == 0
    assert scores.cache_info().currsize == 0

    # The product goes on: the next question is answered, and what remains is still found.
    assert "我的外甥在青岛养蜂。" in [i["entry"]["content"] for i in recall(key_client, "外甥 养蜂")]
    assert "Kilnsea" not in str(recall(key_client, "Who keeps bees in Kilnsea?"))


@pytest.mark.django_db(transaction=True)
def test_erase_all_through_rest_empties_them_too(key_client):
    _fill(key_client)
    erased = key_client.post("/api/v1/memories/erase-all/", {"user_id": "u1", "confirm": True}, format="json")
    assert erased.status_code in (200, 202), erased.content
    assert process_caches.held() == 0


@pytest.mark.django_db(transaction=True)
def test_another_processs_erasure_empties_them_at_the_next_recall(key_client):
    _fill(key_client)
    # Another process's erasure committed: it moved the sequence from its own connection.
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT nextval('memory_erasure_seq')")
    assert process_caches.held() > 0  # nothing here knows yet
    recall(key_client, "What does the user like?")
    assert not any("Kilnsea" in key[2] for key in query_cache._items)
    assert scores.cache_info().currsize == 0


@pytest.mark.django_db(transaction=True)
def test_another_processs_erasure_empties_them_at_the_next_write(key_client):
    _fill(key_client)
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT nextval('memory_erasure_seq')")
    add(key_client, "The user prefers window seats.")
    assert not any("Kilnsea" in key[2] for key in query_cache._items)


@pytest.mark.django_db(transaction=True)
def test_writes_and_recalls_without_erasures_keep_their_caches(key_client):
    _fill(key_client)
    before = scores.cache_info().currsize
    recall(key_client, "Who keeps bees in Kilnsea?")
    assert scores.cache_info().currsize >= before > 0
    assert any("Kilnsea" in key[2] for key in query_cache._items)


@pytest.mark.django_db(transaction=True)
def test_mem0s_client_deleting_a_memory_empties_them(live_url, operator):
    from mem0 import MemoryClient

    from api.services import api_key_issue, tenant_create

    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    _key, plaintext = api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])
    mem0 = MemoryClient(api_key=plaintext, host=live_url)
    mem0.add(
        [{"role": "user", "content": "Wilfreda grows purple carrots on plot nine."}],
        user_id="al",
        infer=False,
    )
    [found] = mem0.search("Who grows purple carrots?", filters={"user_id": "al"})["results"][:1]
    assert process_caches.held() > 0
    mem0.delete(found["id"])
    assert process_caches.held() == 0


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("closed_connections")
def test_an_agent_erasing_over_mcp_empties_them(owner, mcp_url):
    import anyio

    from api.services import user_token_issue
    from tests.api import mcp_helpers as m

    async def scenario() -> None:
        async with m.http_client(mcp_url, user_token_issue(user=owner).key) as client:
            added = await m.ok(client, "memory_add", content="Ottoline rings the church bells on Thursdays.")
            await m.ok(client, "memory_search", query="Who rings the bells on Thursdays?")
            assert process_caches.held() > 0
            await m.ok(client, "memory_erase", memory_id=added["entry"]["id"])

    anyio.run(scenario)
    assert process_caches.held() == 0
