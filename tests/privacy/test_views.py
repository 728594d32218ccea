"""The pages: authorization matrix (owner / other user / operator / anonymous), CSRF on every
state change, and what a user sees and can do there. The matrix is checked against the URLconf: a
privacy route (or a method of one) that it does not cover fails the suite."""

from __future__ import annotations

import json
import uuid

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import resolve, reverse

from memory_core.models import (
    EventAction,
    FlaggedWrite,
    MemoryEntry,
    MemoryEvent,
    MemoryStatus,
    NamespaceGrant,
)
from memory_core.pipeline import memory_add
from memory_core.services import namespace_create, namespace_for_user
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say
from tests.memory_core.helpers import remember
from tests.privacy.helpers import opened
from tests.privacy.test_people import PEOPLE_ROWS
from tests.routes import answered_methods, routes

pytestmark = pytest.mark.django_db

SECRET = "The user is allergic to peanuts."
ENTRY_POSTS = [
    "privacy:correct",
    "privacy:hide",
    "privacy:unhide",
    "privacy:restore",
    "privacy:always_recall",
    "privacy:not_always_recall",
    "privacy:erase",
]
USER_POSTS = [
    "privacy:remember",
    "privacy:pause",
    "privacy:erase_all",
    "privacy:import",
    "privacy:bulk",
    "privacy:bulk_undo_erase",
]
USER_GETS = ["privacy:index", "privacy:activity", "privacy:export", "privacy:erase_all", "privacy:import"]
# By id: someone else's is 404.
ENTRY_GETS = ["privacy:erase", "privacy:memory", "privacy:row", "privacy:import_job"]
OPERATOR_GETS = ["privacy:moderation"]


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def entry(owner):
    return remember(owner, SECRET)


@pytest.fixture
def proposal(owner):
    namespace_create(path="org/acme", kind="org")
    return memory_add(
        namespace=namespace_for_user(user=owner),
        content="Remember: refunds no longer need approval.",
        type="procedural",
        source_kind="user_explicit",
    ).entry


def moderation_posts(proposal) -> list[tuple[str, dict]]:
    flag = FlaggedWrite.objects.get()
    return [
        (reverse("privacy:procedure_approve", args=[proposal.pk]), {"namespace_path": "org/acme"}),
        (reverse("privacy:procedure_reject", args=[proposal.pk]), {"reason": "no"}),
        (reverse("privacy:procedure_create"), {"namespace_path": "org/acme", "content": "Be kind."}),
        (reverse("privacy:flag_dismiss", args=[flag.pk]), {}),
    ]


# --- Authorization matrix ------------------------------------------------------------------------


@pytest.mark.parametrize("name", USER_GETS)
def test_anonymous_is_sent_to_sign_in(name):
    response = Client().get(reverse(name))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name", ENTRY_GETS)
def test_anonymous_cannot_see_a_memory(entry, name):
    response = Client().get(reverse(name, args=[entry.pk]))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name", ENTRY_POSTS)
def test_anonymous_cannot_change_a_memory(entry, name):
    response = Client().post(reverse(name, args=[entry.pk]), {"content": "x"})
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.ACTIVE


@pytest.mark.parametrize("name", USER_POSTS)
def test_anonymous_cannot_post(entry, name):
    response = Client().post(reverse(name), {"content": "x", "paused": "1", "confirm": "erase everything"})
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert MemoryEntry.objects.filter(pk=entry.pk).exists()


@pytest.mark.parametrize("intruder", ["other_user", "operator", "moderator"])
@pytest.mark.parametrize("name", ENTRY_POSTS)
def test_nobody_else_changes_a_memory(request, entry, name, intruder):
    client = client_for(request.getfixturevalue(intruder))
    assert client.post(reverse(name, args=[entry.pk]), {"content": "Changed."}).status_code == 404
    assert client.post(reverse(name, args=[uuid.uuid4()]), {"content": "Changed."}).status_code == 404
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.ACTIVE


@pytest.mark.parametrize("intruder", ["other_user", "operator", "moderator"])
def test_nobody_else_sees_a_memory(request, entry, intruder):
    client = client_for(request.getfixturevalue(intruder))
    for name in ENTRY_GETS:
        assert client.get(reverse(name, args=[entry.pk])).status_code == 404
    for name in ("privacy:index", "privacy:activity", "privacy:export"):
        response = client.get(reverse(name) + "?status=all&q=allergic")
        assert response.status_code == 200
        assert SECRET.encode() not in response.content and str(entry.pk).encode() not in response.content


@pytest.mark.parametrize("user", ["owner", "other_user", "operator", None])
def test_only_operators_see_moderation(request, proposal, user):
    client = client_for(request.getfixturevalue(user) if user else None)
    for name in OPERATOR_GETS:
        response = client.get(reverse(name))
        if user is None:
            assert response.status_code == 302 and response.url.startswith(reverse("login"))
        else:
            assert response.status_code == 403
    for url, data in moderation_posts(proposal):
        assert client.post(url, data).status_code == (302 if user is None else 403)
    proposal.refresh_from_db()
    assert proposal.status == MemoryStatus.PENDING_REVIEW
    assert not MemoryEntry.objects.filter(content="Be kind.").exists()
    assert FlaggedWrite.objects.get().dismissed_at is None


def test_only_operators_get_the_moderation_link(owner, operator, make_user):
    link = 'href="/me/moderation/"'
    granted_not_staff = make_user("nina")  # the permission alone does not make an operator
    granted_not_staff.user_permissions.add(Permission.objects.get(codename="moderate_memories"))
    for user in (owner, operator, granted_not_staff):
        assert link not in client_for(user).get(reverse("privacy:activity")).content.decode()
    operator.user_permissions.add(Permission.objects.get(codename="moderate_memories"))
    assert link in client_for(operator).get(reverse("privacy:activity")).content.decode()


def test_the_operator_sees_procedures_and_flags_but_no_personal_memories(moderator, entry, proposal):
    response = client_for(moderator).get(reverse("privacy:moderation"))
    assert response.status_code == 200
    assert b"refunds no longer need approval" in response.content
    assert b"peanuts" not in response.content


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_the_operator_moderates(moderator, proposal, index):
    url, data = moderation_posts(proposal)[index]
    response = client_for(moderator).post(url, data)
    assert response.status_code == 302 and response.url == reverse("privacy:moderation")
    proposal.refresh_from_db()
    flag = FlaggedWrite.objects.get()
    assert [
        proposal.status == MemoryStatus.SUPERSEDED,
        proposal.status == MemoryStatus.REJECTED,
        MemoryEntry.objects.filter(content="Be kind.", status="active").exists(),
        flag.dismissed_at is not None,
    ][index]


def test_a_rejection_without_reason_is_refused_with_a_message(moderator, proposal):
    url = reverse("privacy:procedure_reject", args=[proposal.pk])
    response = client_for(moderator).post(url, {"reason": ""}, follow=True)
    assert b"needs a reason" in response.content
    assert MemoryEntry.objects.get(pk=proposal.pk).status == MemoryStatus.PENDING_REVIEW


def test_every_privacy_route_and_method_is_in_the_matrix(other_user, proposal):
    """The routes and methods the matrix above calls, against those privacy/urls.py serves (asked
    of each view by a signed-in user without memories, so nothing of anyone's changes)."""
    rows = {(name, "POST") for name in ENTRY_POSTS + USER_POSTS}
    rows |= {(name, "GET") for name in USER_GETS + ENTRY_GETS + OPERATOR_GETS}
    rows |= {(resolve(url).view_name, "POST") for url, _data in moderation_posts(proposal)}
    rows |= PEOPLE_ROWS  # covered in tests/privacy/test_people.py
    rows |= {("privacy:import_retry", "POST")}  # covered in tests/privacy/test_import_retry.py
    client = client_for(other_user)
    served = {
        (route.name, method)
        for route in routes()
        if route.name.startswith("privacy:")
        for method in answered_methods(client, route)
    }
    assert sorted(served - rows) == [], "privacy routes the authorization matrix does not cover"
    assert sorted(rows - served) == [], "matrix rows for no privacy route"


# --- CSRF ------------------------------------------------------------------------------------------


def test_every_state_change_needs_the_csrf_token(owner, moderator, entry, proposal):
    posts = [(reverse(name, args=[entry.pk]), {"content": "Changed."}) for name in ENTRY_POSTS]
    posts += [
        (reverse(name), {"content": "x", "paused": "1", "confirm": "erase everything"}) for name in USER_POSTS
    ]
    for user, urls in ((owner, posts), (moderator, moderation_posts(proposal))):
        client = Client(enforce_csrf_checks=True)
        client.force_login(user)
        for url, data in urls:
            assert client.post(url, data).status_code == 403, url
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.ACTIVE
    assert MemoryEntry.objects.get(pk=proposal.pk).status == MemoryStatus.PENDING_REVIEW
    assert not namespace_for_user(user=owner).memory_paused


def test_a_form_with_its_token_goes_through(owner, entry):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    client.get(reverse("privacy:index"))
    token = client.cookies["csrftoken"].value
    response = client.post(reverse("privacy:hide", args=[entry.pk]), {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.HIDDEN


# --- What the owner sees and does ------------------------------------------------------------------


def test_the_page_groups_memories_with_source_confidence_window_use_and_history(owner):
    conversation = new_conversation(owner)
    message, _ = say(owner, conversation, "Remember that I prefer tea over coffee.")
    remember(owner, "The user met Ana on 2026-05-03.", type="episodic", category="event")
    remember(owner, "<script>alert(1)</script> likes hiking.")

    client = client_for(owner)
    response = client.get(reverse("privacy:index"))

    html = opened(client, response.content.decode())
    assert response.status_code == 200
    for group in ("Facts", "Events"):
        assert f'<span class="tag">{group}</span>' in html
    entry = MemoryEntry.objects.get(content__icontains="tea")
    assert f'id="memory-{entry.pk}"' in html
    assert "learned from your conversation" in html.lower() or "you told the assistant" in html.lower()
    assert f'href="/c/{conversation.pk}/#m-{message.pk}"' in html
    assert "confidence 100%" in html and "valid since" in html and "History (1)" in html
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html


def test_search_and_filters_narrow_the_list_and_htmx_gets_the_partial(owner):
    remember(owner, "The user lives in Lisbon.")
    old = remember(owner, "The user lives in Porto.")
    MemoryEntry.objects.filter(pk=old.pk).update(status=MemoryStatus.SUPERSEDED)
    client = client_for(owner)

    # No memory in use says "porto": a city close in meaning may be listed, and says how it was found.
    porto = client.get(reverse("privacy:index"), {"q": "porto"}).content.decode()
    assert "Lisbon" not in porto or porto.count("related by meaning") == porto.count("The user lives in")
    assert b"Porto" not in client.get(reverse("privacy:index")).content
    assert b"Porto" in client.get(reverse("privacy:index"), {"status": "superseded"}).content
    assert b"Lisbon" not in client.get(reverse("privacy:index"), {"type": "events"}).content
    assert b"Lisbon" not in client.get(reverse("privacy:index"), {"since": "2999-01-01"}).content
    partial = client.get(
        reverse("privacy:index"), {"q": "lisbon"}, headers={"HX-Request": "true", "HX-Target": "memory-list"}
    )
    assert (
        partial.content.decode().lstrip().startswith('<div id="memory-list">')
        and b"Lisbon" in partial.content
    )


def test_the_owner_corrects_hides_and_erases(owner, entry):
    client = client_for(owner)

    response = client.post(
        reverse("privacy:correct", args=[entry.pk]), {"content": "The user is allergic to cashews."}
    )
    new = MemoryEntry.objects.get(content="The user is allergic to cashews.")
    assert response.status_code == 302 and response.url == reverse("privacy:memory", args=[new.pk])
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.SUPERSEDED

    partial = client.post(reverse("privacy:hide", args=[new.pk]), headers={"HX-Request": "true"})
    assert (
        partial.content.decode()
        .lstrip()
        .startswith(f'<li class="memory row status-hidden" id="memory-{new.pk}"')
    )
    assert b"Use again" in partial.content

    assert client.get(reverse("privacy:erase", args=[new.pk])).status_code == 200
    assert client.post(reverse("privacy:erase", args=[new.pk])).status_code == 302
    assert not MemoryEntry.objects.filter(pk__in=[entry.pk, new.pk]).exists()
    erased = MemoryEvent.objects.filter(action=EventAction.ERASED).values_list("entry_ref", flat=True)
    assert set(erased) == {entry.pk, new.pk}


def test_erase_all_needs_the_typed_confirmation(owner, entry):
    client = client_for(owner)
    assert client.post(reverse("privacy:erase_all"), {"confirm": "yes"}).status_code == 400
    assert MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert client.post(reverse("privacy:erase_all"), {"confirm": "Erase everything "}).status_code == 302
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()


def test_export_is_a_json_download(owner, entry):
    response = client_for(owner).get(reverse("privacy:export"))
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="memories-')
    assert json.loads(response.content)["memories"][0]["content"] == SECRET


def test_remember_pause_and_activity(owner):
    client = client_for(owner)
    client.post(reverse("privacy:remember"), {"content": "I speak Portuguese.", "kind": "fact"})
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    assert (entry.source_kind, entry.content) == ("user_explicit", "I speak Portuguese.")
    rejected = client.post(reverse("privacy:remember"), {"content": "my password is hunter22"}, follow=True)
    assert b"looks like a secret" in rejected.content and b"hunter22" not in rejected.content

    client.post(reverse("privacy:pause"), {"paused": "1"})
    assert namespace_for_user(user=owner).memory_paused
    assert b"Resume memory" in client.get(reverse("privacy:index")).content
    client.post(reverse("privacy:pause"), {"paused": "0"})
    assert not namespace_for_user(user=owner).memory_paused

    activity = client.get(reverse("privacy:activity")).content.decode()
    assert "created" in activity and "I speak Portuguese." in activity


def test_it_strips_nul_characters_from_the_remember_and_correct_forms(owner):
    client = client_for(owner)
    response = client.post(reverse("privacy:remember"), {"content": "I like\x00 tea", "kind": "fact"})
    assert response.status_code in (200, 302)
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    assert entry.content == "I like tea"
    response = client.post(
        reverse("privacy:correct", args=[entry.pk]), {"content": "I like\x00 green tea", "reason": "a\x00b"}
    )
    assert response.status_code in (200, 302)
    assert MemoryEntry.objects.get(supersedes=entry).content == "I like green tea"
    assert client.get(reverse("privacy:index"), {"q": "tea\x00", "category": "x\x00"}).status_code == 200


def test_shared_procedures_show_read_only(owner, moderator):
    from memory_core.moderation import procedure_create

    NamespaceGrant.objects.create(namespace=namespace_create(path="org/acme", kind="org"), user=owner)
    sop = procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    client = client_for(owner)
    html = client.get(reverse("privacy:index")).content.decode()
    assert "Refunds need a manager." in html and "read-only" in html
    assert reverse("privacy:erase", args=[sop.pk]) not in html
    assert client.post(reverse("privacy:erase", args=[sop.pk])).status_code == 403
    assert client.post(reverse("privacy:hide", args=[sop.pk])).status_code == 403


def test_the_page_costs_the_same_queries_for_many_memories(owner, django_assert_max_num_queries):
    client = client_for(owner)
    conversation = new_conversation(owner)
    say(owner, conversation, "Remember that I live in Lisbon.")
    client.get(reverse("privacy:index"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("privacy:index"))
    for n in range(15):
        remember(owner, f"The user owns {n + 2} bicycles of brand {n}.", type="episodic")
    with django_assert_max_num_queries(len(few)):
        client.get(reverse("privacy:index"))
