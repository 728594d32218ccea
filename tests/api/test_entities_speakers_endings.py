"""Issue 29's graph, through the REST API and mem0's route: speakers of a conversation of several
people own their "I" and "my"; an ended relation closes its window; the memory that answers a
multi-hop question outscores the memories on the way; names are stored clean."""

from __future__ import annotations

from typing import Any

import pytest

from memory_core.entities.models import Relation
from memory_core.models import MemoryEntry
from tests.api.entities_helpers import add, contents, entities, namespace_of, recall, relations

pytestmark = pytest.mark.django_db

FILLERS = [
    "I had ramen for lunch on Friday.",
    "My favourite season is autumn.",
    "The user is learning to juggle.",
    "I prefer aisle seats on trains.",
    "The user's kitchen has a blue kettle.",
]


def _fillers(client: Any) -> None:
    for filler in FILLERS:
        add(client, filler)


def _pairs(namespace: Any, predicate: str) -> set[tuple[str, str]]:
    return {
        ("user" if r.subject.is_self else r.subject.name, r.object.name if r.object else r.value)
        for r in relations(namespace, predicate=predicate)
    }


def _graph(items: list[dict[str, Any]], content: str) -> float:
    return next((i["breakdown"]["graph"] for i in items if i["entry"]["content"] == content), 0.0)


# --- Speakers -------------------------------------------------------------------------------


def test_transcript_lines_are_read_as_their_speakers(key_client):
    entry = add(
        key_client,
        "Priya: My brother Ravi teaches chemistry in Pune.\n"
        "Owen: My wife Carla runs a bakery. Thanks for asking about my kids, Priya!",
    )
    namespace = namespace_of(entry)
    assert {"Priya", "Owen", "Ravi", "Carla"} <= set(entities(namespace))
    assert _pairs(namespace, "sibling") == {("Priya", "Ravi")}
    assert _pairs(namespace, "spouse") == {("Owen", "Carla")}
    # Priya is spoken to, not Owen's child; nobody is the user's kin.
    assert ("Owen", "Priya") not in _pairs(namespace, "child")
    assert not Relation.objects.filter(namespace=namespace, subject__is_self=True).exists()


def test_mem0_message_names_are_the_speakers(key_client):
    body = {
        "messages": [
            {"role": "user", "name": "Priya", "content": "My husband is Dev."},
            {"role": "user", "name": "Owen", "content": "I moved to Cardiff last spring."},
        ],
        "user_id": "u1",
        "infer": False,
    }
    response = key_client.post("/v3/memories/add/", body, format="json")
    assert response.status_code == 200, response.content
    entry = MemoryEntry.objects.get(content="My husband is Dev.")
    assert entry.metadata["speaker"] == "Priya"
    namespace = entry.namespace
    assert _pairs(namespace, "spouse") == {("Priya", "Dev")}
    assert _pairs(namespace, "lives_in") == {("Owen", "Cardiff")}
    assert not Relation.objects.filter(namespace=namespace, subject__is_self=True).exists()


# --- Ended relations ------------------------------------------------------------------------


def test_a_divorce_closes_the_marriage_at_its_date(key_client):
    first = add(key_client, "My husband is Marco.", valid_from="2019-01-10T00:00:00Z")
    add(key_client, "Marco is a chef at Lumen.", valid_from="2019-02-01T00:00:00Z")
    add(key_client, "I divorced Marco.", valid_from="2023-03-01T00:00:00Z")
    _fillers(key_client)
    (spouse,) = relations(namespace_of(first), predicate="spouse")
    assert spouse.valid_to is not None and spouse.valid_to.date().isoformat() == "2023-03-01"

    before = recall(key_client, "What does my husband do?", at="2022-06-01T00:00:00Z")
    after = recall(key_client, "What does my husband do?", at="2023-06-01T00:00:00Z")
    assert _graph(before, "Marco is a chef at Lumen.") > 0
    assert _graph(after, "Marco is a chef at Lumen.") == 0


def test_chinese_endings_close_marriage_job_and_home(key_client):
    first = add(key_client, "我的丈夫叫马克。", valid_from="2018-05-01T00:00:00Z")
    add(key_client, "马克是厨师。", valid_from="2018-06-01T00:00:00Z")
    add(key_client, "我在腾讯工作。", valid_from="2019-01-01T00:00:00Z")
    add(key_client, "我住在上海。", valid_from="2019-01-01T00:00:00Z")
    add(key_client, "我和马克离婚了。", valid_from="2022-09-01T00:00:00Z")
    add(key_client, "我从腾讯离职了。", valid_from="2023-01-01T00:00:00Z")
    add(key_client, "我搬出了上海。", valid_from="2023-02-01T00:00:00Z")
    namespace = namespace_of(first)
    ended = {r.predicate: r.valid_to.date().isoformat() for r in relations(namespace) if r.valid_to}
    assert ended == {"spouse": "2022-09-01", "works_at": "2023-01-01", "lives_in": "2023-02-01"}

    before = recall(key_client, "我丈夫是做什么的?", at="2021-01-01T00:00:00Z")
    after = recall(key_client, "我丈夫是做什么的?", at="2024-01-01T00:00:00Z")
    assert _graph(before, "马克是厨师。") > 0
    assert _graph(after, "马克是厨师。") == 0


def test_leaving_a_job_or_a_town_ends_only_that_relation(key_client):
    first = add(key_client, "My partner Sam works at Northwind.", valid_from="2020-01-01T00:00:00Z")
    add(key_client, "I live in Bristol.", valid_from="2020-01-01T00:00:00Z")
    add(key_client, "Sam quit Northwind.", valid_from="2024-04-01T00:00:00Z")
    add(key_client, "We moved out of Bristol.", valid_from="2024-05-01T00:00:00Z")
    namespace = namespace_of(first)
    ended = {(r.predicate, r.valid_to.date().isoformat()) for r in relations(namespace) if r.valid_to}
    assert ended == {("works_at", "2024-04-01"), ("lives_in", "2024-05-01")}
    (partner,) = relations(namespace, predicate="partner")
    assert partner.valid_to is None  # quitting a job ends no partnership


# --- Path scoring ---------------------------------------------------------------------------


def test_the_answer_outscores_the_memories_on_the_way(key_client):
    add(key_client, "My sister is Lena.")
    add(key_client, "Lena's husband is Omar.")
    add(key_client, "Lena loves sailing on weekends.")
    add(key_client, "Omar works at Fabrikam.")
    _fillers(key_client)
    items = recall(key_client, "Where does my sister's husband work?")
    answer = _graph(items, "Omar works at Fabrikam.")
    assert answer > _graph(items, "Lena loves sailing on weekends.")
    assert answer > _graph(items, "My sister is Lena.")
    assert answer > _graph(items, "Lena's husband is Omar.")
    assert "Omar works at Fabrikam." in contents(items)[:2]


def test_the_answer_outscores_the_way_in_chinese(key_client):
    add(key_client, "我的姐姐叫莉娜。")
    add(key_client, "莉娜的丈夫叫奥马。")
    add(key_client, "莉娜喜欢周末去航海。")
    add(key_client, "奥马在微软工作。")
    _fillers(key_client)
    items = recall(key_client, "我姐姐的丈夫在哪里工作?")
    assert _graph(items, "奥马在微软工作。") > _graph(items, "莉娜喜欢周末去航海。")


# --- Names ----------------------------------------------------------------------------------


def test_names_are_stored_without_quotes_or_possessives(key_client):
    entry = add(key_client, 'My dog is called "Biscuit".')
    add(key_client, "Ravi's sister Mina lives in Goa.")
    add(key_client, "Nate: I work at Globex. Thanks, Joanna!")
    names = set(entities(namespace_of(entry)))
    assert {"Biscuit", "Ravi", "Mina", "Goa", "Nate", "Globex"} <= names
    assert not [n for n in names if n.endswith(('"', "'", ".", "'s"))]


def test_mem0_inferred_memories_keep_their_speaker(key_client, django_capture_on_commit_callbacks):
    """With `infer: true` the extraction job keeps each message's name: a memory drawn from one
    speaker's message is stored with that speaker, and the graph reads its "my" as theirs."""
    body = {
        "messages": [
            {"role": "user", "name": "Teodora", "content": "My brother Luka works at Contoso."},
            {"role": "user", "name": "Amir", "content": "My sister Yasmin lives in Izmir."},
        ],
        "user_id": "u1",
    }
    with django_capture_on_commit_callbacks(execute=True):  # the queued job runs
        response = key_client.post("/v3/memories/add/", body, format="json")
    assert response.status_code == 200, response.content
    written = list(MemoryEntry.objects.all())
    assert written, response.json()
    assert {e.metadata.get("speaker") for e in written} <= {"Teodora", "Amir"}
    namespace = written[0].namespace
    assert ("Teodora", "Luka") in _pairs(namespace, "sibling")
    assert ("Amir", "Yasmin") in _pairs(namespace, "sibling")
    assert not Relation.objects.filter(namespace=namespace, subject__is_self=True).exists()
