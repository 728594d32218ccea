"""A name given in the next message by a pronoun ("My amma lives with us and I take care of her." …
"Her name is Lakshmi."; "我媽媽…現在都是我在照顧她" … "她叫陳美玉, 有早期失智症") names the one of the
user's kin the message before spoke of, so that what is said of them by name later is read as of
that person: a mother in the user's care has her condition pinned. Only when the message before
spoke of exactly one the pronoun can stand for, in the same conversation (within half an hour).
Through REST, mem0 and MCP; English, traditional Chinese and Cantonese."""

from __future__ import annotations

from datetime import timedelta

import pytest

from api.services import user_token_issue
from memory_core.entities.models import Entity
from memory_core.models import MemoryEntry
from tests.api import mcp_helpers as m
from tests.api.test_people_known_safety import _entry, _mem0_add, _rest_add

pytestmark = pytest.mark.django_db

# (the kin and the user's care of them, the name by a pronoun, a condition of theirs by name alone)
NAMED_NEXT = [
    ("My amma lives with us and I take care of her.", "Her name is Lakshmi.", "Lakshmi has kidney disease."),
    (
        "我媽媽上個月搬來跟我們住，現在都是我在照顧她。",  # noqa: RUF001
        "她叫陳美玉，今年七十九。",  # noqa: RUF001
        "陳美玉有早期失智症，晚上會起來到處走。",  # noqa: RUF001
    ),
    (
        "阿爸而家同我住，日常都係我照顧佢。",  # noqa: RUF001
        "佢叫何志強。",
        "何志強右邊身半身不遂，要用輪椅。",  # noqa: RUF001
    ),
    (
        "Grandad moved in with us and I'm his full-time carer now.",
        "Oh, his name's Alfred.",
        "Alfred has COPD.",
    ),
]


def _people(content: str) -> dict[str, list[str]]:
    namespace = MemoryEntry.objects.filter(content=content).first().namespace_id
    return {e.name: sorted(e.aliases) for e in Entity.objects.filter(namespace_id=namespace, is_self=False)}


@pytest.mark.parametrize(("kin", "named", "condition"), NAMED_NEXT)
def test_rest_names_the_kin_of_the_message_before(key_client, kin, named, condition):
    for said in (kin, named):
        _rest_add(key_client, said)
    body = _rest_add(key_client, condition)

    name = condition.split()[0] if condition.isascii() else condition[:3]
    assert any(person == name for person in _people(kin)), _people(kin)
    assert body["entry"]["pinned"] is True


def test_a_pronoun_that_could_stand_for_two_names_no_one(key_client):
    _rest_add(key_client, "My mum and my sister came round for lunch.")
    _rest_add(key_client, "Her name is Pat.")

    assert "Pat" not in _people("My mum and my sister came round for lunch.")


def test_a_pronoun_names_no_one_of_the_other_sex(key_client):
    _rest_add(key_client, "My dad is visiting next week.")
    _rest_add(key_client, "Her name is Pat.")

    assert "Pat" not in _people("My dad is visiting next week.")


def test_the_message_before_must_be_of_the_same_conversation(key_client):
    _rest_add(key_client, "My amma lives with us and I take care of her.")
    MemoryEntry.objects.update(created_at=MemoryEntry.objects.get().created_at - timedelta(hours=2))
    _rest_add(key_client, "Her name is Lakshmi.")

    assert "Lakshmi" not in _people("My amma lives with us and I take care of her.")


def test_mem0(key_client):
    for said in (
        "I look after my nan, she lives with us.",
        "Her name's Dorothy.",
        "Dorothy has heart failure.",
    ):
        _mem0_add(key_client, said)

    assert _entry("Dorothy has heart failure.").pinned


@pytest.mark.django_db(transaction=True)
def test_mcp(owner, mcp_url):
    token = user_token_issue(user=owner).key
    said = ["我奶奶跟我住，一直是我在照顾她。", "她叫王秀兰。", "王秀兰有糖尿病，每天打胰岛素。"]  # noqa: RUF001
    bodies = m.adds(mcp_url, token, said)

    assert bodies[2]["entry"]["pinned"] is True


def test_one_batch_that_names_the_kin_in_its_next_statement(key_client):
    memories = [
        {"content": "My amma lives with us and I take care of her."},
        {"content": "Her name is Lakshmi."},
        {"content": "Lakshmi has kidney disease."},
    ]
    response = key_client.post("/api/v1/memories/", {"user_id": "u1", "memories": memories}, format="json")

    assert response.status_code in (200, 201), response.content
    assert "Lakshmi" in _people("My amma lives with us and I take care of her.")
    assert _entry("Lakshmi has kidney disease.").pinned
    assert response.json()["results"][2]["entry"]["pinned"] is True  # the answer says what is stored


def test_an_import_that_names_the_kin_in_its_next_line(key_client):
    pasted = "我奶奶跟我住，一直是我在照顾她。\n她叫王秀兰。\n王秀兰有糖尿病，每天打胰岛素。\n"  # noqa: RUF001
    response = key_client.post(
        "/api/v1/imports/", {"format": "text", "data": pasted, "user_id": "u1"}, format="json"
    )

    assert response.status_code == 201, response.content
    assert "王秀兰" in _people("我奶奶跟我住，一直是我在照顾她。")  # noqa: RUF001
    assert _entry("王秀兰有糖尿病，每天打胰岛素。").pinned  # noqa: RUF001
