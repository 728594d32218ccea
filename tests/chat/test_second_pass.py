"""The chat page, second pass: "Memory updated" at the reply that taught it with Undo, the composer's
limit (never cut, never echoed), replies as safe markdown, answer-style preferences in every turn,
and what a second tab polls."""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse

from chat.services import MESSAGE_MAX_CHARS, conversation_close
from chat.style import STYLE_MAX, STYLE_TOKENS
from memory_core.models import MemoryEntry, Tombstone
from memory_core.recall.prompt import estimate_tokens
from tests.chat.helpers import client_for, conversation, remember, say

pytestmark = pytest.mark.django_db

INJECTIONS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=//evil.example></iframe>",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<svg onload="alert(1)">',
]


def test_the_reply_that_taught_something_says_so_with_a_link_and_undo(owner):
    conv = conversation(owner)
    message, _ = say(owner, conv, "Remember that I live in Lisbon.")
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    client = client_for(owner)

    page = client.get(f"/c/{conv.pk}/").content.decode()
    turn = page[page.index(f'id="m-{message.pk}"') :]
    undo = reverse("chat:memory_undo", args=[conv.pk, message.pk, entry.pk])
    assert "Memory updated" in turn and f'href="/me/memories/{entry.pk}/"' in turn and undo in turn

    response = client.post(undo, headers={"HX-Request": "true"})
    assert response.status_code == 200 and "Undone: the assistant forgot" in response.content.decode()
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()
    assert Tombstone.objects.exists()
    conversation_close(conversation=conv)  # extraction runs (synchronously in tests) …
    assert not MemoryEntry.objects.filter(namespace__owner=owner, content__icontains="Lisbon").exists()


def test_undo_is_only_for_what_that_message_taught(owner, other_user):
    conv = conversation(owner)
    message, _ = say(owner, conv, "Remember that I live in Lisbon.")
    other, _ = say(owner, conv, "Nice weather today.")
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    for user, msg in ((owner, other), (other_user, message)):
        url = reverse("chat:memory_undo", args=[conv.pk, msg.pk, entry.pk])
        assert client_for(user).post(url).status_code == 404
    url = reverse("chat:memory_undo", args=[conv.pk, message.pk, uuid.uuid4()])
    assert client_for(owner).post(url).status_code == 404
    assert MemoryEntry.objects.filter(pk=entry.pk).exists()


@pytest.mark.parametrize("htmx", [True, False])
def test_a_message_over_the_limit_is_refused_plainly_and_never_echoed(owner, htmx):
    conv = conversation(owner)
    text = "pasted " * 3000  # 21,000 characters
    headers = {"HX-Request": "true"} if htmx else {}
    response = client_for(owner).post(f"/c/{conv.pk}/send/", {"content": text}, headers=headers)
    body = response.content.decode()
    assert response.status_code == 400
    assert f"the limit is {MESSAGE_MAX_CHARS:,}" in body and "Nothing was sent" in body
    assert "pasted pasted" not in body
    if htmx:
        assert response["HX-Retarget"] == "#composer-error" and len(body) < 500
    assert not conv.messages.exists()


def test_the_composer_states_the_limit_and_cuts_nothing(owner):
    page = client_for(owner).get("/").content.decode()
    composer = page[page.index('<form id="composer"') :]
    assert (
        f'data-max="{MESSAGE_MAX_CHARS}"' in composer and "maxlength" not in composer.split("</textarea>")[0]
    )
    assert "autofocus" in composer and f"up to {MESSAGE_MAX_CHARS} characters" in composer


def test_replies_are_safe_markdown(owner, openai_server):
    openai_server.reply_text("**Bold** and a list:\n\n- one\n- two\n\n" + "\n\n".join(INJECTIONS))
    conv = conversation(owner)
    say(owner, conv, "Format something")
    page = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    reply = page[page.index('class="text md"') :]
    reply = reply[: reply.index("</div>")]
    assert "<strong>Bold</strong>" in reply and "<li>one</li>" in reply
    tags = re.findall(r"<[^>]*>", reply.lower())
    assert {re.match(r"</?(\w+)", tag).group(1) for tag in tags} <= {"p", "strong", "ul", "li", "br"}
    for tag in tags:  # no script URL or event handler in any attribute
        assert "javascript:" not in tag and "data:" not in tag and not re.search(r"\son\w+\s*=", tag)
    assert "&lt;script&gt;" in reply  # shown as text


def test_answer_style_preferences_go_into_every_turn_and_show_as_used(owner, openai_server):
    remember(owner, "The user prefers short answers in bullet points.", category="preference")
    remember(owner, "The user prefers trains to planes.", category="preference")
    conv = conversation(owner)
    openai_server.reply_text("- Paris")
    say(owner, conv, "What is the capital of France?")

    system = [m["content"] for m in openai_server.requests_to("/chat/completions")[-1].body["messages"][:3]]
    style = next(text for text in system if text.startswith("How this user likes answers"))
    assert "short answers in bullet points" in style and "trains" not in style
    page = client_for(owner).get(f"/c/{conv.pk}/").content.decode()
    assert "answer style" in page and "short answers in bullet points" in page


def test_style_preferences_keep_to_their_own_budget_and_count_in_chinese(owner, openai_server):
    for i in range(12):
        remember(owner, f"The user prefers answers with a table for topic {i}.", category="preference")
    remember(owner, "用户喜欢简短的中文回答。", category="preference")
    conv = conversation(owner)
    openai_server.reply_text("好")
    say(owner, conv, "北京今天天气怎么样")

    system = [m["content"] for m in openai_server.requests_to("/chat/completions")[-1].body["messages"][:3]]
    style = next(text for text in system if text.startswith("How this user likes answers"))
    lines = [line[2:] for line in style.splitlines() if line.startswith("- ")]
    assert lines[0] == "用户喜欢简短的中文回答。"  # the newest first, in any language
    assert 1 < len(lines) <= STYLE_MAX and sum(estimate_tokens(line) for line in lines) <= STYLE_TOKENS


def test_which_preferences_shape_answers_follows_every_write(owner, openai_server):
    """Style-ness is decided by the database on every write (`MemoryEntry.answer_style`): a
    correction through the privacy page, an ORM update and a recategorisation all take effect on
    the next turn, in English and Chinese."""
    from django.db import connection

    def style_lines() -> list[str]:
        openai_server.reply_text("ok")
        say(owner, conversation(owner), "Any news today?")
        messages = openai_server.requests_to("/chat/completions")[-1].body["messages"][:3]
        style = next((m["content"] for m in messages if m["content"].startswith("How this user likes")), "")
        return [line[2:] for line in style.splitlines() if line.startswith("- ")]

    plain = remember(owner, "The user prefers tea to coffee.", category="preference")
    chinese = remember(owner, "用户喜欢喝绿茶。", category="preference")
    assert style_lines() == []

    response = client_for(owner).post(
        reverse("privacy:correct", args=[plain.pk]),
        {"content": "The user prefers replies without emoji.", "reason": "said so"},
    )
    assert response.status_code in (200, 302)
    assert style_lines() == ["The user prefers replies without emoji."]

    MemoryEntry.objects.filter(pk=chinese.pk).update(content="用户喜欢简洁的回答。")
    # newest first: the correction is newer than the Chinese preference
    assert style_lines() == ["The user prefers replies without emoji.", "用户喜欢简洁的回答。"]

    with connection.cursor() as cursor:  # a write no Python code sees
        cursor.execute("UPDATE memory_core_memoryentry SET category = 'profile' WHERE id = %s", [chinese.pk])
    assert style_lines() == ["The user prefers replies without emoji."]


def test_a_second_tab_polls_the_latest_message_and_title(owner, other_user):
    conv = conversation(owner)
    _message, reply = say(owner, conv, "Plan a trip to Porto")
    state = client_for(owner).get(reverse("chat:state", args=[conv.pk])).json()
    assert state == {"last": reply.pk, "title": "Plan a trip to Porto"}
    assert client_for(other_user).get(reverse("chat:state", args=[conv.pk])).status_code == 404
