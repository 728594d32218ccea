"""Recall's copy of a user's graph is brought up to date with what changed, not read again whole:
after a write names someone, the next question reads that write's rows (the graph of a user who
has talked for months is thousands of rows), and answers exactly as a fresh read of the whole
graph answers, even when two writers of the same user overlap and the one that waited commits
last. The log of changes is kept a day."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory_core.entities import graph_cache
from memory_core.entities.models import Entity, GraphChange
from memory_core.models import Namespace
from memory_core.tasks import run_forgetting
from tests.api.entities_helpers import add, namespace_of, recall

QUESTIONS = [
    "What does my sister's husband do?",
    "Where does Skipper work?",
    "What does Bea like?",
    "Who is Ana's brother?",
    "Where did my brother Jonas go?",
]


@pytest.fixture(autouse=True)
def nothing_held(settings: Any) -> None:
    """No graph held from an earlier test; these users' graphs, a few dozen rows, are brought up
    to date as a long-lived user's of thousands are (a small one is read whole: cheaper)."""
    graph_cache.clear()
    settings.RECALL_GRAPH_CHANGES_FROM_ITEMS = 0


def answers(client: Any, user: str = "u1") -> dict[str, dict[str, float]]:
    return {
        question: {
            item["entry"]["content"]: item["breakdown"]["graph"]
            for item in recall(client, question, user=user)
            if item["breakdown"]["graph"] > 0
        }
        for question in QUESTIONS
    }


def fresh_answers(client: Any, user: str = "u1") -> dict[str, dict[str, float]]:
    graph_cache.clear()
    return answers(client, user)


def graph_reads(client: Any, user: str = "u1") -> tuple[dict[str, dict[str, float]], list[str]]:
    """The answers, and the graph reads they took: "whole" or "changes"."""
    with CaptureQueriesContext(connection) as queries:
        found = answers(client, user)
    reads = []
    for query in queries.captured_queries:
        if "memory_core_graphchange" in query["sql"]:
            reads.append("changes")
        elif "memory_core_entitymention" in query["sql"]:
            reads.append("whole")
    return found, reads


@pytest.mark.django_db
def test_after_a_write_the_next_question_reads_only_what_changed(key_client):
    for text in ("My sister Ana is a nurse.", "My friend Bea likes green tea.", "I had soup for lunch."):
        add(key_client, text)
    first, reads = graph_reads(key_client)
    assert reads == ["whole"]  # the first question reads the graph; the others find it held

    add(key_client, "Ana's husband Marc is a pilot.")
    second, reads = graph_reads(key_client)
    assert reads == ["changes"]
    assert second["What does my sister's husband do?"]["Ana's husband Marc is a pilot."] == pytest.approx(1.0)
    assert second != first
    assert second == fresh_answers(key_client)

    add(key_client, "Nothing new today, just tired.")  # names no one: the graph stays as held
    third, reads = graph_reads(key_client)
    assert reads == []
    assert third == second


def held_copy(namespace_id: int) -> Any:
    """The graph recall holds for a namespace at its current version (None when none is)."""
    version = Namespace.objects.get(pk=namespace_id).graph_version
    return graph_cache._CACHE.get(graph_cache._key(namespace_id), version)[0]


@pytest.mark.django_db
def test_one_users_changes_reach_only_that_users_graph(key_client):
    """Two users' graphs held at once: a write of one is read into that user's copy alone; the
    other's copy stays as held (no read at all), and neither answers with the other's people."""
    add(key_client, "My sister Ana is a nurse.", user="u1")
    add(key_client, "My friend Bea likes green tea.", user="u2")
    u2 = namespace_of(add(key_client, "My sister Ana is a teacher.", user="u2")).pk  # u2's own Ana
    answers(key_client, "u1")
    answers(key_client, "u2")
    before_u2, reads = graph_reads(key_client, "u2")
    assert reads == [] and held_copy(u2) is not None  # both held
    copy_u2 = held_copy(u2)

    add(key_client, "Ana's husband Marc is a pilot.", user="u1")
    after_u2, reads = graph_reads(key_client, "u2")
    assert reads == [] and after_u2 == before_u2 and held_copy(u2) is copy_u2  # u2's copy untouched
    assert not any("Marc" in content for found in after_u2.values() for content in found)

    after_u1, reads = graph_reads(key_client, "u1")
    assert reads == ["changes"]
    husband = after_u1["What does my sister's husband do?"]
    assert husband["Ana's husband Marc is a pilot."] == pytest.approx(1.0)
    theirs = ("teacher", "Bea")
    assert not any(word in content for found in after_u1.values() for content in found for word in theirs)
    assert after_u1 == fresh_answers(key_client, "u1") and after_u2 == answers(key_client, "u2")


@pytest.mark.django_db
def test_a_graph_loaded_long_ago_is_read_whole_again(key_client, settings):
    add(key_client, "My sister Ana is a nurse.")
    answers(key_client)
    add(key_client, "Ana's husband Marc is a pilot.")
    settings.RECALL_GRAPH_CACHE_SECONDS = 0
    _, reads = graph_reads(key_client)
    assert reads[0] == "whole"


@pytest.mark.django_db(transaction=True)
def test_overlapping_writers_of_one_user_leave_no_change_unread(key_client):
    """Two connections change the same user's graph at once; the second waits on the first's lock
    on the user's row (it drew a version before waiting) and commits last. A question between the
    commits and one after them answer as a fresh read of the whole graph does."""
    add(key_client, "Ana's husband Marc is a pilot.")
    add(key_client, "My brother Jonas told me about his trip.")
    answers(key_client)  # the graph held
    namespace = namespace_of(add(key_client, "My friend Bea likes green tea."))
    answers(key_client)
    first_in, release_first = threading.Barrier(2, timeout=30), threading.Barrier(2, timeout=30)
    errors: list[BaseException] = []

    def rename(name: str, alias: str, hold: Callable[[], None] | None) -> Callable[[], None]:
        def run() -> None:
            try:
                with connections["default"].cursor() as cursor:
                    cursor.execute("BEGIN")
                    cursor.execute(
                        "UPDATE memory_core_entity SET aliases = array_append(aliases, %s) "
                        "WHERE namespace_id = %s AND name = %s",
                        [alias, namespace.pk, name],
                    )
                    if hold is not None:
                        hold()
                    cursor.execute("COMMIT")
            except BaseException as error:
                errors.append(error)
            finally:
                connections.close_all()

        return run

    def held_open() -> None:
        first_in.wait()
        release_first.wait()

    first = threading.Thread(target=rename("Marc", "skipper", held_open))
    first.start()
    first_in.wait()  # the first holds the user's row
    second = threading.Thread(target=rename("Bea", "bee", None))
    second.start()
    _wait_for_a_lock_wait()
    try:
        assert answers(key_client) == fresh_answers(key_client)  # neither committed: nothing seen
        answers(key_client)  # held at the version before both
    finally:
        release_first.wait()
    first.join(timeout=30)
    second.join(timeout=30)
    assert errors == []
    after = answers(key_client)
    assert after["Where does Skipper work?"]["Ana's husband Marc is a pilot."] == pytest.approx(1.0)
    assert after == fresh_answers(key_client)
    assert "bee" in Entity.objects.get(namespace=namespace, name="Bea").aliases


@pytest.mark.django_db(transaction=True)
def test_a_change_committed_between_two_questions_is_applied_by_the_next(key_client):
    add(key_client, "Ana's husband Marc is a pilot.")
    namespace = namespace_of(add(key_client, "My friend Bea likes green tea."))
    answers(key_client)
    for alias, question in (("skipper", "Where does Skipper work?"), ("bee", "What does Bea like?")):
        with connections["default"].cursor() as cursor:
            cursor.execute(
                "UPDATE memory_core_entity SET aliases = array_append(aliases, %s) "
                "WHERE namespace_id = %s AND name = %s",
                [alias, namespace.pk, "Marc" if alias == "skipper" else "Bea"],
            )
        held, reads = graph_reads(key_client)
        assert reads == ["changes"]
        assert held[question]
        assert held == fresh_answers(key_client)


@pytest.mark.django_db
def test_a_small_graph_is_read_whole_and_a_large_one_by_its_changes(key_client, settings):
    add(key_client, "My sister Ana is a nurse.")
    add(key_client, "My friend Bea likes green tea.")
    answers(key_client)
    items = graph_cache.held_bytes() // graph_cache.ITEM_BYTES  # the one graph held
    for threshold, read in ((items + 1, "whole"), (items, "changes")):
        settings.RECALL_GRAPH_CHANGES_FROM_ITEMS = threshold
        add(key_client, f"Ana's husband Marc is a pilot, said {threshold} times.")
        held, reads = graph_reads(key_client)
        assert reads == [read]
        assert held == fresh_answers(key_client)
        answers(key_client)


def _wait_for_a_lock_wait() -> None:
    """Until another connection waits on a row lock (the second writer on the user's row)."""
    deadline = time.monotonic() + 30
    with connections["default"].cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.01)
    raise AssertionError("the second writer never waited on the first")


@pytest.mark.django_db
def test_changes_are_logged_by_id_only_and_kept_a_day(key_client):
    add(key_client, "My sister Ana is a nurse in Leeds.")
    logged = list(GraphChange.objects.values_list("namespace_id", "kind", "row_uuid", "row_number"))
    assert logged
    assert {kind for _, kind, _, _ in logged} >= {GraphChange.Kind.ENTITY, GraphChange.Kind.MENTION}
    old = GraphChange.objects.order_by("id").first()
    GraphChange.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=1, minutes=1))
    assert run_forgetting()["graph_changes_pruned"] == 1
    assert GraphChange.objects.count() == len(logged) - 1
