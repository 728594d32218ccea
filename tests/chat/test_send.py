"""Sending a message and starting a conversation: without JavaScript, with htmx, bad input."""

from __future__ import annotations

import pytest

from chat.models import Conversation, Message
from chat.services import MESSAGE_MAX_CHARS
from tests.chat.helpers import client_for, conversation

pytestmark = pytest.mark.django_db


def test_it_answers_within_the_request_without_javascript(owner):
    conv = conversation(owner)
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {"content": "Hello"})
    message = Message.objects.get(role="user")
    assert response.status_code == 302
    assert response["Location"] == f"/c/{conv.pk}/#m-{message.pk}"
    assert message.status == Message.Status.COMPLETE
    assert Message.objects.get(role="assistant").reply_to == message


def test_it_returns_the_pending_turn_for_htmx(owner):
    conv = conversation(owner)
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {"content": "Hello"}, HTTP_HX_REQUEST="true")
    message = Message.objects.get()
    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith(f'<li class="turn" id="m-{message.pk}"')
    assert f'data-stream-url="/c/{conv.pk}/m/{message.pk}/stream/"' in page
    assert "thinking…" in page
    # Nothing is generated until the stream is opened.
    assert message.status == Message.Status.PENDING
    assert not Message.objects.filter(role="assistant").exists()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "Type a message first."),
        ("  \n\t ", "Type a message first."),
        ("x" * 9000, f"Your message has 9,000 characters; the limit is {MESSAGE_MAX_CHARS:,}."),
    ],
)
def test_it_refuses_bad_input_and_keeps_what_was_typed(owner, text, error):
    conv = conversation(owner)
    client = client_for(owner)
    response = client.post(f"/c/{conv.pk}/send/", {"content": text})
    assert response.status_code == 400
    page = response.content.decode()
    assert error in page and "<html" in page
    response = client.post(f"/c/{conv.pk}/send/", {"content": text}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    # Only the reason is swapped in: the box keeps what was typed.
    assert response["HX-Retarget"] == "#composer-error" and response["HX-Reswap"] == "outerHTML"
    assert response.content.decode().lstrip().startswith('<p id="composer-error"')
    assert error in response.content.decode()
    assert not Message.objects.exists()
    conv.refresh_from_db()
    assert conv.title == ""


def test_it_refuses_a_missing_field(owner):
    conv = conversation(owner)
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {})
    assert response.status_code == 400
    assert not Message.objects.exists()


def test_it_starts_a_conversation(owner):
    response = client_for(owner).post("/new/")
    conv = Conversation.objects.get()
    assert response["Location"] == f"/c/{conv.pk}/"
    assert conv.user == owner and not conv.incognito


def test_it_starts_an_incognito_conversation(owner):
    client_for(owner).post("/new/", {"incognito": "1"})
    assert Conversation.objects.get().incognito


def test_it_starts_a_conversation_with_its_first_message(owner):
    response = client_for(owner).post("/new/", {"content": "Plan a trip to Porto"})
    conv = Conversation.objects.get()
    message = Message.objects.get(role="user")
    assert response["Location"] == f"/c/{conv.pk}/#m-{message.pk}"
    assert conv.title == "Plan a trip to Porto"
    assert Message.objects.filter(role="assistant", reply_to=message).exists()


def test_a_long_first_line_titles_the_conversation_cut_at_a_word(owner):
    client = client_for(owner)
    client.post(
        "/new/", {"content": "Hi! My brother's a carpenter, and I'm allergic to sesame, it's serious."}
    )
    assert Conversation.objects.get().title == "Hi! My brother's a carpenter, and I'm allergic to sesame…"
    Conversation.objects.all().delete()
    chinese = "我对花生和所有坚果都严重过敏" * 6  # 84 characters, no space to cut at
    client.post("/new/", {"content": chinese})
    assert Conversation.objects.get().title == chinese[:59] + "…"


def test_it_redirects_htmx_to_the_new_conversation_which_then_streams(owner):
    client = client_for(owner)
    response = client.post("/new/", {"content": "Hello"}, HTTP_HX_REQUEST="true")
    conv = Conversation.objects.get()
    assert response["HX-Redirect"] == f"/c/{conv.pk}/"
    message = Message.objects.get()
    assert message.status == Message.Status.PENDING
    page = client.get(f"/c/{conv.pk}/").content.decode()
    assert f'data-stream-url="/c/{conv.pk}/m/{message.pk}/stream/"' in page


def test_it_creates_no_conversation_for_a_bad_first_message(owner):
    response = client_for(owner).post("/new/", {"content": "x" * 9000}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "the limit is" in response.content.decode()
    assert not Conversation.objects.exists()
