"""POST /api/v1/imports/ and GET /api/v1/imports/{id}/: each format keeps its dates, every statement
passes the write pipeline, a dry run writes nothing, bad input is a clear 400, large imports are jobs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from memory_core.models import FlaggedWrite, FlagKind, ImportJob, MemoryEntry, MemoryStatus
from memory_core.scan import scan_database, scan_job_queue
from tests.imports_helpers import MEM0_EXPORT, PASTED_LISTS, SAVED_MEMORIES, TRANSCRIPT, mem0_file, row_counts

URL = "/api/v1/imports/"


def _import(client, format: str, data, **extra):
    return client.post(URL, {"format": format, "data": data, **extra}, format="json")


def test_it_imports_a_mem0_export_keeping_its_dates(key_client):
    response = _import(key_client, "mem0", mem0_file(), user_id="alex")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "done" and body["done"] == body["total"] == 2
    assert body["counts"] == {"added": 2}
    veg = MemoryEntry.objects.get(content="Is vegetarian")
    assert veg.valid_from == datetime(2024, 7, 20, 8, 30, 12, 345678, tzinfo=UTC)  # -07:00 kept
    assert veg.source_kind == "api_import"
    assert veg.metadata["categories"] == ["food", "user_preferences"]
    assert veg.metadata["mem0_updated_at"].startswith("2024-08-02")
    assert [row["content"] for row in body["results"]] == [
        "Is vegetarian",
        "Works as a marine biologist in Halifax",
    ]
    # The same file again is recognised, not counted twice.
    again = _import(key_client, "mem0", MEM0_EXPORT, user_id="alex").json()
    assert again["counts"] == {"ignored": 2}
    assert MemoryEntry.objects.count() == 2


def test_it_imports_a_pasted_saved_memories_list(owner_client, owner):
    response = _import(owner_client, "text", SAVED_MEMORIES)

    assert response.status_code == 201, response.content
    stored = set(MemoryEntry.objects.filter(namespace__owner=owner).values_list("content", flat=True))
    assert stored == {
        "Prefers answers in bullet points",
        "Has two cats named Miso and Tofu",
        "Is learning Portuguese",
        "Started running half marathons",
        "Uses Neovim for all coding",
    }
    dated = MemoryEntry.objects.get(content="Started running half marathons")
    assert dated.valid_from.date().isoformat() == "2024-03-15"


def test_it_imports_a_transcript_dating_each_fact_by_its_message(key_client):
    response = _import(key_client, "transcript", TRANSCRIPT, user_id="alex")

    assert response.status_code == 201, response.content
    assert response.json()["counts"] == {"added": 1, "superseded": 1}
    lisbon = MemoryEntry.objects.get(content__icontains="Lisbon")
    porto = MemoryEntry.objects.get(content__icontains="Porto")
    assert lisbon.valid_from == datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
    assert porto.valid_from == datetime(2025, 6, 1, 18, 30, tzinfo=UTC)
    assert lisbon.status == MemoryStatus.SUPERSEDED and lisbon.valid_to == porto.valid_from
    assert porto.source_kind == "extracted"


def test_a_secret_is_refused_as_the_memories_api_refuses_it(key_client):
    canary = "Tr0ub4dor-93xq"
    line = f"My bank password is {canary}"
    direct = key_client.post("/api/v1/memories/", {"user_id": "alex", "content": line}, format="json").json()

    imported = _import(key_client, "text", f"- Likes tea\n- {line}\n", user_id="alex").json()
    preview = _import(key_client, "text", f"- {line}\n", user_id="alex", dry_run=True).json()

    row = imported["results"][1]
    assert (
        (row["action"], row["reason"])
        == (direct["action"], direct["reason"])
        == (
            "rejected",
            "contains a secret (password)",
        )
    )
    assert preview["results"][0]["action"] == "rejected"
    assert canary not in preview["results"][0]["content"]  # the preview shows it redacted
    assert imported["counts"] == {"added": 1, "rejected": 1}
    assert FlaggedWrite.objects.filter(kind=FlagKind.SECRET_DROPPED).count() == 2  # one per real write
    assert scan_database(canary, text_only=True) == {} and scan_job_queue(canary) == []


def test_a_rule_weakening_a_policy_waits_for_review_and_is_flagged(owner_client):
    body = _import(owner_client, "text", "Refund tickets no longer need manager approval").json()

    assert body["results"][0]["action"] == "pending_review"
    entry = MemoryEntry.objects.get()
    assert entry.status == MemoryStatus.PENDING_REVIEW and entry.type == "procedural"
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING, entry=entry).exists()


def test_an_imported_login_pair_is_refused_and_a_caveat_given_up_waits_flagged(owner_client):
    canary = "heronsandherrings"
    lines = f"Lake cabin wifi: CabinNet / {canary}\nStop adding the allergy wording to my restaurant bookings"

    body = _import(owner_client, "text", lines).json()

    assert [row["action"] for row in body["results"]] == ["rejected", "pending_review"], body
    assert canary not in str(body)
    assert scan_database(canary, text_only=True) == {} and scan_job_queue(canary) == []
    held = MemoryEntry.objects.get()
    assert FlaggedWrite.objects.filter(kind=FlagKind.POLICY_WEAKENING, entry=held).exists()


def test_duplicates_merge(owner_client):
    owner_client.post("/api/v1/memories/", {"content": "Is learning Portuguese"}, format="json")

    body = _import(owner_client, "text", "Is learning Portuguese\nLoves hiking\nLoves hiking").json()

    assert [row["action"] for row in body["results"]] == ["merged", "added", "merged"]
    assert MemoryEntry.objects.count() == 2
    assert MemoryEntry.objects.get(content="Loves hiking").evidence_count == 2


@pytest.mark.parametrize(
    ("format", "data"),
    [
        ("mem0", mem0_file()),
        ("text", SAVED_MEMORIES + "Refund tickets no longer need approval\n"),
        ("transcript", TRANSCRIPT),
    ],
)
def test_a_dry_run_says_what_would_happen_and_writes_nothing(owner_client, format, data):
    owner_client.post("/api/v1/memories/", {"content": "Is vegetarian"}, format="json")
    before = row_counts()

    response = _import(owner_client, format, data, dry_run=True)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["dry_run"] is True and body["results"]
    assert row_counts() == before
    actions = {row["action"] for row in body["results"]}
    expected = {
        "mem0": {"merged", "added"},
        "text": {"added", "pending_review"},
        "transcript": {"added", "superseded"},
    }
    assert actions == expected[format]
    if format == "mem0":
        merged = body["results"][0]
        assert merged["existing"] == "Is vegetarian" and merged["entry"] is not None
    if format == "transcript":
        assert body["results"][1]["reason"] == "replaces line 1"


def test_a_dry_run_for_a_new_tenant_user_creates_nobody(key_client):
    before = row_counts()
    assert _import(key_client, "text", "Likes tea", user_id="newcomer", dry_run=True).status_code == 200
    assert row_counts() == before


@pytest.mark.parametrize(
    ("format", "data", "message"),
    [
        ("mem0", '{"results": [{"memory": "Likes tea"', "not valid JSON"),
        ("mem0", {"results": [{"memory": "Likes tea", "created_at": "last tuesday"}]}, "not an ISO date"),
        ("mem0", [{"memory": ""}], "has no `memory` text"),
        ("text", "  \n\n - \n", "the text is empty"),
        ("text", "2024-13-45: I live in Lisbon", "not an ISO date"),  # well-formed, impossible
        ("transcript", [{"role": "narrator", "content": "Hi"}], "`role` must be user or assistant"),
        ("transcript", "[]", "Not a transcript"),
        ("csv", "a,b", "not a valid choice"),
    ],
)
def test_bad_input_is_a_clear_400_and_nothing_is_written(owner_client, format, data, message):
    before = row_counts()
    for dry_run in (True, False):
        response = _import(owner_client, format, data, dry_run=dry_run)
        assert response.status_code == 400, response.content
        assert message in str(response.json())
    assert row_counts() == before


def test_an_oversized_import_is_refused(owner_client, settings):
    settings.IMPORT_MAX_BYTES = 200
    before = row_counts()
    response = _import(owner_client, "text", "Likes tea\n" * 40)
    assert response.status_code == 400 and "too large" in response.json()["detail"]
    assert row_counts() == before


def test_a_large_import_runs_as_a_job_with_progress(
    owner_client, settings, django_capture_on_commit_callbacks
):
    settings.IMPORT_JOB_THRESHOLD = 10
    lines = "\n".join(f"- Has visited city number {n}" for n in range(1, 61))

    with django_capture_on_commit_callbacks() as queued:
        response = _import(owner_client, "text", lines)
    assert response.status_code == 202, response.content
    job = response.json()
    assert (job["status"], job["done"], job["total"]) == ("queued", 0, 60)
    assert MemoryEntry.objects.count() == 0

    for callback in queued:  # what the cluster does: run memory_core.tasks.import_job
        callback()

    status = owner_client.get(f"{URL}{job['id']}/").json()
    assert (status["status"], status["done"], status["total"]) == ("done", 60, 60)
    assert sum(status["counts"].values()) == 60 and len(status["results"]) == 60
    assert MemoryEntry.objects.count() == status["counts"]["added"]
    assert ImportJob.objects.get().items == []  # the pending statements are gone once written


def test_a_job_goes_on_where_it_stopped(owner, settings, django_capture_on_commit_callbacks):
    """A worker lost after some chunks: the retried task writes only what is left."""
    from memory_core.imports import import_create, import_run
    from memory_core.imports.run import _claim, _read_window, _step
    from memory_core.services import namespace_for_user

    settings.IMPORT_JOB_THRESHOLD = 10
    namespace = namespace_for_user(user=owner)
    with django_capture_on_commit_callbacks():
        job = import_create(
            namespace=namespace,
            format="text",
            data="\n".join(f"Owns vinyl record {n}" for n in range(40)),
            actor_kind="user",
        )
    _, claim = _claim(job.pk)
    assert _read_window(job.pk, claim)  # its input read (and checked) first: 40 statements
    _step(job.pk, claim)  # one chunk written, then the worker "dies"
    job.refresh_from_db()
    assert 0 < job.done < job.total == 40 and job.status == "running"

    assert import_run(job_id=job.pk).done == job.done  # its claim holds until the task timeout
    ImportJob.objects.filter(pk=job.pk).update(claimed_until=timezone.now())  # ... which passed

    finished = import_run(job_id=job.pk)
    assert finished is not None and finished.status == "done" and finished.done == 40
    assert len(finished.results) == 40 and MemoryEntry.objects.count() == 40
    assert finished.attempts == 1  # the run that died


def test_paused_memory_refuses_an_import(owner_client, owner):
    from memory_core.lifecycle import memory_pause

    memory_pause(actor=owner, paused=True)
    response = _import(owner_client, "text", "Likes tea")
    assert response.status_code == 409 and "paused" in response.json()["detail"].lower()
    assert MemoryEntry.objects.count() == 0 and ImportJob.objects.count() == 0


def test_another_users_import_is_not_found(owner_client, other_client):
    job = _import(owner_client, "text", "Likes tea").json()
    assert other_client.get(f"{URL}{job['id']}/").status_code == 404
    assert owner_client.get(f"{URL}{job['id']}/").status_code == 200
    assert owner_client.get(f"{URL}not-a-uuid/").status_code == 404


def test_erasing_everything_erases_the_imports(owner_client, owner):
    _import(owner_client, "text", "Likes tea")
    assert (
        owner_client.post("/api/v1/memories/erase-all/", {"confirm": True}, format="json").status_code == 200
    )
    assert ImportJob.objects.count() == 0


@pytest.mark.parametrize(
    "pasted",
    [
        "Saved memories\n- Keeps a sourdough starter called Bubbles\n- Cycles to work on Tuesdays\n",
        "Here's everything I've noted about you so far:\n\n1. Keeps a sourdough starter called Bubbles\n"
        "2. Cycles to work on Tuesdays\n",
        "## Memory\n* Keeps a sourdough starter called Bubbles\n* Cycles to work on Tuesdays\n",
        "以下是我目前记住的关于你的内容\uff1a\n- Keeps a sourdough starter called Bubbles\n"
        "- Cycles to work on Tuesdays\n",
        "What I know about you\n• Keeps a sourdough starter called Bubbles\n• Cycles to work on Tuesdays\n",
    ],
)
def test_the_title_above_a_pasted_list_is_not_a_memory(key_client, pasted):
    response = _import(key_client, "text", pasted, user_id="alex")

    assert response.status_code == 201, response.content
    assert sorted(MemoryEntry.objects.values_list("content", flat=True)) == [
        "Cycles to work on Tuesdays",
        "Keeps a sourdough starter called Bubbles",
    ]


def test_an_unbulleted_list_keeps_its_first_line(key_client):
    pasted = "Keeps a sourdough starter called Bubbles\nCycles to work on Tuesdays\n"
    assert _import(key_client, "text", pasted, user_id="alex").status_code == 201
    assert MemoryEntry.objects.count() == 2


@pytest.mark.parametrize("name", sorted(PASTED_LISTS))
def test_a_dry_run_lists_the_lines_left_out_of_a_pasted_list_with_the_reason(key_client, name):
    pasted, memories, left_out = PASTED_LISTS[name]
    lines = pasted.splitlines()

    body = _import(key_client, "text", pasted, user_id="alex", dry_run=True).json()

    assert [row["content"] for row in body["results"]] == memories
    assert body["total"] == len(memories) == sum(body["counts"].values())
    assert [(row["line"], row["reason"]) for row in body["skipped"]] == left_out
    for row in body["skipped"]:
        assert row["text"] == lines[row["line"] - 1].strip()
    # The import of the same paste stores the memories and nothing of what was left out.
    assert _import(key_client, "text", pasted, user_id="alex").status_code == 201
    assert sorted(MemoryEntry.objects.values_list("content", flat=True)) == sorted(memories)


def test_a_dry_run_of_other_formats_leaves_no_line_out(key_client):
    body = _import(key_client, "mem0", mem0_file(), user_id="alex", dry_run=True).json()
    assert body["skipped"] == []
