"""Related words (`memory_core.term_vectors`) against erasure and against other users, through the
surfaces a user touches: mem0's delete, the privacy page's "erase everything", the REST API.

A rare word's vector and pairs go with its last holder (the trigger of migration 0032), also when
the erasure overlaps the term job, or another user's erasure of the same word, on purpose; another
user's words never change a user's recall; and a recall overlapping the job answers as it would
without it. These tests commit (threads,
the live server): each overlap is made with a barrier or a held transaction, not by luck."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from api.services import api_key_issue, tenant_create
from memory_core import erasure, term_vectors
from memory_core.models import MemoryEntry, RelatedTerm, TermVector
from memory_core.scan import scan_database
from memory_core.tasks import run_context_vectors, run_erasure_vacuum
from memory_core.term_vectors import term_vectors_run, waiting
from tests.concurrency_helpers import in_thread, overlap
from tests.erasure_helpers import assert_nothing_in_sql, canary

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 60  # seconds a thread waits for the other before the test fails
USER = "customer-42"
PARTNER = "The user dreams of a trip to Zanzibar."  # "zanzibar": the canary's nearest word


def rare_word() -> str:
    """A canary the English stemmer leaves whole: the term the tables hold is the canary itself,
    so the every-column scan finds it in the vector and pair rows (a stemmed one it would miss)."""
    while True:
        word = canary()
        with connection.cursor() as cursor:
            cursor.execute("SELECT tsvector_to_array(to_tsvector('english', %s))", [word])
            if cursor.fetchone()[0] == [word.lower()]:
                return word


def assert_related(word: str) -> None:
    """The job embedded `word` and paired it with "zanzibar", both ways: the scan sees it there."""
    term = word.lower()
    assert TermVector.objects.filter(term=term).exists()
    assert RelatedTerm.objects.filter(term=term, related="zanzibar").exists()
    assert RelatedTerm.objects.filter(term="zanzibar", related=term).exists()
    found = scan_database(word)
    assert "memory_core_termvector" in found, found
    assert set(found["memory_core_relatedterm"]) == {"term", "related"}, found


def waits_for_a_lock(seconds: float = 10) -> bool:
    """Whether another session of this database is waiting for a lock (polled). The activity view
    is read once per transaction unless its snapshot is cleared, and the caller may be in one."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return True
        time.sleep(0.02)
    return False


def add(client, content: str, user_id: str = "u1") -> str:
    response = client.post("/api/v1/memories/", {"user_id": user_id, "content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["entry"]["id"]


def erase(client, memory_id: str, user_id: str = "u1") -> None:
    response = client.delete(f"/api/v1/memories/{memory_id}/?user_id={user_id}")
    assert response.status_code == 204, response.content


def recall(client, query: str, user_id: str = "u1") -> list[dict[str, Any]]:
    response = client.post("/api/v1/recall/", {"user_id": user_id, "query": query}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def ranking(items: list[dict[str, Any]]) -> list[tuple[str, float, dict[str, float]]]:
    """What a recall ranked: which entries, in which order, with which scores (not the access
    counts, which each recall moves)."""
    return [(item["entry"]["id"], item["score"], item["breakdown"]) for item in items]


# --- Erasure through the surfaces ---------------------------------------------------------------


@pytest.fixture
def mem0(live_url, operator):
    from mem0 import MemoryClient

    tenant = tenant_create(name="Acme", slug="acme", created_by=operator)
    return MemoryClient(
        api_key=api_key_issue(tenant=tenant, scopes=["read", "write", "erase"])[1], host=live_url
    )


def test_mem0_delete_leaves_nothing_of_the_words_vector_and_pairs(mem0):
    word = rare_word()
    mem0.add(PARTNER, user_id=USER, infer=False)
    [added] = mem0.add(f"The user keeps a parrot called {word}.", user_id=USER, infer=False)["results"]
    run_context_vectors()  # what the cluster runs soon after the writes
    assert_related(word)

    assert "deleted" in mem0.delete(added["id"])["message"].lower()

    assert_nothing_in_sql(word)
    # Only the last holder takes a word along: the other memory's words keep their vectors.
    assert TermVector.objects.filter(term__in=["zanzibar", "user"]).count() == 2
    assert not TermVector.objects.filter(term="parrot").exists()  # no one holds it any more


def test_the_privacy_pages_erase_everything_leaves_nothing(owner, other_user):
    word = rare_word()
    page = Client()
    page.force_login(owner)
    for content in (f"I keep a parrot called {word}.", PARTNER):
        assert page.post(reverse("privacy:remember"), {"content": content}).status_code == 302
    other = Client()
    other.force_login(other_user)
    assert other.post(reverse("privacy:remember"), {"content": PARTNER}).status_code == 302
    assert MemoryEntry.objects.filter(content__icontains=word).exists()
    run_context_vectors()
    assert_related(word)

    response = page.post(reverse("privacy:erase_all"), {"confirm": "Erase everything"})

    assert response.status_code == 302
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()
    assert_nothing_in_sql(word)
    assert TermVector.objects.filter(term="zanzibar").exists()  # the other user still holds it
    assert not TermVector.objects.filter(term="parrot").exists()


# --- Erasure overlapping the term job -------------------------------------------------------------


@pytest.fixture
def rare(key_client) -> tuple[str, str]:
    """A memory whose only word of its own is a canary; "zanzibar" and the rest are held by another
    memory too. Nothing is embedded yet: the job is what the tests overlap."""
    word = rare_word()
    add(key_client, PARTNER)
    memory_id = add(key_client, f"The user dreams of a trip to {word}.")
    assert waiting() == 5  # user, dream, trip, zanzibar, the canary ("of", "to": stop words)
    return word, memory_id


def test_an_erasure_holding_its_locks_while_the_job_runs(key_client, rare):
    """The erasure has deleted the entry and changed its term rows, uncommitted, when the job reads
    the terms: the job embeds them but stores only what no erasure holds (SKIP LOCKED), without
    waiting; the erasure then commits. The next run stores the words the other memory still holds."""
    word, memory_id = rare
    reports: list[term_vectors.TermRunReport] = []

    errors = overlap(
        held=lambda: erase(key_client, memory_id), meanwhile=lambda: reports.append(term_vectors_run())
    )

    assert errors == []
    [report] = reports  # it finished
    # Only "zanzibar" stored: the canary's row, and the user's rows of the words both memories
    # hold ("user", "dream", "trip": one row, counting both), were the erasure's.
    assert (report.embedded, report.stored) == (5, 1)
    assert_nothing_in_sql(word)
    assert waiting() == 3 and term_vectors_run().stored == 3
    assert_nothing_in_sql(word)


def test_an_erasure_committing_between_the_jobs_store_and_pair(key_client, rare, monkeypatch):
    """The canary's vector is stored (committed) when the erasure runs and commits: the trigger
    deletes it, and the job's pairing, next, finds nothing of it to pair."""
    word, memory_id = rare
    pair = term_vectors._pair
    seen: dict[str, Any] = {}

    def erased_meanwhile(terms: list[str], model: str) -> int:
        assert TermVector.objects.filter(term=word.lower()).exists()  # it was there
        worker, result = in_thread(lambda: erase(key_client, memory_id))
        worker.join(WAIT)
        seen.update(result, finished=not worker.is_alive())
        return pair(terms, model)

    monkeypatch.setattr(term_vectors, "_pair", erased_meanwhile)
    report = term_vectors_run()
    monkeypatch.undo()

    assert "error" not in seen and seen["finished"], seen
    assert (report.embedded, report.stored) == (5, 5)
    assert_nothing_in_sql(word)
    assert TermVector.objects.filter(term="zanzibar").exists()


def test_an_erasure_waiting_for_the_jobs_pairing_then_deletes_its_pairs(key_client, rare, monkeypatch):
    """The job's pairing holds its locks (its transaction held open) when the erasure comes: the
    erasure waits for it, not the other way round, and then deletes the vector and every pair
    the job committed. Neither fails nor deadlocks."""
    word, memory_id = rare
    pair = term_vectors._pair
    seen: dict[str, Any] = {}

    def erased_while_pairing(terms: list[str], model: str) -> int:
        with transaction.atomic():
            written = pair(terms, model)
            assert RelatedTerm.objects.filter(term=word.lower(), related="zanzibar").exists()  # it was there
            worker, result = in_thread(lambda: erase(key_client, memory_id))
            seen["waited"] = waits_for_a_lock()
        worker.join(WAIT)
        seen.update(result, finished=not worker.is_alive())
        return written

    monkeypatch.setattr(term_vectors, "_pair", erased_while_pairing)
    report = term_vectors_run()
    monkeypatch.undo()

    assert "error" not in seen and seen["finished"] and seen["waited"], seen
    assert (report.embedded, report.stored) == (5, 5) and report.pairs > 0
    assert_nothing_in_sql(word)
    assert TermVector.objects.filter(term="zanzibar").exists()


def test_two_users_erasing_the_same_word_at_once_leave_nothing(key_client, monkeypatch):
    """The word's last two holders, in two namespaces, erased by two overlapping requests: u1's
    erasure has deleted its rows, uncommitted, when u2's runs and commits. Each trigger still saw
    the other's term row, so neither deleted the vector; it goes after the commits all the same."""
    word = rare_word()
    add(key_client, PARTNER)
    ids = {user: add(key_client, f"The user dreams of a trip to {word}.", user) for user in ("u1", "u2")}
    run_context_vectors()
    assert_related(word)
    deleted, resume = threading.Barrier(2, timeout=WAIT), threading.Event()
    announce, held = erasure.announce_erased, []

    def first_held(*args: Any, **kwargs: Any) -> Any:  # u1's rows are deleted, its transaction open
        if not held:  # the first erasure only
            held.append(True)
            deleted.wait()
            assert resume.wait(WAIT)
        return announce(*args, **kwargs)

    monkeypatch.setattr(erasure, "announce_erased", first_held)
    first, seen = in_thread(lambda: erase(key_client, ids["u1"], "u1"))
    deleted.wait()
    erase(key_client, ids["u2"], "u2")  # runs through and commits meanwhile, waiting for nothing
    resume.set()
    first.join(WAIT)
    monkeypatch.undo()

    assert "error" not in seen and not first.is_alive(), seen
    assert not MemoryEntry.objects.filter(pk__in=ids.values()).exists()
    assert_nothing_in_sql(word)


def test_the_disk_pass_forgets_a_vector_no_one_holds(key_client):
    """A vector and pairs of a word no namespace holds (an erasure's process gone between its
    commit and its forgetting) go with the disk pass, before its vacuum; held words stay."""
    word = rare_word()
    add(key_client, PARTNER)
    run_context_vectors()
    kept = TermVector.objects.get(term="zanzibar")
    TermVector.objects.create(
        term=word.lower(), embedding=kept.embedding, embedding_model=kept.embedding_model
    )
    RelatedTerm.objects.create(term=word.lower(), related="zanzibar", similarity=0.9)
    RelatedTerm.objects.create(term="zanzibar", related=word.lower(), similarity=0.9)

    assert run_erasure_vacuum()["term_vectors_forgotten"] == 1

    assert_nothing_in_sql(word)
    assert waiting() == 0 and TermVector.objects.filter(term="zanzibar").exists()


# --- Other users, and recall during the job --------------------------------------------------------

MINE = (  # u2's: eight entries, so a word held by two of them is still rare enough to relate
    "The user's kids are mad about the dinosaur exhibit at the museum.",
    "The user's sister teaches piano to children on Saturdays.",
    "The user is reading a novel about a lighthouse keeper.",
    "The user went to a jazz concert with friends last month.",
    "The user wants to repaint the kitchen green.",
    "The user booked a table at the Thai place for Friday.",
    "The user grows tomatoes in the garden.",
    "The user is training for a marathon in the spring.",
)
THEIRS = (  # u1's: "child" only here; "kid" in three entries, where u2 has it in one
    "The user's child adores the dinosaur exhibit at the museum.",
    "The user's kids love jazz and lighthouses.",
    "The user takes the kids to see dinosaurs every Sunday.",
    "The user's kids are learning the piano.",
)
QUERIES = ("What do my children like?", "What does my child like?", "kids child dinosaur museum")


def test_another_users_related_words_never_change_a_users_recall(key_client):
    """u1's words bring pairs that touch u2's ("child" ~ "children", "kid"): u2's recall ranks
    exactly as before they existed, and never returns u1's entries."""
    for content in MINE:
        add(key_client, content, "u2")
    run_context_vectors()
    before = {query: ranking(recall(key_client, query, "u2")) for query in QUERIES}
    assert before == {query: ranking(recall(key_client, query, "u2")) for query in QUERIES}  # repeatable
    kids = recall(key_client, QUERIES[0], "u2")[1]
    assert kids["entry"]["content"] == MINE[0] and kids["breakdown"]["keyword"] > 0  # u2's own pair
    theirs = {add(key_client, content, "u1") for content in THEIRS}
    run_context_vectors()
    related = RelatedTerm.objects.filter(term="child", similarity__gte=term_vectors.RELATED_SIMILARITY)
    assert {"children", "kid"} <= set(related.values_list("related", flat=True))

    after = {query: recall(key_client, query, "u2") for query in QUERIES}

    assert {query: ranking(items) for query, items in after.items()} == before
    assert not {item["entry"]["id"] for items in after.values() for item in items} & theirs
    assert recall(key_client, QUERIES[1], "u1")[0]["entry"]["content"] == THEIRS[0]  # u1's own, for u1


RELATED = (
    "The user booked a table at the Thai place for Friday.",
    "The user's kids are mad about the dinosaur exhibit at the museum.",
    "The user's sister teaches piano to children on Saturdays.",
    "The user wants to repaint the kitchen green.",
)
SISTER, KIDS = RELATED[2], RELATED[1]


@pytest.mark.parametrize("moment", ["stored", "pairing"])
def test_a_recall_overlapping_the_job_answers_without_error(key_client, monkeypatch, moment):
    """A recall meets the job with the vectors stored and no pair yet, or while its pairing holds
    its locks: it neither waits nor fails, and answers as before the job; once the job is done,
    "kids" answers "children" too."""
    for content in RELATED:
        add(key_client, content)
    question = "What do my children like?"
    before = recall(key_client, question)
    at_moment, recalled = threading.Barrier(2, timeout=WAIT), threading.Event()

    def recall_at_the_moment() -> list[dict[str, Any]]:
        at_moment.wait()
        try:
            return recall(key_client, question)
        finally:
            recalled.set()

    thread, seen = in_thread(recall_at_the_moment)
    pair = term_vectors._pair

    def meets_the_recall(terms: list[str], model: str) -> int:
        if moment == "stored":
            at_moment.wait()
            seen["answered_meanwhile"] = recalled.wait(WAIT)
            return pair(terms, model)
        with transaction.atomic():  # the pairing's locks and rows held until the recall answered
            written = pair(terms, model)
            at_moment.wait()
            seen["answered_meanwhile"] = recalled.wait(WAIT)
        return written

    monkeypatch.setattr(term_vectors, "_pair", meets_the_recall)
    report = term_vectors_run()
    monkeypatch.undo()
    thread.join(WAIT)

    assert "error" not in seen and seen["answered_meanwhile"], seen
    assert report.pairs > 0 and TermVector.objects.filter(term="kid").exists()
    assert ranking(seen["result"]) == ranking(before)
    assert seen["result"][0]["entry"]["content"] == SISTER
    after = recall(key_client, question)
    assert [item["entry"]["content"] for item in after[:2]] == [SISTER, KIDS]
    kids_before = next(item for item in before if item["entry"]["content"] == KIDS)
    assert kids_before["breakdown"]["keyword"] == 0 < after[1]["breakdown"]["keyword"]
