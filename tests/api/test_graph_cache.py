"""Recall walks each user's entity graph from a copy it keeps in memory (issue 19's latency). The
copy is never stale: after every kind of change, through every entry point and by any connection,
the next question is answered exactly as a fresh read of the graph answers it; a write not yet
committed is not seen and does not stick; the copy holds none of the words users said."""

from __future__ import annotations

import pickle
import threading
from typing import Any

import pytest
from django.db import connection, connections, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from memory_core.entities import graph_cache
from tests.api.entities_helpers import add, namespace_of, recall

QUESTIONS = [
    "What does my sister's husband do?",
    "Who is Ana married to?",
    "What does Bea like?",
    "What does my friend do in the evenings?",
    "Where does Skipper work?",
]
FILLERS = [
    "I had pasta for dinner on Tuesday.",
    "The user is learning to play the cello.",
    "I prefer window seats on long flights.",
]


@pytest.fixture(autouse=True)
def nothing_held() -> None:
    """Each test counts the graphs it reads: none left from an earlier test's users."""
    graph_cache.clear()


def graph_scores(client: Any, user: str = "u1") -> dict[str, dict[str, float]]:
    """Question → memory → its graph score, for every question."""
    return {
        question: {
            item["entry"]["content"]: item["breakdown"]["graph"]
            for item in recall(client, question, user=user)
            if item["breakdown"]["graph"] > 0
        }
        for question in QUESTIONS
    }


def fresh_graph_scores(client: Any) -> dict[str, dict[str, float]]:
    graph_cache.clear()
    return graph_scores(client)


def graph_reads(client: Any, question: str, user: str = "u1") -> int:
    with CaptureQueriesContext(connection) as queries:
        recall(client, question, user=user)
    return sum("memory_core_entitymention" in q["sql"] for q in queries.captured_queries)


def held_as_read_whole() -> bool:
    """Whether each graph held, as brought up to date, is the graph a whole read gives."""
    from memory_core.round_trip import run_together

    def shape(graph: graph_cache.NamespaceGraph) -> tuple[Any, ...]:
        def sort(index: dict[Any, Any]) -> dict[Any, list[Any]]:
            return {key: sorted(map(str, values)) for key, values in index.items()}

        return (
            graph.version,
            sort(graph.by_alias),
            graph.aliases,
            graph.self_ids,
            sort(graph.mentions),
            {key: sorted(relation.id for relation in values) for key, values in graph.relations.items()},
            sort(graph.support),
            graph.items,
        )

    held = [entry[0] for entry in graph_cache._CACHE._graphs.values()]
    for graph in held:
        [[whole]] = run_together([graph_cache.load_read([graph.namespace_id])])
        if whole.version == graph.version and shape(whole) != shape(graph):
            return False
    return bool(held)


def people(client: Any) -> dict[str, str]:
    response = client.get("/api/v1/entities/?user_id=u1")
    assert response.status_code == 200
    return {row["name"]: row["id"] for row in response.json()["results"]}


def relation_of(client: Any, entity: str, predicate: str) -> str:
    found = client.get(f"/api/v1/relations/?user_id=u1&entity={entity}&predicate={predicate}").json()
    return found["results"][0]["id"]


@pytest.mark.django_db
@pytest.mark.parametrize("changes_from_items", [0, None], ids=["brought-up-to-date", "read-whole"])
def test_every_kind_of_change_reaches_the_next_question(key_client, settings, changes_from_items):
    if changes_from_items is not None:
        settings.RECALL_GRAPH_CHANGES_FROM_ITEMS = changes_from_items
    for text in ("My sister Ana is a nurse.", "Ana's husband Marc is a pilot.", *FILLERS):
        add(key_client, text)
    add(key_client, "My friend Bea likes green tea.")
    chess = add(key_client, "My colleague Beatrice plays chess in the evenings.")["entry"]
    graph_scores(key_client)  # every question's graph now held

    def change(step: str, act: Any, *, visible: bool = True) -> None:
        before = graph_scores(key_client)
        act()
        held = graph_scores(key_client)
        assert held_as_read_whole(), step
        assert held == fresh_graph_scores(key_client), step
        if visible:
            assert held != before, f"{step} changed nothing the questions see"

    change("a new memory", lambda: add(key_client, "Marc's brother Leo is a baker in Lyon."))
    ids = people(key_client)
    change(
        "a merge",
        lambda: key_client.post(
            f"/api/v1/entities/{ids['Beatrice']}/merge/?user_id=u1", {"into": ids["Bea"]}, format="json"
        ),
    )
    change(
        "a split",
        lambda: key_client.post(
            f"/api/v1/entities/{ids['Bea']}/split/?user_id=u1",
            {"memories": [chess["id"]], "name": "Beatrice"},
            format="json",
        ),
    )
    change(
        "a rename",
        lambda: key_client.patch(
            f"/api/v1/entities/{ids['Marc']}/?user_id=u1", {"name": "Skipper"}, format="json"
        ),
    )
    spouse = relation_of(key_client, ids["Ana"], "spouse")
    change(
        "a relation ended",
        lambda: key_client.patch(f"/api/v1/relations/{spouse}/?user_id=u1", {"ended": True}, format="json"),
    )
    role = relation_of(key_client, ids["Ana"], "role")
    change(
        "a relation erased",
        lambda: key_client.delete(f"/api/v1/relations/{role}/?user_id=u1"),
        visible=False,  # Ana's mention in the same memory scores it as high
    )
    change("an entity erased", lambda: key_client.delete(f"/api/v1/entities/{ids['Leo']}/?user_id=u1"))
    change(
        "erase-all",
        lambda: key_client.post(
            "/api/v1/memories/erase-all/", {"user_id": "u1", "confirm": True}, format="json"
        ),
    )
    assert graph_scores(key_client) == {question: {} for question in QUESTIONS}


@pytest.mark.django_db
def test_a_graph_is_read_once_per_version_and_within_the_bounds_set(key_client):
    for user in ("u1", "u2"):
        add(key_client, "My sister Ana is a nurse.", user=user)
    question = "What does my sister do?"
    assert [graph_reads(key_client, question, user) for user in ("u1", "u2", "u1", "u2")] == [1, 1, 0, 0]
    room_for_one = graph_cache.held_bytes() * 0.75 / 1_000_000  # the two graphs are alike
    with override_settings(RECALL_GRAPH_CACHE_MB=room_for_one):
        assert [graph_reads(key_client, question, user) for user in ("u1", "u2", "u1", "u2")] == [1, 1, 1, 1]
        assert graph_cache.held() == 1
    with override_settings(RECALL_GRAPH_CACHE_SECONDS=0):
        assert [graph_reads(key_client, question, "u1") for _ in range(3)] == [1, 1, 1]
    with override_settings(RECALL_GRAPH_CACHE_MB=0):
        assert [graph_reads(key_client, question, "u1") for _ in range(2)] == [1, 1]
        assert graph_cache.held() == 0
        assert graph_scores_of(key_client, question) == {"My sister Ana is a nurse.": pytest.approx(1.0)}


@pytest.mark.django_db
def test_what_is_held_says_nothing_a_user_said(key_client):
    add(key_client, "My sister Ana is a nurse.")
    add(key_client, "Ana's husband Marc is a pilot in Lyon.")
    assert any(item["breakdown"]["graph"] > 0 for item in recall(key_client, "Who is my sister's husband?"))
    assert graph_cache.held() == 1
    held = pickle.dumps(graph_cache._CACHE._graphs).lower()
    for word in (b"ana", b"marc", b"lyon", b"sister", b"husband", b"nurse", b"pilot"):
        assert word not in held


@pytest.mark.django_db(transaction=True)
def test_a_write_by_another_connection_is_seen_by_the_next_question(key_client):
    """Any writer, even one that bypasses the application (SQL in another connection), moves the
    version: the database's triggers, not the code paths, keep the copy honest."""
    add(key_client, "Ana's husband Marc is a pilot.")
    question = "Where does Skipper work?"
    assert graph_scores_of(key_client, question) == {}

    def rename() -> None:
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute(
                    "UPDATE memory_core_entity SET aliases = array_append(aliases, %s) WHERE name = %s",
                    ["skipper", "Marc"],
                )
        finally:
            connections.close_all()

    thread = threading.Thread(target=rename)
    thread.start()
    thread.join(timeout=30)
    assert graph_scores_of(key_client, question) == {"Ana's husband Marc is a pilot.": pytest.approx(1.0)}


def graph_scores_of(client: Any, question: str) -> dict[str, float]:
    return {
        item["entry"]["content"]: item["breakdown"]["graph"]
        for item in recall(client, question)
        if item["breakdown"]["graph"] > 0
    }


@pytest.mark.django_db(transaction=True)
def test_a_graph_change_not_yet_committed_is_not_seen_and_does_not_stick(key_client):
    """A writer holds a new memory about Marc uncommitted while questions are asked (a barrier
    holds it there): they neither see it nor keep a graph that would hide it once committed."""
    from memory_core.pipeline import memory_add

    namespace = namespace_of(add(key_client, "My sister Ana is a nurse."))
    question = "What does my sister's husband do?"
    before = graph_scores_of(key_client, question)
    written, asked = threading.Barrier(2, timeout=30), threading.Barrier(2, timeout=30)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            with transaction.atomic():
                memory_add(namespace=namespace, content="Ana's husband Marc is a pilot.")
                written.wait()
                asked.wait()
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=write)
    thread.start()
    written.wait()
    try:
        assert graph_scores_of(key_client, question) == before
        assert graph_scores_of(key_client, question) == before
    finally:
        asked.wait()
        thread.join(timeout=60)
    assert errors == []
    after = graph_scores_of(key_client, question)
    assert after.get("Ana's husband Marc is a pilot.", 0) > 0


@pytest.mark.django_db
def test_a_forked_worker_starts_with_nothing_held(key_client):
    """django-q forks its workers: a child never inherits its parent's copy (nor a lock another of
    the parent's threads held)."""
    import os

    add(key_client, "My sister Ana is a nurse.")
    recall(key_client, "What does my sister do?")
    assert graph_cache.held() == 1
    child = os.fork()
    if child == 0:
        os._exit(0 if graph_cache.held() == 0 else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert graph_cache.held() == 1
