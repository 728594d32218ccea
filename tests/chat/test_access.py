"""Every chat endpoint: login required, 404 for someone else's conversation, CSRF on every POST."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from chat.models import Conversation, Message
from tests.chat.helpers import client_for, conversation, say

pytestmark = pytest.mark.django_db

# (method, path) with {c} the conversation and {m} the user's message in it.
CONVERSATION_ENDPOINTS = [
    ("get", "/c/{c}/"),
    ("get", "/c/{c}/notices/"),
    ("get", "/c/{c}/m/{m}/"),
    ("get", "/c/{c}/m/{m}/stream/"),
    ("get", "/c/{c}/delete/"),
    ("post", "/c/{c}/send/"),
    ("post", "/c/{c}/end/"),
    ("post", "/c/{c}/rename/"),
    ("post", "/c/{c}/delete/"),
    ("post", "/c/{c}/m/{m}/retry/"),
    ("get", "/c/{c}/state/"),
    ("post", "/c/{c}/m/{m}/undo/00000000-0000-4000-8000-000000000000/"),
]
POSTS = [path for method, path in CONVERSATION_ENDPOINTS if method == "post"] + ["/new/"]
FORM = {"content": "hello", "title": "renamed"}


@pytest.fixture
def turn(owner):
    conv = conversation(owner, title="Alice's")
    message, _ = say(owner, conv, "I live in Lisbon.")
    return conv, message


def _state() -> tuple:
    return (
        list(Conversation.objects.values_list("pk", "title", "closed_at")),
        list(Message.objects.values_list("pk", "status", "content")),
    )


@pytest.mark.parametrize(("method", "path"), [("get", "/"), ("post", "/new/"), *CONVERSATION_ENDPOINTS])
def test_it_sends_anonymous_users_to_login(turn, method, path):
    conv, message = turn
    url = path.format(c=conv.pk, m=message.pk)
    response = getattr(Client(), method)(url, FORM if method == "post" else None)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


@pytest.mark.parametrize("htmx", [False, True])
@pytest.mark.parametrize(("method", "path"), CONVERSATION_ENDPOINTS)
def test_it_answers_404_for_someone_elses_conversation(turn, other_user, method, path, htmx):
    conv, message = turn
    before = _state()
    client = client_for(other_user)
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = getattr(client, method)(
        path.format(c=conv.pk, m=message.pk), FORM if method == "post" else None, **headers
    )
    assert response.status_code == 404
    assert _state() == before


@pytest.mark.parametrize(("method", "path"), CONVERSATION_ENDPOINTS)
def test_it_answers_404_alike_for_missing_conversations(owner, method, path):
    client = client_for(owner)
    response = getattr(client, method)(path.format(c=uuid.uuid4(), m=1), FORM if method == "post" else None)
    assert response.status_code == 404


@pytest.mark.parametrize(
    "path", ["/c/not-a-uuid/", "/c/{c}/m/abc/", "/c/{c}/m/999999/", "/c/{c}/m/{other}/", "/c/{c}/m/{m}x/"]
)
def test_it_answers_404_for_bad_ids(owner, turn, path):
    conv, message = turn
    _, elsewhere = say(owner, conversation(owner), "in another conversation")
    url = path.format(c=conv.pk, m=message.pk, other=elsewhere.reply_to_id)
    assert client_for(owner).get(url).status_code == 404


def test_it_answers_404_for_streaming_a_reply(owner, turn):
    conv, message = turn
    reply = Message.objects.get(reply_to=message)
    assert client_for(owner).get(f"/c/{conv.pk}/m/{reply.pk}/stream/").status_code == 404


@pytest.mark.parametrize("path", POSTS)
def test_it_enforces_csrf_on_every_post(owner, turn, path):
    conv, message = turn
    before = _state()
    client = client_for(owner, enforce_csrf_checks=True)
    response = client.post(path.format(c=conv.pk, m=message.pk), FORM, HTTP_HX_REQUEST="true")
    assert response.status_code == 403
    assert _state() == before


def test_it_accepts_a_post_with_the_csrf_token(owner, turn):
    conv, _ = turn
    client = client_for(owner, enforce_csrf_checks=True)
    page = client.get(f"/c/{conv.pk}/")
    token = page.cookies["csrftoken"].value
    response = client.post(f"/c/{conv.pk}/rename/", {"title": "Trip"}, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 302
    conv.refresh_from_db()
    assert conv.title == "Trip"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/"),
        ("get", "/new/"),
        ("get", "/c/{c}/send/"),
        ("get", "/c/{c}/end/"),
        ("post", "/c/{c}/m/{m}/"),
    ],
)
def test_it_refuses_the_wrong_method(owner, turn, method, path):
    conv, message = turn
    before = _state()
    response = getattr(client_for(owner), method)(path.format(c=conv.pk, m=message.pk))
    assert response.status_code == 405
    assert _state() == before
