"""The Django admin: staff only, and every opening of a personal memory is in the audit trail."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.admin.models import DELETION, LogEntry
from django.test import Client
from django.urls import reverse

from chat.services import conversation_close
from memory_core.models import (
    EventAction,
    FlaggedWrite,
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    NamespaceGrant,
    RecallLog,
)
from memory_core.moderation import procedure_create
from memory_core.recall import memory_recall
from memory_core.scan import scan_database
from memory_core.services import namespace_create
from privacy.models import AuditAction, AuditEvent
from privacy.selectors import staff_access
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say
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


# --- Deleting is erasing; the list and the log hold no personal content ----------------------------

# A made-up place no other text holds (a word-and-digits token would read as a credential).
MARK = "Tamarindvale"
CHAT_TABLES = {"chat_conversation", "chat_message"}


class _FormFields(HTMLParser):
    """The named inputs, selects and textareas of the admin change form, as a browser posts them."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        name = a.get("name")
        if tag == "input" and name and a.get("type") not in ("submit", "checkbox", "button"):
            self.data[name] = a.get("value") or ""
        elif tag == "input" and name and a.get("type") == "checkbox" and "checked" in a:
            self.data[name] = a.get("value") or "on"
        elif tag == "textarea" and name:
            self._textarea, self.data[name] = name, ""
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.data[self._textarea] += data


@pytest.fixture
def merged(owner, django_capture_on_commit_callbacks):
    """A memory said three times (one entry, three pieces of evidence), recalled, extracted by a
    finished job, and changed once in the admin; plus a flagged rule quoting the same text."""
    conversation = new_conversation(owner)
    for _ in range(3):
        say(owner, conversation, f"Remember that I live in {MARK}.")
    with django_capture_on_commit_callbacks(execute=True):
        conversation_close(conversation=conversation)
    entry = MemoryEntry.objects.get(content__icontains=MARK)
    assert entry.evidence_count == 3
    memory_recall(actor=owner, query=f"Where does the user live? {MARK}", record=True)
    rules = new_conversation(owner)
    say(owner, rules, f"Remember that from now on refunds for {MARK} no longer need approval.")
    rule = MemoryEntry.objects.get(content__icontains="refunds")
    assert rule.status == MemoryStatus.PENDING_REVIEW and FlaggedWrite.objects.filter(entry=rule).exists()
    assert RecallLog.objects.filter(entry=entry).exists()
    return entry, rule


def _admin(admin_user) -> Client:
    client = Client()
    client.force_login(admin_user)
    return client


def _change_pinned(client: Client, entry) -> None:
    html = client.get(change_url(entry)).content.decode()
    parser = _FormFields()
    parser.feed(html)
    data = {**parser.data, "pinned": "on", "content": "Overwritten in the admin."}
    response = client.post(change_url(entry), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    client.get(response.url)  # shows (and so consumes) the "changed successfully" message


@pytest.mark.parametrize("how", ["single", "bulk"])
def test_it_erases_a_memory_deleted_in_the_admin_everywhere(owner, admin_user, merged, how):
    entry, rule = merged
    keep = remember(owner, "The user's gym is Kilimanjarohill.")
    client = _admin(admin_user)
    _change_pinned(client, entry)
    assert LogEntry.objects.get(object_id=str(entry.pk)).object_repr == str(entry.pk)
    assert "memory_core_memoryentry" in scan_database(MARK)

    if how == "single":
        page = client.get(reverse("admin:memory_core_memoryentry_delete", args=[entry.pk]))
        assert page.status_code == 200
        response = client.post(
            reverse("admin:memory_core_memoryentry_delete", args=[entry.pk]), {"post": "yes"}
        )
        client.post(reverse("admin:memory_core_memoryentry_delete", args=[rule.pk]), {"post": "yes"})
    else:
        changelist = reverse("admin:memory_core_memoryentry_changelist")
        selected = {"action": "delete_selected", "_selected_action": [str(entry.pk), str(rule.pk)]}
        confirm = client.post(changelist, selected)
        assert confirm.status_code == 200 and MARK not in confirm.content.decode()
        response = client.post(changelist, {**selected, "post": "yes"})
    assert response.status_code == 302
    assert MARK not in client.get(response.url).content.decode()  # the success message names ids

    assert not MemoryEntry.objects.filter(pk__in=[entry.pk, rule.pk]).exists()
    assert set(scan_database(MARK)) <= CHAT_TABLES
    assert MemoryEntry.objects.filter(pk=keep.pk).exists()
    events = MemoryEvent.objects.filter(entry_ref=entry.pk)
    assert events.filter(action=EventAction.ERASED).count() == 1 and not events.exclude(data={}).exists()
    assert LogEntry.objects.filter(object_id=str(entry.pk), action_flag=DELETION).exists()


def test_it_refuses_to_delete_a_procedure_no_one_owns_in_the_admin(admin_user, moderator):
    # memory_erase needs the namespace's owner; an org namespace has none (no erase path yet).
    namespace_create(path="org/acme", kind="org")
    sop = procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    client = _admin(admin_user)
    url = reverse("admin:memory_core_memoryentry_delete", args=[sop.pk])
    assert client.post(url, {"post": "yes"}).status_code == 403
    changelist = reverse("admin:memory_core_memoryentry_changelist")
    client.post(changelist, {"action": "delete_selected", "_selected_action": [str(sop.pk)], "post": "yes"})
    assert MemoryEntry.objects.filter(pk=sop.pk).exists()


def test_it_shows_a_memory_read_only_in_the_admin_change_form(owner, admin_user):
    entry = remember(owner, f"The user lives in {MARK}.")
    client = _admin(admin_user)

    html = client.get(change_url(entry)).content.decode()
    assert MARK in html  # shown (and audited) ...
    for name in ("content", "namespace", "status", "type", "approved_at", "approved_by", "supersedes"):
        assert f'name="{name}"' not in html  # ... but not editable
    assert 'name="superseded_by"' not in html and 'name="pinned"' in html
    _change_pinned(client, entry)  # the posted content is ignored
    entry.refresh_from_db()
    assert entry.content == f"The user lives in {MARK}." and entry.pinned
    assert not LogEntry.objects.filter(object_repr__icontains=MARK).exists()
    assert reverse("admin:memory_core_memoryentry_add") not in html
    assert client.get(reverse("admin:memory_core_memoryentry_add")).status_code == 403


def test_it_lists_no_personal_content_in_the_admin_and_cannot_search_it(owner, admin_user, moderator):
    entry = remember(owner, f"The user lives in {MARK}.", key="home_city")
    namespace_create(path="org/acme", kind="org")
    procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    client = _admin(admin_user)
    changelist = reverse("admin:memory_core_memoryentry_changelist")

    html = client.get(changelist).content.decode()
    assert str(entry.pk) in html and "user/alice" in html and MARK not in html
    assert "Refunds need a manager." in html  # shared procedures are not personal
    assert str(entry.pk) not in client.get(changelist, {"q": MARK}).content.decode()
    assert str(entry.pk) in client.get(changelist, {"q": "home_city"}).content.decode()
    assert str(entry.pk) in client.get(changelist, {"q": "user/alice"}).content.decode()
