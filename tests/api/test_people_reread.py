"""What was said of someone before the user said who they are is read again once they have: "Ella
has epilepsy" (a bare name: not pinned) becomes a dependant's safety fact, always recalled, when the
user later says "my daughter is called Ella"; "Maya can't have dairy" (pinned as if a dependant's)
stops being always recalled once Maya is "my colleague Maya". On every surface that writes (REST
single and batch, mem0, MCP, the chat, an import), English and Chinese; the change is in the
entry's history, by the system. The user's own choice and a developer's explicit pin stand, and
another user's memories are never touched."""

from __future__ import annotations

import pytest
from django.urls import reverse

from api.services import user_token_issue
from memory_core.models import MemoryEntry, MemoryStatus
from tests.api import mcp_helpers as m
from tests.api.test_always_recall import always_recall
from tests.api.test_people_known_safety import _entry, _mem0_add, _rest_add
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

# (said first: a condition of someone by name alone, said later: who that is to the user)
NAMED_LATER = [
    ("Ella has epilepsy.", "My daughter is called Ella."),
    ("Mateo gets a rash from eggs, he's allergic.", "My youngest is Mateo, he just turned four."),
    ("jack has a peanut allergy and carries an epipen", "my little boy is called jack"),
    ("Poppy is coeliac.", "We've got a little girl called Poppy."),
    ("小米对花生过敏。", "我女儿叫小米。"),
    ("果果对青霉素过敏，不能打针。", "我们家老大叫果果，今年七岁。"),  # noqa: RUF001
    ("阿樂有哮喘，要帶噴霧。", "我個仔叫阿樂。"),  # noqa: RUF001
    ("浩浩对青霉素过敏。", "去年多了个继子，叫浩浩。"),  # noqa: RUF001
]


def _history(client, entry_id) -> list[dict]:
    response = client.get(f"/api/v1/memories/{entry_id}/history/")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(("condition", "who"), NAMED_LATER)
def test_a_condition_said_before_the_child_was_named_is_pinned_once_they_are(key_client, condition, who):
    first = _rest_add(key_client, condition)["entry"]
    assert first["pinned"] is False  # a bare name: no one the user named yet

    _rest_add(key_client, who)

    entry = _entry(condition)
    assert (entry.pinned, entry.category) == (True, "safety")
    assert not entry.key.startswith("health.")  # the child's, not the user's own slot
    last = _history(key_client, first["id"])[-1]
    assert (last["action"], last["actor_kind"]) == ("pinned", "system")
    assert last["data"]["from"]["pinned"] is False and last["data"]["to"]["pinned"] is True


def test_the_earlier_statement_is_linked_to_the_person_named(key_client):
    first = _rest_add(key_client, "Ella has epilepsy.")["entry"]
    _rest_add(key_client, "My daughter is called Ella.")

    listed = key_client.get("/api/v1/entities/", {"user_id": "u1"}).json()
    [ella] = [e for e in listed["results"] if e["name"] == "Ella"]
    detail = key_client.get(f"/api/v1/entities/{ella['id']}/", {"user_id": "u1"}).json()
    assert first["id"] in {memory["id"] for memory in detail["memories"]}


@pytest.mark.parametrize(
    ("condition", "who"),
    [
        ("Maya can't have dairy, she's lactose intolerant.", "My colleague Maya sits next to me."),
        ("小林对芒果过敏，吃了会起疹子。", "我同事叫小林。"),  # noqa: RUF001
    ],
)
def test_a_condition_pinned_before_the_person_was_named_a_colleague_is_not_always_recalled(
    key_client, condition, who
):
    first = _rest_add(key_client, condition)["entry"]
    assert first["pinned"] is True  # the model alone read a dependant's (or the user's) condition

    _rest_add(key_client, who)

    entry = _entry(condition)
    assert not entry.pinned and entry.category not in ("safety", "profile")
    assert _history(key_client, first["id"])[-1]["action"] == "unpinned"


def test_a_developers_explicit_pin_stands(key_client):
    body = {"user_id": "u1", "content": "Noor is allergic to latex.", "pinned": True}
    response = key_client.post("/api/v1/memories/", body, format="json")
    assert response.status_code == 201, response.content

    _rest_add(key_client, "My neighbour Noor waters our plants.")

    assert _entry("Noor is allergic to latex.").pinned


def test_the_users_choice_stands(key_client):
    first = _rest_add(key_client, "Ella has epilepsy.")["entry"]
    assert always_recall(key_client, first["id"], False, user_id="u1").status_code == 200

    _rest_add(key_client, "My daughter is called Ella.")

    entry = _entry("Ella has epilepsy.")
    assert not entry.pinned and entry.metadata["always_recall"] is False


def test_another_users_memories_are_not_read_again(key_client):
    _rest_add(key_client, "Ella has epilepsy.", user="a")
    _rest_add(key_client, "My daughter is called Ella.", user="b")

    assert not _entry("Ella has epilepsy.").pinned


def test_a_name_inside_another_word_is_not_the_person(key_client):
    _rest_add(key_client, "Ellaway has epilepsy.")
    _rest_add(key_client, "My daughter is called Ella.")

    assert not _entry("Ellaway has epilepsy.").pinned


def test_one_batch_that_names_the_child_after_the_condition(key_client):
    memories = [{"content": "Teo is allergic to wasp stings."}, {"content": "My son is called Teo."}]
    response = key_client.post("/api/v1/memories/", {"user_id": "u1", "memories": memories}, format="json")

    assert response.status_code in (200, 201), response.content
    teo = response.json()["results"][0]
    assert teo["entry"]["pinned"] is True  # the answer says what is stored
    assert _entry("Teo is allergic to wasp stings.").pinned


def test_mem0(key_client):
    _mem0_add(key_client, "Zoe is allergic to sesame.")
    _mem0_add(key_client, "Lena is allergic to sesame.")
    _mem0_add(key_client, "My daughter is called Zoe and my best friend is called Lena.")

    assert _entry("Zoe is allergic to sesame.").pinned
    assert not _entry("Lena is allergic to sesame.").pinned


@pytest.mark.django_db(transaction=True)
def test_mcp(owner, mcp_url):
    token = user_token_issue(user=owner).key
    bodies = m.adds(mcp_url, token, ["朵朵有癫痫，在吃丙戊酸钠。", "我有个女儿，叫朵朵。"])  # noqa: RUF001

    assert bodies[0]["entry"]["pinned"] is False
    assert MemoryEntry.objects.get(content="朵朵有癫痫，在吃丙戊酸钠。").pinned  # noqa: RUF001


def test_the_chat(owner, django_capture_on_commit_callbacks):
    client = client_for(owner)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": "Remember that Arlo has coeliac disease."})
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("chat:new"), {"content": "Remember that my son is called Arlo."})

    kept = MemoryEntry.objects.get(status=MemoryStatus.ACTIVE, content__contains="coeliac")
    assert kept.pinned and kept.category == "safety"


def test_an_import_that_names_the_child_after_the_condition(key_client):
    body = {"format": "text", "data": "Ella has epilepsy.\nMy daughter is called Ella.\n", "user_id": "u1"}
    response = key_client.post("/api/v1/imports/", body, format="json")

    assert response.status_code in (200, 201, 202), response.content
    assert _entry("Ella has epilepsy.").pinned


def test_a_latin_name_inside_chinese_is_found_again(key_client):
    first = _rest_add(key_client, "Marcus嘅花生敏感好嚴重，要帶EpiPen。")["entry"]  # noqa: RUF001
    _rest_add(key_client, "我個仔叫 Marcus，今年六歲。")  # noqa: RUF001

    assert first["pinned"] is False  # no one the user named yet: read as someone else's
    assert _entry(first["content"]).pinned
