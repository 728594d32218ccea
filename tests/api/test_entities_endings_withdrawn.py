"""An ending goes with the statement that said it (issue 29): erase or correct "I divorced Marco"
and the graph no longer knows the marriage ended (nor when), through REST, mem0's client and MCP.
Another statement's ending still holds; a newer spouse still closes the old marriage; an end the
user set on the relation stands."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from api.services import api_key_issue, tenant_create, user_token_issue
from memory_core.entities.models import Relation, RelationEnding
from tests.api import mcp_helpers as m
from tests.api.entities_helpers import add, namespace_of, recall, relations

SPOUSE = {"predicate": "spouse"}


def _window(namespace: Any, name: str) -> tuple[str, str | None]:
    (relation,) = [r for r in relations(namespace, **SPOUSE) if r.object and r.object.name == name]
    return relation.status, relation.valid_to.date().isoformat() if relation.valid_to else None


def _erase(client: Any, entry: dict[str, Any]) -> None:
    response = client.delete(f"/api/v1/memories/{entry['entry']['id']}/?user_id=u1")
    assert response.status_code == 204, response.content


def _graph(items: list[dict[str, Any]], content: str) -> float:
    return next((i["breakdown"]["graph"] for i in items if i["entry"]["content"] == content), 0.0)


@pytest.mark.django_db
def test_erasing_the_divorce_reopens_the_marriage(key_client):
    first = add(key_client, "My husband is Marco.", valid_from="2019-01-10T00:00:00Z")
    add(key_client, "Marco is a chef at Lumen.", valid_from="2019-02-01T00:00:00Z")
    divorce = add(key_client, "I divorced Marco.", valid_from="2023-03-01T00:00:00Z")
    namespace = namespace_of(first)
    assert _window(namespace, "Marco") == ("superseded", "2023-03-01")
    assert (
        _graph(
            recall(key_client, "What does my husband do?", at="2024-01-01T00:00:00Z"),
            "Marco is a chef at Lumen.",
        )
        == 0
    )

    _erase(key_client, divorce)
    assert _window(namespace, "Marco") == ("active", None)
    assert not RelationEnding.objects.filter(namespace=namespace).exists()
    later = recall(key_client, "What does my husband do?", at="2024-01-01T00:00:00Z")
    assert _graph(later, "Marco is a chef at Lumen.") > 0


@pytest.mark.django_db
def test_another_statement_of_the_end_still_ends_it(key_client):
    first = add(key_client, "我的丈夫叫建国。", valid_from="2015-05-01T00:00:00Z")
    told = add(key_client, "我和建国离婚了。", valid_from="2021-06-01T00:00:00Z")
    add(key_client, "我跟建国已经离婚了。", valid_from="2022-02-01T00:00:00Z")
    namespace = namespace_of(first)
    assert _window(namespace, "建国") == ("superseded", "2021-06-01")

    _erase(key_client, told)  # the earlier one goes; the later one still says it ended
    assert _window(namespace, "建国") == ("superseded", "2022-02-01")


@pytest.mark.django_db
def test_correcting_the_divorce_withdraws_it(key_client):
    first = add(key_client, "My wife is Ines.", valid_from="2018-01-01T00:00:00Z")
    divorce = add(key_client, "I divorced Ines.", valid_from="2022-01-01T00:00:00Z")
    namespace = namespace_of(first)
    corrected = key_client.patch(
        f"/api/v1/memories/{divorce['entry']['id']}/?user_id=u1",
        {"content": "I visited Ines's parents in Porto."},
        format="json",
    )
    assert corrected.status_code == 200, corrected.content
    assert _window(namespace, "Ines") == ("active", None)


@pytest.mark.django_db
def test_a_newer_spouse_still_closes_the_old_marriage(key_client):
    first = add(key_client, "My husband is Marco.", valid_from="2010-01-01T00:00:00Z")
    divorce = add(key_client, "I divorced Marco.", valid_from="2015-01-01T00:00:00Z")
    add(key_client, "My husband is Greg.", valid_from="2018-06-01T00:00:00Z")
    namespace = namespace_of(first)

    _erase(key_client, divorce)
    assert _window(namespace, "Marco") == ("superseded", "2018-06-01")
    assert _window(namespace, "Greg") == ("active", None)
    assert Relation.objects.get(namespace=namespace, object__name="Marco").superseded_by.object.name == "Greg"


@pytest.mark.django_db
def test_an_end_the_user_set_stands(key_client):
    first = add(key_client, "My partner is Robin.", valid_from="2016-01-01T00:00:00Z")
    breakup = add(key_client, "I broke up with Robin.", valid_from="2020-01-01T00:00:00Z")
    namespace = namespace_of(first)
    (partner,) = relations(namespace, predicate="partner")
    ended = key_client.patch(
        f"/api/v1/relations/{partner.pk}/?user_id=u1", {"valid_to": "2019-07-01T00:00:00Z"}, format="json"
    )
    assert ended.status_code == 200, ended.content

    _erase(key_client, breakup)
    partner.refresh_from_db()
    assert (partner.status, partner.valid_to.date().isoformat()) == ("superseded", "2019-07-01")


# --- the clients ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_mem0s_client_deleting_the_breakup_reopens_the_partnership(live_url, operator):
    from mem0 import MemoryClient

    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    _key, plaintext = api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])
    mem0 = MemoryClient(api_key=plaintext, host=live_url)
    mem0.add([{"role": "user", "content": "My girlfriend is Leonie."}], user_id="alice", infer=False)
    mem0.add([{"role": "user", "content": "Leonie and I broke up."}], user_id="alice", infer=False)
    (partner,) = Relation.objects.filter(predicate="partner")
    assert partner.status == "superseded"

    listed = mem0.get_all(filters={"user_id": "alice"})["results"]
    (breakup,) = [memory for memory in listed if "broke up" in memory["memory"]]
    mem0.delete(breakup["id"])
    partner.refresh_from_db()
    assert (partner.status, partner.valid_to) == ("active", None)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("closed_connections")
def test_an_agent_erasing_the_move_over_mcp_is_answered_as_living_there(owner, mcp_url):
    token = user_token_issue(user=owner).key

    async def scenario() -> tuple[list[str], list[str]]:
        async with m.http_client(mcp_url, token) as client:
            await m.ok(client, "memory_add", content="我住在杭州。", valid_from="2017-03-01T00:00:00Z")
            moved = await m.ok(
                client, "memory_add", content="我搬出了杭州。", valid_from="2023-08-01T00:00:00Z"
            )
            at = "2024-05-01T00:00:00Z"
            before = await m.ok(client, "relation_list", predicate="lives_in", at=at)
            await m.ok(client, "memory_erase", memory_id=moved["entry"]["id"])
            after = await m.ok(client, "relation_list", predicate="lives_in", at=at)
            return [r["object"]["name"] for r in before["results"]], [
                r["object"]["name"] for r in after["results"]
            ]

    before, after = anyio.run(scenario)
    assert before == []
    assert after == ["杭州"]
