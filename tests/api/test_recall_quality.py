"""What recall ranks first, through the API: rare words, the turn a question answers, dates, names."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings

from memory_core.models import MemoryEntry, SearchStats, SearchTerm
from tests.erasure_helpers import canary

pytestmark = pytest.mark.django_db


def add(client, content: str, **fields) -> dict:
    response = client.post(
        "/api/v1/memories/", {"user_id": "u1", "content": content, **fields}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["entry"]


def recall(client, query: str, **body) -> list[dict]:
    response = client.post("/api/v1/recall/", {"user_id": "u1", "query": query, **body}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def lexeme(word: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT (tsvector_to_array(to_tsvector('english', %s)))[1]", [word])
        return cursor.fetchone()[0]


def test_it_ranks_a_rare_word_above_a_common_one(key_client):
    for drink in ("in the morning", "with oat milk", "at the office", "after lunch", "on weekends"):
        add(key_client, f"The user drinks coffee {drink}.")
    add(key_client, "The user once climbed Kilimanjaro with a friend.")

    items = recall(key_client, "coffee Kilimanjaro")

    assert items[0]["entry"]["content"] == "The user once climbed Kilimanjaro with a friend."
    rare = items[0]["breakdown"]["keyword"]
    assert all(item["breakdown"]["keyword"] < rare for item in items[1:])


def test_it_finds_a_turn_through_the_question_before_it(key_client):
    messages = [
        {"role": "user", "content": "Where should I go in the spring?"},
        {"role": "assistant", "content": "Lisbon, no question - the food alone is worth it!"},
        {"role": "user", "content": "My sister just adopted a grey cat."},
        {"role": "user", "content": "I repaired the kitchen shelf yesterday."},
    ]
    response = key_client.post(
        "/v3/memories/add/", {"user_id": "u1", "messages": messages, "infer": False}, format="json"
    )
    assert response.status_code == 200, response.content

    items = recall(key_client, "Which city was suggested for the spring trip?")

    contents = [item["entry"]["content"] for item in items]
    answer = "Lisbon, no question - the food alone is worth it!"  # stored as said, context apart
    # The answer ranks with the question it answers, above the unrelated turns: its own words
    # share nothing with the query, the question before it does.
    assert contents.index(answer) <= 1
    assert "My sister just adopted a grey cat." not in contents[: contents.index(answer)]
    found = items[contents.index(answer)]
    assert found["breakdown"]["context"] > found["breakdown"]["similarity"]
    assert found["breakdown"]["keyword"] > 0  # "spring", from the question before it
    assert "spring" not in recall_block(key_client, "Lisbon food").split("Lisbon")[1].split("\n")[0]


def test_the_export_lists_the_turn_an_entry_was_indexed_with(key_client):
    messages = [
        {"role": "user", "content": "Where should I go in the spring?"},
        {"role": "assistant", "content": "Lisbon, no question - the food alone is worth it!"},
    ]
    response = key_client.post(
        "/v3/memories/add/", {"user_id": "u1", "messages": messages, "infer": False}, format="json"
    )
    assert response.status_code == 200, response.content

    export = key_client.get("/api/v1/memories/export/", {"user_id": "u1"}).json()

    by_content = {m["content"]: m["provenance"]["search_context"] for m in export["memories"]}
    assert by_content == {
        "Where should I go in the spring?": "",
        "Lisbon, no question - the food alone is worth it!": "Where should I go in the spring?",
    }


def recall_block(client, query: str) -> str:
    response = client.post("/api/v1/recall/", {"user_id": "u1", "query": query}, format="json")
    return response.json()["prompt_block"]


def test_a_date_in_the_query_favours_the_memory_from_that_time(key_client):
    add(key_client, "The user went to a jazz concert.", type="episodic", valid_from="2023-03-10T20:00:00Z")
    add(key_client, "The user went to a rock concert.", type="episodic", valid_from="2023-07-10T20:00:00Z")

    march = recall(key_client, "Which concert did I go to in March 2023?")
    assert march[0]["entry"]["content"] == "The user went to a jazz concert."
    assert march[0]["breakdown"]["time"] == 1.0 and march[1]["breakdown"]["time"] == 0.0

    last_week = recall(key_client, "Which concert did I go to last week?", reference_date="2023-07-17")
    assert last_week[0]["entry"]["content"] == "The user went to a rock concert."
    assert "time" in last_week[0]["reasons"]


def test_a_name_in_the_query_favours_memories_about_that_person(key_client):
    add(key_client, "Ana recommended the bakery on Elm Street.")
    add(key_client, "Ben recommended the bakery on Oak Street.")

    items = recall(key_client, "Which bakery did Ben recommend?")

    assert items[0]["entry"]["content"] == "Ben recommended the bakery on Oak Street."
    assert items[0]["breakdown"]["names"] == 1.0 and items[1]["breakdown"]["names"] == 0.0
    assert len(items) == 2  # a score, not a filter


def test_a_memory_about_the_named_person_beats_one_that_only_mentions_them(key_client):
    add(key_client, "Ana recommended the bakery on Elm Street to Ben.")
    add(key_client, "Ben's sister recommended the bakery on Oak Street.")

    items = recall(key_client, "Which bakery did Ben's family recommend?")

    assert items[0]["entry"]["content"] == "Ben's sister recommended the bakery on Oak Street."
    assert items[0]["breakdown"]["names"] == 1.0 and items[1]["breakdown"]["names"] == 0.5


def test_mem0_search_reads_dates_from_its_reference_date(key_client):
    add(key_client, "The user baked sourdough bread.", type="episodic", valid_from="2024-02-05T09:00:00Z")
    add(key_client, "The user baked banana bread.", type="episodic", valid_from="2024-05-05T09:00:00Z")
    response = key_client.post(
        "/v3/memories/search/",
        {"user_id": "u1", "query": "What bread did I bake yesterday?", "reference_date": "2024-02-06"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["results"][0]["memory"] == "The user baked sourdough bread."


def test_a_bad_reference_date_is_refused(key_client):
    response = key_client.post(
        "/api/v1/recall/", {"user_id": "u1", "query": "x", "reference_date": "next blursday"}, format="json"
    )
    assert response.status_code == 400
    assert "reference_date" in str(response.json())


def test_erasure_removes_the_words_from_the_search_statistics(key_client):
    word = canary()
    add(key_client, "The user likes tea.")
    memory = add(key_client, f"The user keeps a parrot called {word}.")
    namespace_id = MemoryEntry.objects.get(pk=memory["id"]).namespace_id
    assert SearchTerm.objects.filter(namespace_id=namespace_id, term=lexeme(word)).exists()
    assert SearchStats.objects.get(namespace_id=namespace_id).entries == 2

    assert key_client.delete(f"/api/v1/memories/{memory['id']}/").status_code == 204

    assert not SearchTerm.objects.filter(term__icontains=word[:10].lower()).exists()
    assert SearchStats.objects.get(namespace_id=namespace_id).entries == 1
    # The statistics stay exact: what is left is what the remaining entry holds.
    terms = dict(SearchTerm.objects.filter(namespace_id=namespace_id).values_list("term", "entries"))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(search_vector) FROM memory_core_memoryentry WHERE namespace_id = %s",
            [namespace_id],
        )
        (remaining,) = cursor.fetchone()
    assert terms == dict.fromkeys(remaining, 1) and "tea" in terms


def add_turn(client, content: str, *, said: int) -> None:
    """One turn of a conversation, added as a chat app stores it: one mem0 add per turn, with its time."""
    response = client.post(
        "/v3/memories/add/",
        {
            "user_id": "u1",
            "messages": [{"role": "user", "content": content}],
            "infer": False,
            "timestamp": said,
        },
        format="json",
    )
    assert response.status_code == 200, response.content


def test_the_turn_said_next_to_the_best_match_comes_up_with_it(key_client):
    sitting, days = 1_690_000_000, 86_400
    add_turn(key_client, "Ana: I made a birdhouse for the garden last month.", said=sitting - 9 * days)
    add_turn(key_client, "Ana: I made pancakes for the kids this morning.", said=sitting - 5 * days)
    add_turn(key_client, "Ana: I made a new bookshelf for the hallway.", said=sitting - 2 * days)
    add_turn(key_client, "Ana: I finally finished the stained glass window!", said=sitting)
    add_turn(key_client, "Ben: Wow, the colours are amazing. Where is it going?", said=sitting + 60)
    match = "Ana: It was made for a local church, to show time changing our lives."
    add_turn(key_client, match, said=sitting + 120)

    query = "What did Ana make for the local church?"
    items = recall(key_client, query)

    contents = [item["entry"]["content"] for item in items]
    window = "Ana: I finally finished the stained glass window!"
    # The answer shares no word with the question but was said two turns before the match, by
    # the person asked about: it comes second, above the turns that share "made" and "Ana".
    assert contents[:2] == [match, window]
    found = items[1]
    assert found["breakdown"]["neighbour"] > 0 and "neighbour" in found["reasons"]
    # Ben's turn between them is by someone else; the turns of other days are not lifted.
    lifted = {item["entry"]["content"] for item in items if item["breakdown"]["neighbour"] > 0}
    assert lifted == {window}

    with override_settings(RECALL_COMPONENTS=["context", "keyword", "time", "names", "graph"]):
        without = [item["entry"]["content"] for item in recall(key_client, query)]
    assert window not in without[:2]  # without the part, the turns that share "made" come first
