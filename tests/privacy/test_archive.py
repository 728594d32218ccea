"""The archive on /me/: what the forgetting job set aside, why and when, restored with one click;
and the activity log's summary of the last passes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from memory_core.forgetting import decay
from memory_core.models import ActiveDay, MemoryEntry, MemoryEvent, MemoryStatus, Namespace
from memory_core.recall import memory_recall
from memory_core.services import namespace_for_user
from tests.memory_core.helpers import remember
from tests.privacy.helpers import opened

pytestmark = [pytest.mark.django_db]


def _archived_by_the_job(user, content: str) -> MemoryEntry:
    """A memory learned long ago, never used while the user was active every day since: archived."""
    now = timezone.now()
    entry = remember(user, content, importance=0)
    long_ago = now - timedelta(days=300)
    MemoryEntry.objects.filter(pk=entry.pk).update(recorded_at=long_ago, valid_from=long_ago)
    entry.evidence.update(created_at=long_ago)
    namespace = namespace_for_user(user=user)
    ActiveDay.objects.bulk_create(
        [ActiveDay(namespace=namespace, day=(now - timedelta(days=n)).date()) for n in range(300)],
        ignore_conflicts=True,
    )
    # A fact of importance 0 idle for 300 active days: negligible once facts may decay.
    with override_settings(FORGET_MAX_SHARE_PER_PASS=1.0, FORGET_DECAY_TYPES=["episodic", "semantic"]):
        decay(now)
    entry.refresh_from_db()
    assert entry.status == MemoryStatus.ARCHIVED
    return entry


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_it_shows_archived_memories_with_why_and_when(owner, other_user):
    entry = _archived_by_the_job(owner, "The user once mentioned a podcast about <b>knots</b>.")
    _archived_by_the_job(other_user, "Bob's archived secret.")

    html = _client(owner).get(reverse("privacy:index")).content.decode()

    archive = html[html.index('id="archived"') :]
    assert "Archived <small>(1)</small>" in archive
    assert "a podcast about &lt;b&gt;knots&lt;/b&gt;" in archive  # escaped: memory content is untrusted
    assert f"{entry.expired_at:%Y-%m-%d}" in archive
    assert "retention 0.0" in archive and "active days since last use" in archive
    assert reverse("privacy:restore", args=[entry.pk]) in archive
    assert "Bob" not in html


def test_one_click_restores_it_and_the_assistant_uses_it_again(owner):
    entry = _archived_by_the_job(owner, "The user once mentioned a podcast about knots.")
    assert memory_recall(actor=owner, query="podcast about knots", record=False).items == []
    client = _client(owner)

    response = client.post(reverse("privacy:restore", args=[entry.pk]))

    assert response.status_code == 302
    assert response.url == reverse("privacy:memory", args=[entry.pk])
    entry.refresh_from_db()
    assert entry.status == MemoryStatus.ACTIVE
    assert MemoryEvent.objects.filter(entry=entry, action="restored", actor_kind="user").exists()
    page = client.get(response.url).content.decode()
    assert "Restored: the assistant uses it again" in page
    assert "Archived <small>(0)</small>" in client.get(reverse("privacy:index")).content.decode()
    recalled = memory_recall(actor=owner, query="podcast about knots", record=False).items
    assert [item.entry.pk for item in recalled] == [entry.pk]


def test_the_card_restores_in_place_with_htmx(owner):
    entry = _archived_by_the_job(owner, "The user once mentioned a podcast about knots.")
    client = _client(owner)
    listed = opened(client, client.get(reverse("privacy:index"), {"status": "archived"}).content.decode())
    assert f'hx-post="{reverse("privacy:restore", args=[entry.pk])}"' in listed

    response = client.post(reverse("privacy:restore", args=[entry.pk]), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    fragment = response.content.decode()
    assert fragment.lstrip().startswith(f'<li class="memory row status-active" id="memory-{entry.pk}"')
    assert "Restored" in fragment and "Don't use this" in fragment


def test_restoring_a_memory_that_is_not_archived_says_so_and_changes_nothing(owner):
    entry = remember(owner, "The user lives in Lisbon.")
    MemoryEntry.objects.filter(pk=entry.pk).update(status=MemoryStatus.SUPERSEDED)

    response = _client(owner).post(reverse("privacy:restore", args=[entry.pk]), follow=True)

    assert "Only archived memories can be restored" in response.content.decode()
    entry.refresh_from_db()
    assert entry.status == MemoryStatus.SUPERSEDED


def test_the_activity_log_shows_what_the_last_passes_did(owner):
    entry = _archived_by_the_job(owner, "The user once mentioned a podcast about knots.")
    Namespace.objects.filter(pk=entry.namespace_id).update(memory_capacity=1)

    html = _client(owner).get(reverse("privacy:activity")).content.decode()

    section = html[html.index('id="forgetting"') : html.index('id="erasures"')]
    assert "archived (decayed) 1" in section
