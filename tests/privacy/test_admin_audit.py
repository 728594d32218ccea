"""The Django admin: staff only, and every opening of a personal memory is in the audit trail."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from memory_core.models import NamespaceGrant
from memory_core.moderation import procedure_create
from memory_core.services import namespace_create
from privacy.models import AuditAction, AuditEvent
from privacy.selectors import staff_access
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_user(make_user):
    return make_user("root", is_staff=True, is_superuser=True)


def change_url(entry) -> str:
    return reverse("admin:memory_core_memoryentry_change", args=[entry.pk])


def test_every_view_of_a_personal_memory_is_audited(owner, admin_user):
    entry = remember(owner, "The user is allergic to peanuts.")
    client = Client()
    client.force_login(admin_user)

    assert client.get(change_url(entry)).status_code == 200
    assert client.get(change_url(entry)).status_code == 200
    assert client.get(reverse("admin:memory_core_memoryentry_changelist") + "?q=peanuts").status_code == 200

    views = AuditEvent.objects.filter(action=AuditAction.ADMIN_VIEW)
    assert [(a.actor, a.entry_ref, a.namespace.owner) for a in views] == [(admin_user, entry.pk, owner)] * 2
    listing = AuditEvent.objects.get(action=AuditAction.ADMIN_LIST)
    assert "peanuts" not in listing.path  # the search is not copied into the trail
    event = entry.events.get()
    assert client.get(reverse("admin:memory_core_memoryevent_change", args=[event.pk])).status_code == 200
    assert AuditEvent.objects.filter(action=AuditAction.ADMIN_HISTORY, entry_ref=entry.pk).count() == 1
    # The owner can see who looked.
    assert [a.actor for a in staff_access(user=owner)] == [admin_user] * 3


def test_opening_an_org_procedure_is_not_a_personal_access(owner, admin_user, moderator):
    NamespaceGrant.objects.create(namespace=namespace_create(path="org/acme", kind="org"), user=owner)
    sop = procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    client = Client()
    client.force_login(admin_user)
    assert client.get(change_url(sop)).status_code == 200
    assert not AuditEvent.objects.filter(action=AuditAction.ADMIN_VIEW).exists()


@pytest.mark.parametrize("user", ["owner", "moderator", None])
def test_the_admin_is_staff_only(request, owner, user):
    entry = remember(owner, "The user is allergic to peanuts.")
    client = Client()
    if user:
        person = request.getfixturevalue(user)
        client.force_login(person)
    response = client.get(change_url(entry))
    # Non-staff are sent to the admin login; staff without the model permission get 403.
    assert response.status_code in (302, 403)
    assert b"peanuts" not in response.content
    assert not AuditEvent.objects.filter(action=AuditAction.ADMIN_VIEW).exists()
