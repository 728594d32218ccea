"""Ending, renaming and deleting conversations, and the "memory updated" notices."""

from __future__ import annotations

import pytest

from chat.models import Conversation, Message
from chat.services import message_post
from memory_core.extraction.jobs import extraction_enqueue
from memory_core.models import ExtractionJob, MemoryEntry
from memory_core.services import namespace_for_user
from tests.chat.helpers import client_for, conversation, pause_memory, remember, say

pytestmark = pytest.mark.django_db


def test_it_ends_a_conversation_and_shows_what_was_learned(owner, django_capture_on_commit_callbacks):
    conv = conversation(owner)
    say(owner, conv, "I'm severely allergic to peanuts.")
    client = client_for(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/c/{conv.pk}/end/")
    page = client.get(response["Location"]).content.decode()
    assert "Conversation ended. What it taught me is being saved to memory." in page
    entry = MemoryEntry.objects.visible_to(owner).get()
    assert "<strong>Memory updated</strong>: 1 new." in page
    assert f'href="/me/memories/{entry.pk}/"' in page and "allergic to peanuts" in page
    assert "every 3s" not in page  # nothing left to wait for
    conv.refresh_from_db()
    assert conv.closed_at is not None
    assert ExtractionJob.objects.get().trigger == "closed"


def test_offline_each_turn_is_learned_at_once_and_the_end_has_nothing_left(
    owner, settings, django_capture_on_commit_callbacks
):
    settings.CHAT_LEARN_EACH_TURN_OFFLINE = True
    conv = conversation(owner)
    with django_capture_on_commit_callbacks(execute=True):
        message, _reply = say(owner, conv, "I'm severely allergic to peanuts.")
    entry = MemoryEntry.objects.visible_to(owner).get()
    assert ExtractionJob.objects.get().trigger == "turn"
    client = client_for(owner)
    page = client.get(f"/c/{conv.pk}/").content.decode()
    turn = page.split(f'id="m-{message.pk}"', 1)[1].split("</li>\n", 1)[0]
    assert "Memory updated" in turn and f'href="/me/memories/{entry.pk}/"' in turn and "Undo" in turn
    response = client.post(f"/c/{conv.pk}/end/", follow=True)
    assert "There was nothing new to learn from it." in response.content.decode()


def test_it_ends_an_incognito_conversation_without_learning(owner, django_capture_on_commit_callbacks):
    conv = conversation(owner, incognito=True)
    say(owner, conv, "I'm severely allergic to peanuts.")
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(owner).post(f"/c/{conv.pk}/end/", follow=True)
    page = response.content.decode()
    assert "It was incognito, so nothing from it was remembered." in page
    assert "Memory updated" not in page
    assert not ExtractionJob.objects.exists() and not MemoryEntry.objects.exists()


def test_it_ends_a_conversation_while_paused_without_learning(owner, django_capture_on_commit_callbacks):
    conv = conversation(owner)
    say(owner, conv, "I'm severely allergic to peanuts.")
    pause_memory(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(owner).post(f"/c/{conv.pk}/end/", follow=True)
    assert "Memory is paused, so nothing from it was remembered." in response.content.decode()
    assert not ExtractionJob.objects.exists()


def test_it_polls_the_notices_while_a_job_is_unfinished(owner, django_capture_on_commit_callbacks):
    conv = conversation(owner)
    message = message_post(conversation=conv, content="I live in Lisbon.")
    # Queued without running (the commit callback that would run it is not executed).
    job = extraction_enqueue(
        namespace=namespace_for_user(user=owner),
        source_conversation=str(conv.pk),
        messages=[{"id": str(message.pk), "role": "user", "content": message.content}],
    )
    client = client_for(owner)
    page = client.get(f"/c/{conv.pk}/").content.decode()
    assert 'hx-trigger="chat-refresh from:body, every 3s"' in page
    assert "Learning from this conversation…" in page

    from memory_core.extraction.jobs import extraction_run

    extraction_run(job_id=job.pk)
    partial = client.get(f"/c/{conv.pk}/notices/", HTTP_HX_REQUEST="true").content.decode()
    assert partial.lstrip().startswith('<div id="notices"')
    assert "every 3s" not in partial and "<html" not in partial
    assert "<strong>Memory updated</strong>: 1 new." in partial and "Lisbon" in partial


def test_it_redirects_notices_opened_without_htmx(owner):
    conv = conversation(owner)
    response = client_for(owner).get(f"/c/{conv.pk}/notices/")
    assert response.status_code == 302 and response["Location"] == f"/c/{conv.pk}/"


def test_it_escapes_learned_memories_in_notices(owner):
    conv = conversation(owner)
    entry = remember(owner, "The user's nickname is <script>x()</script>.")
    ExtractionJob.objects.create(
        namespace=namespace_for_user(user=owner),
        idempotency_key="test",
        source_conversation=str(conv.pk),
        status="done",
        result={"added": 1, "changed": [str(entry.pk)]},
    )
    page = client_for(owner).get(f"/c/{conv.pk}/notices/", HTTP_HX_REQUEST="true").content.decode()
    assert "Memory updated" in page and f"/me/memories/{entry.pk}/" in page
    assert "<script>x()</script>" not in page
    assert "&lt;script&gt;x()&lt;/script&gt;" in page


def test_it_renames_a_conversation(owner):
    conv = conversation(owner)
    response = client_for(owner).post(f"/c/{conv.pk}/rename/", {"title": "  Trip to Porto  "}, follow=True)
    conv.refresh_from_db()
    assert conv.title == "Trip to Porto"
    assert '<h1 id="conversation-title">Trip to Porto</h1>' in response.content.decode()


@pytest.mark.parametrize(("title", "error"), [("   ", "may not be blank"), ("x" * 201, "At most 200")])
def test_it_refuses_a_bad_title(owner, title, error):
    conv = conversation(owner, title="Kept")
    response = client_for(owner).post(f"/c/{conv.pk}/rename/", {"title": title}, follow=True)
    assert error in response.content.decode()
    conv.refresh_from_db()
    assert conv.title == "Kept"


def test_it_asks_before_deleting(owner):
    conv = conversation(owner, title="Trip")
    page = client_for(owner).get(f"/c/{conv.pk}/delete/").content.decode()
    assert "Delete “Trip”?" in page and f'action="/c/{conv.pk}/delete/"' in page
    assert Conversation.objects.exists()


def test_it_deletes_a_conversation_and_keeps_its_memories(owner):
    conv = conversation(owner)
    say(owner, conv, "Remember that I live in Lisbon.")
    response = client_for(owner).post(f"/c/{conv.pk}/delete/", follow=True)
    assert response.redirect_chain[-1][0] == "/"
    assert "Conversation deleted." in response.content.decode()
    assert not Conversation.objects.exists() and not Message.objects.exists()
    assert MemoryEntry.objects.visible_to(owner).filter(content__icontains="Lisbon").exists()


def test_it_shows_only_the_users_own_jobs(owner, other_user):
    conv = conversation(owner)
    theirs = remember(other_user, "Bob's private fact.")
    # Someone else's job naming this conversation (e.g. through the API) is not shown here.
    ExtractionJob.objects.create(
        namespace=namespace_for_user(user=other_user),
        idempotency_key="other",
        source_conversation=str(conv.pk),
        status="done",
        result={"added": 1, "changed": [str(theirs.pk)]},
    )
    page = client_for(owner).get(f"/c/{conv.pk}/notices/", HTTP_HX_REQUEST="true").content.decode()
    assert "Memory updated" not in page and str(theirs.pk) not in page
