"""The memory loop in a real browser (offline mode): chat, see what was used, learn, recall; incognito."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from memory_core.models import ExtractionJob, MemoryEntry
from tests.chat.helpers import remember
from tests.openai_server import reply_stream

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("pages_ready")]


CONVERSATION_URL = re.compile(r"/c/[0-9a-f-]{36}/$")


def send(page, text: str) -> None:
    box = page.locator("#composer textarea")
    box.fill(text)
    box.press("Enter")


def reply_of_turn(page, index: int):
    """The assistant's side of a turn, once the final rendered reply has replaced the stream."""
    reply = page.locator("#messages .turn").nth(index).locator(".msg.assistant")
    expect(reply).not_to_have_class(re.compile(r"\bpending\b"))
    return reply


@pytest.mark.django_db(transaction=True)
def test_it_chats_learns_and_recalls_in_a_new_conversation(make_user, login):
    make_user("carol")
    page = login("carol", "pw-carol")
    page.get_by_role("button", name="New conversation", exact=True).click()
    page.wait_for_url(CONVERSATION_URL)
    first_url = page.url
    loaded_at = page.evaluate("window.chatPageLoadedAt")

    send(page, "I'm severely allergic to peanuts.")
    expect(page.locator("#messages .msg.user").first).to_have_text(re.compile("allergic to peanuts"))
    reply = reply_of_turn(page, 0)
    expect(reply).to_contain_text("running without a language model")
    expect(page.locator("#composer textarea")).to_have_value("")

    send(page, "Remember that my favourite colour is green.")
    reply = reply_of_turn(page, 1)
    expect(reply).to_contain_text("I'll remember that")
    summary = reply.locator("details.used summary")
    expect(summary).to_have_text(re.compile(r"used \d+ memor"))
    summary.click()
    link = reply.locator("details.used a").first
    expect(link).to_be_visible()
    expect(link).to_have_attribute("href", re.compile(r"^/me/memories/[0-9a-f-]{36}/$"))
    # Both replies arrived without a page load: the value set when the page loaded is still there.
    assert page.evaluate("window.chatPageLoadedAt") == loaded_at
    assert page.url == first_url

    page.get_by_role("button", name="End conversation").click()
    notice = page.locator("#notices .notice.updated")
    expect(notice).to_contain_text("Memory updated")
    expect(notice.get_by_role("link", name=re.compile("allergic to peanuts"))).to_have_attribute(
        "href", re.compile(r"^/me/memories/")
    )

    page.get_by_role("button", name="New conversation", exact=True).click()
    page.wait_for_url(lambda url: CONVERSATION_URL.search(url) is not None and url != first_url)
    send(page, "What should I cook tonight?")
    reply = reply_of_turn(page, 0)
    expect(reply).to_contain_text("allergic to peanuts")
    expect(reply.locator("details.used summary")).to_have_text(re.compile(r"used \d+ memor"))


@pytest.mark.django_db(transaction=True)
def test_it_neither_recalls_nor_learns_in_incognito(make_user, login):
    carol = make_user("carol")
    remember(carol, "The user is allergic to peanuts.", category="safety", pinned=True)
    page = login("carol", "pw-carol")
    page.get_by_role("button", name="New incognito conversation").click()
    page.wait_for_url(CONVERSATION_URL)
    expect(page.locator(".banner.incognito")).to_contain_text("nothing is recalled")
    expect(page.locator(".pane-head .badge.incognito")).to_be_visible()

    send(page, "I live in Lisbon. What should I cook?")
    reply = reply_of_turn(page, 0)
    expect(reply).to_contain_text("I don't have any memories that seem relevant.")
    expect(reply).not_to_contain_text("peanuts")
    expect(reply.locator(".used-none")).to_have_text("incognito: no memories used")

    page.get_by_role("button", name="End conversation").click()
    expect(page.locator(".flash")).to_contain_text("It was incognito, so nothing from it was remembered.")
    expect(page.locator("#notices .notice.updated")).to_have_count(0)
    assert not MemoryEntry.objects.filter(content__icontains="Lisbon").exists()
    assert not ExtractionJob.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_it_shows_a_failure_then_thinks_and_streams_on_retry(make_user, login, openai_server):
    make_user("carol")
    openai_server.status(500, headers={"retry-after-ms": "5"}, times=3)
    page = login("carol", "pw-carol")
    send(page, "Hello?")  # the home composer starts a conversation
    page.wait_for_url(CONVERSATION_URL)
    failed = page.locator("#messages .turn").first.locator(".msg.assistant.error")
    expect(failed).to_contain_text("HTTP 500")

    openai_server.delay(0.6, then=reply_stream(["Hello", " from", " the model."]))
    failed.get_by_role("button", name="Retry").click()
    expect(page.locator(".msg.pending .thinking")).to_be_visible()
    reply = reply_of_turn(page, 0)
    expect(reply.locator(".text")).to_have_text("Hello from the model.")
    expect(page.locator(".msg.assistant.error")).to_have_count(0)


@pytest.mark.django_db(transaction=True)
def test_the_title_updates_live_and_a_second_tab_notices_new_messages(make_user, login):
    make_user("dave")
    page = login("dave", "pw-dave")
    page.get_by_role("button", name="New conversation", exact=True).click()
    page.wait_for_url(CONVERSATION_URL)
    loaded_at = page.evaluate("window.chatPageLoadedAt")
    untitled = page.locator("#conversation-title").inner_text()

    # The first message names the conversation: the heading and the list follow without a reload.
    send(page, "Plan a trip to Porto")
    reply_of_turn(page, 0)
    expect(page.locator("#conversation-title")).to_have_text("Plan a trip to Porto")
    expect(page.locator('.chat-list a[aria-current="page"]')).to_have_text("Plan a trip to Porto")
    assert untitled != "Plan a trip to Porto"

    # A second tab on the same conversation writes and renames: the first one notices both.
    other = page.context.new_page()
    other.goto(page.url)
    send(other, "And a day in Lisbon?")
    reply_of_turn(other, 1)
    expect(page.locator("#messages .turn")).to_have_count(2)
    expect(page.locator("#messages")).to_contain_text("And a day in Lisbon?")
    other.locator("details.rename summary").click()
    other.locator("input[name=title]").fill("Porto and Lisbon")
    other.get_by_role("button", name="Save").click()
    expect(page.locator("#conversation-title")).to_have_text("Porto and Lisbon")
    assert page.title().startswith("Porto and Lisbon")
    assert page.evaluate("window.chatPageLoadedAt") == loaded_at  # all of it without a page load
