# ruff: noqa: RUF001 - Chinese punctuation is what these tests type
"""`CONTEXT_VECTOR = "deferred"` (the default): one transformer pass per memory on the write path,
the context document embedded later by a job, in batches.

Through the routes a client uses (mem0's add, REST add, recall, correct, erase), on the real
local model, counting the texts it embeds (`embeddings.texts_embedded()`): one per turn when the
turns are written; the job's run then stores what the "document" mode stores at once, and recall
ranks as it does there. The job's races with a user's correction or erasure are in
test_deferred_context_races.py."""

from __future__ import annotations

import math

import pytest
from django_q.models import Schedule

from config.conf import specs
from memory_core.context_vectors import SOON_SCHEDULE, TASK, context_vectors_run, waiting
from memory_core.embeddings import texts_embedded
from memory_core.models import MemoryEntry, MemoryStatus
from memory_core.scan import scan_database
from memory_core.schedules import SCHEDULES
from memory_core.tasks import run_context_vectors
from tests.context_turns import ANSWER, QUESTION, TURNS, add_turns, forget_vectors, one_by_one
from tests.erasure_helpers import canary

pytestmark = pytest.mark.django_db

ASKED = "Which city was suggested for the spring trip?"
FACT = "I play the oboe."


@pytest.fixture(autouse=True)
def deferred(settings):
    # The default (checked below), set here so that a developer's `.env` choosing another mode
    # does not change what these tests measure.
    settings.CONTEXT_VECTOR = "deferred"
    forget_vectors()
    yield
    forget_vectors()


def rest_add(client, user_id: str, content: str) -> int:
    """Texts the model embedded for one REST add (a fact on its own: no context)."""
    before = texts_embedded()
    response = client.post("/api/v1/memories/", {"user_id": user_id, "content": content}, format="json")
    assert response.status_code == 201, response.content
    return texts_embedded() - before


def entry(client, user_id: str, content: str) -> MemoryEntry:
    """`user_id`'s current memory saying `content`, as the tenant lists it."""
    listed = client.get("/api/v1/memories/", {"user_id": user_id}).json()["results"]
    [found] = [item["id"] for item in listed if item["content"] == content]
    return MemoryEntry.objects.get(pk=found)


def recalled(client, user_id: str, query: str = ASKED) -> list[dict]:
    response = client.post("/api/v1/recall/", {"user_id": user_id, "query": query}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def cosine(a, b) -> float:
    a, b = [float(x) for x in a], [float(x) for x in b]
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
        sum(x * x for x in a) * sum(y * y for y in b)
    )


@pytest.fixture
def warm(key_client):
    """The same turns added once for another user: the guards' own per-text caches are warm, so
    what the model embeds next is the write path's own texts."""
    add_turns(key_client, "u0", *TURNS)
    rest_add(key_client, "u0", FACT)
    run_context_vectors()


def test_one_pass_per_turn_then_the_job_stores_what_the_document_mode_does(key_client, settings, warm):
    assert one_by_one(key_client, "u1") == [1, 1, 1, 1]  # one model pass per turn

    answer = entry(key_client, "u1", ANSWER)
    assert answer.search_context == QUESTION and answer.context_pending
    assert not entry(key_client, "u1", QUESTION).context_pending  # the first turn has no turn before it
    # Until the job runs, recall finds the answer through its pooled stand-in.
    items = recalled(key_client, "u1")
    contents = [item["entry"]["content"] for item in items]
    assert contents.index(ANSWER) <= 1
    assert (
        items[contents.index(ANSWER)]["breakdown"]["context"]
        > items[contents.index(ANSWER)]["breakdown"]["similarity"]
    )

    before = texts_embedded()
    report = run_context_vectors()  # what the cluster runs when the schedule is due
    assert texts_embedded() - before == 3  # the three turns with a turn before them
    assert (report["embedded"], report["stored"], report["model_calls"], report["more"]) == (3, 3, 1, False)
    assert waiting() == 0

    settings.CONTEXT_VECTOR = "document"
    document = one_by_one(key_client, "u2")
    assert document == [1, 2, 2, 2]  # what the write path saves: the second pass of each turn
    for turn in TURNS:
        job, written = entry(key_client, "u1", turn["content"]), entry(key_client, "u2", turn["content"])
        assert cosine(job.context_embedding, written.context_embedding) > 0.999, turn
        assert not written.context_pending
    # Recall ranks as in the document mode, for the question about the turn before and others.
    for query in (ASKED, "Does anyone in the family have a pet?", "What was fixed at home?"):
        deferred_items, document_items = recalled(key_client, "u1", query), recalled(key_client, "u2", query)
        assert [i["entry"]["content"] for i in deferred_items] == [
            i["entry"]["content"] for i in document_items
        ]
        for a, b in zip(deferred_items, document_items, strict=True):
            assert a["breakdown"]["context"] == pytest.approx(b["breakdown"]["context"], abs=2e-3)


def test_a_conversation_in_one_call_and_a_rest_add_embed_one_text_each(key_client, warm):
    forget_vectors()
    assert add_turns(key_client, "u1", *TURNS) == len(TURNS)
    assert waiting() == 3

    forget_vectors()
    assert rest_add(key_client, "u1", FACT) == 1
    rest = entry(key_client, "u1", FACT)
    assert not rest.context_pending and list(rest.context_embedding) == list(rest.embedding)


def test_a_burst_of_adds_asks_for_one_run_and_the_schedule_is_installed(
    key_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        one_by_one(key_client, "u1")
        add_turns(key_client, "u2", *TURNS)
    [soon] = Schedule.objects.filter(name=SOON_SCHEDULE)
    assert soon.func == TASK and soon.schedule_type == Schedule.ONCE
    assert ("context-vectors", TASK, 10) in SCHEDULES  # the safety net

    # A REST add (no context) leaves nothing waiting and asks for nothing.
    soon.delete()
    with django_capture_on_commit_callbacks(execute=True):
        rest_add(key_client, "u3", FACT)
    assert not Schedule.objects.filter(name=SOON_SCHEDULE).exists()


def test_a_run_is_bounded_and_queues_the_next_while_more_wait(
    key_client, settings, django_capture_on_commit_callbacks
):
    add_turns(key_client, "u1", *TURNS)
    add_turns(key_client, "u2", *TURNS)
    assert waiting() == 6
    settings.CONTEXT_JOB_MAX_ENTRIES = 2

    first = context_vectors_run()
    assert (first.embedded, first.more) == (2, True) and waiting() == 4
    # The task queues its continuation while more wait (each run at once here: tasks are
    # synchronous in tests), and the last run queues nothing.
    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert run_context_vectors()["more"] is True
    assert waiting() == 0
    assert len(queued) == 1  # the run that found nothing more queued nothing


def test_a_correction_made_while_an_entry_waits_is_not_overwritten(key_client):
    one_by_one(key_client, "u1", TURNS[:2])
    waiting_answer = entry(key_client, "u1", ANSWER)
    assert waiting_answer.context_pending

    correction = "Porto, no question - the food alone is worth it!"
    response = key_client.patch(
        f"/api/v1/memories/{waiting_answer.pk}/?user_id=u1", {"content": correction}, format="json"
    )
    assert response.status_code == 200, response.content

    run_context_vectors()

    waiting_answer.refresh_from_db()
    assert waiting_answer.status == MemoryStatus.SUPERSEDED  # the job wrote its vector only
    assert str(waiting_answer.superseded_by_id) == response.json()["id"]
    new = entry(key_client, "u1", correction)
    assert new.status == MemoryStatus.ACTIVE and not new.context_pending
    contents = [item["entry"]["content"] for item in recalled(key_client, "u1")]
    assert correction in contents and ANSWER not in contents


def test_an_entry_erased_while_it_waits_leaves_nothing(key_client):
    marker, other = canary(), canary("Kilimanjaro")
    said = f"My gym is {marker} Fitness."
    one_by_one(
        key_client,
        "u1",
        [
            {"role": "user", "content": said},
            {"role": "assistant", "content": f"Noted, and {other} Park is next to it."},
            {"role": "user", "content": "Thanks, that is all for today."},
        ],
    )
    answer = entry(key_client, "u1", f"Noted, and {other} Park is next to it.")
    assert answer.context_pending and marker in answer.search_context
    # The turn quoted as a waiting entry's context is erased: that context goes, and the entry no
    # longer waits for a document that would have held it.
    erased = key_client.delete(f"/api/v1/memories/{entry(key_client, 'u1', said).pk}/?user_id=u1")
    assert erased.status_code == 204, erased.content
    answer.refresh_from_db()
    assert (answer.search_context, answer.context_pending) == ("", False)
    assert list(answer.context_embedding) == list(answer.embedding)
    # The waiting entry itself is erased: gone, with the context it waited with.
    last = entry(key_client, "u1", "Thanks, that is all for today.")
    assert last.context_pending and other in last.search_context
    assert key_client.delete(f"/api/v1/memories/{answer.pk}/?user_id=u1").status_code == 204
    assert not MemoryEntry.objects.filter(pk=answer.pk).exists()

    before = texts_embedded()
    report = run_context_vectors()
    # the context documents, and the words new since the last run (memory_core.term_vectors)
    assert texts_embedded() - before == report["embedded"] + report["terms"]["embedded"]
    assert scan_database(marker) == {}
    assert scan_database(other) == {}


def test_an_import_is_written_as_before(key_client):
    """Imported statements are facts read alone (no context): nothing waits, nothing changes."""
    from tests.imports_helpers import TRANSCRIPT

    body = {"format": "transcript", "data": TRANSCRIPT, "user_id": "alex"}
    response = key_client.post("/api/v1/imports/", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["counts"] == {"added": 1, "superseded": 1}
    assert waiting() == 0
    for imported in MemoryEntry.objects.all():
        assert not imported.search_context and list(imported.context_embedding) == list(imported.embedding)


def test_reembed_computes_the_context_documents_itself(key_client, settings):
    from io import StringIO

    from django.core.management import call_command

    one_by_one(key_client, "u1", TURNS[:2])
    settings.CONTEXT_VECTOR = "document"
    one_by_one(key_client, "u2", TURNS[:2])
    settings.CONTEXT_VECTOR = "deferred"
    assert waiting() == 1

    call_command("reembed", "--all", stdout=StringIO())

    assert waiting() == 0  # nothing left for the job: the documents were embedded by the command
    reembedded, written = entry(key_client, "u1", ANSWER), entry(key_client, "u2", ANSWER)
    assert cosine(reembedded.context_embedding, written.context_embedding) > 0.999
    assert reembedded.search_context == QUESTION


def test_deferred_is_the_default_mode():
    assert specs()["CONTEXT_VECTOR"].default == "deferred"


@pytest.mark.parametrize(
    "content",
    [
        "I moved last spring, I work nights at a bakery now, and the commute takes an hour.",
        "Since spring I've been cycling to work, my knee is fine again, and I'd rather not drive.",
        "我上个月搬家了，现在晚上在面包店上班，通勤要一个小时。",
    ],
)
def test_a_statement_of_many_clauses_is_one_model_pass(key_client, content):
    """The secret model judges a statement whole (with the vector that is stored); the slot
    reader's clauses are parts of it, checked by the keyword list and patterns, not embedded
    again. The statement is stored, keyed and found as before. (A new person or place named in it
    costs its name's own short pass, for the people graph: these name none.)"""
    assert rest_add(key_client, "u-clauses", content) == 1
    stored = entry(key_client, "u-clauses", content)
    assert stored.status == MemoryStatus.ACTIVE
    assert recalled(key_client, "u-clauses", content)[0]["entry"]["content"] == content


def test_a_written_statements_secret_clause_is_still_refused(key_client):
    """Judged whole, a statement with a secret in one clause is refused before any slot is read."""
    response = key_client.post(
        "/api/v1/memories/",
        {"user_id": "u-clauses", "content": "I moved last spring, and the side gate opens with 4 9 1 7."},
        format="json",
    )
    assert response.status_code in (200, 201, 422), response.content
    listed = key_client.get("/api/v1/memories/", {"user_id": "u-clauses"}).json()["results"]
    assert not any("4 9 1 7" in item["content"] for item in listed)
