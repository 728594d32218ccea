"""The import page with large inputs and stopped imports: a preview of a large paste covers its
first statements and says so; a stopped import shows why and a Retry button that goes on where it
stopped; nobody else can retry it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from memory_core.imports.run import CHUNK
from memory_core.lifecycle import memory_pause
from memory_core.models import ImportJob, MemoryEntry
from tests.imports_helpers import row_counts

pytestmark = pytest.mark.django_db
URL = "/me/import/"


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def _lines(count: int) -> str:
    return "\n".join(f"Has sailed to island number {n}" for n in range(1, count + 1))


def test_a_preview_of_a_large_paste_covers_its_first_statements_and_says_so(owner, settings):
    settings.IMPORT_PREVIEW_MAX = 20
    client = client_for(owner)
    before = row_counts()

    page = client.post(URL, {"format": "text", "text": _lines(300), "dry_run": "1"})

    html = page.content.decode()
    assert page.status_code == 200
    assert "The first 20 of 300 statements" in html and "write all of them" in html
    assert "island number 20<" in html and "island number 21<" not in html
    assert row_counts() == before


@pytest.fixture
def stopped(owner, settings, django_capture_on_commit_callbacks) -> ImportJob:
    """A 60-line import stopped after its first chunk because the user paused memory."""
    settings.IMPORT_JOB_THRESHOLD = 10
    settings.IMPORT_RUN_SECONDS = 1e-6  # one chunk per run
    with django_capture_on_commit_callbacks() as queued:
        client_for(owner).post(URL, {"format": "text", "text": _lines(60)})
    with django_capture_on_commit_callbacks() as writing:
        queued[0]()  # the first run reads the input (and checks it for secrets)
    with django_capture_on_commit_callbacks() as continuation:
        writing[0]()  # the second writes a chunk
    memory_pause(actor=owner, paused=True)
    continuation[0]()
    memory_pause(actor=owner, paused=False)
    job = ImportJob.objects.get()
    assert (job.status, job.done) == ("failed", CHUNK)
    return job


def test_a_stopped_import_shows_why_and_a_retry_goes_on_where_it_stopped(
    owner, stopped, django_capture_on_commit_callbacks
):
    client = client_for(owner)
    page = client.get(reverse("privacy:import_job", args=[stopped.pk])).content.decode()
    assert f"Stopped after {CHUNK} of 60" in page and f"Retry: go on from statement {CHUNK + 1}" in page

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("privacy:import_retry", args=[stopped.pk]))

    assert response.status_code == 302 and response.url == reverse("privacy:import_job", args=[stopped.pk])
    stopped.refresh_from_db()
    assert (stopped.status, stopped.done, stopped.error) == ("done", 60, "")
    assert [row["line"] for row in stopped.results] == list(range(1, 61))  # each line once
    assert MemoryEntry.objects.count() == 60
    assert "Retry" not in client.get(response.url).content.decode()


@pytest.mark.parametrize("intruder", ["other_user", "operator"])
def test_nobody_else_retries_an_import(request, stopped, intruder):
    client = client_for(request.getfixturevalue(intruder))
    assert client.post(reverse("privacy:import_retry", args=[stopped.pk])).status_code == 404
    stopped.refresh_from_db()
    assert stopped.status == "failed"


def test_anonymous_is_sent_to_sign_in(stopped):
    response = Client().post(reverse("privacy:import_retry", args=[stopped.pk]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_a_retry_needs_the_csrf_token(owner, stopped):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.post(reverse("privacy:import_retry", args=[stopped.pk])).status_code == 403
