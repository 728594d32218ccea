"""In a real browser: a user audits, corrects, erases and exports; an operator approves an SOP."""

from __future__ import annotations

import json

import pytest

from memory_core.models import MemoryEntry, NamespaceGrant
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall
from memory_core.services import namespace_create, namespace_for_user
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def recalled(user, query: str) -> list[str]:
    return [i.entry.content for i in memory_recall(actor=user, query=query, record=False).items]


def test_it_finds_follows_corrects_and_erases_a_memory_learned_in_chat(owner, login):
    conversation = new_conversation(owner)
    message, _ = say(owner, conversation, "Remember that I live in Lisbon.")
    entry = MemoryEntry.objects.get(namespace__owner=owner)
    page = login("alice", "pw-alice")

    page.goto("/me/")
    card = page.locator(f"#memory-{entry.pk}")
    assert "lives in Lisbon" in card.inner_text()
    card.locator("> details > summary").click()  # a compact row opens
    card.get_by_role("link", name="open the message").click()
    page.wait_for_url(f"**/c/{conversation.pk}/#m-{message.pk}")
    assert "Remember that I live in Lisbon." in page.content()

    page.goto("/me/")
    card = page.locator(f"#memory-{entry.pk}")
    card.locator("> details > summary").click()
    card.get_by_text("Correct", exact=True).click()
    card.locator("textarea[name=content]").fill("The user lives in Porto.")
    card.get_by_role("button", name="Save the correction").click()
    new = page.locator("li.memory", has_text="The user lives in Porto.")
    new.wait_for()
    assert recalled(owner, "Where does the user live?") == ["The user lives in Porto."]

    new.get_by_role("link", name="Erase…").click()
    page.get_by_role("button", name="Erase for good").click()
    page.wait_for_url("**/me/")
    assert "Erased for good" in page.content()
    assert "Porto" not in page.locator("#memory-list").inner_text()
    assert recalled(owner, "Where does the user live?") == []


def test_it_exports_then_erases_everything(owner, login):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content="The user lives in Lisbon.", source_kind="user_explicit")
    memory_add(namespace=namespace, content="The user plays the cello.", source_kind="user_explicit")
    page = login("alice", "pw-alice")
    page.goto("/me/")

    with page.expect_download() as download:
        page.get_by_role("link", name="Export everything (JSON)").first.click()
    data = json.loads(open(download.value.path(), encoding="utf-8").read())  # noqa: SIM115
    assert sorted(m["content"] for m in data["memories"]) == [
        "The user lives in Lisbon.",
        "The user plays the cello.",
    ]

    page.get_by_role("link", name="Erase everything…").click()
    page.fill("input[name=confirm]", "erase everything")
    page.get_by_role("button", name="Erase everything").click()
    page.wait_for_url("**/me/")
    assert "The assistant knows nothing about you yet." in page.content()
    assert not MemoryEntry.objects.filter(namespace=namespace).exists()


def test_an_operator_approves_a_pending_sop_and_chat_starts_using_it(owner, moderator, make_user, login):
    NamespaceGrant.objects.create(namespace=namespace_create(path="org/acme", kind="org"), user=owner)
    rule = "Always answer refund questions with the refund policy link."
    memory_add(
        namespace=namespace_for_user(user=owner), content=rule, type="procedural", source_kind="user_explicit"
    )
    assert recalled(owner, "How do I answer refund questions?") == []
    make_user("carol")

    page = login("carol", "pw-carol")
    assert page.goto("/me/moderation/").status == 403
    page.context.clear_cookies()

    page = login("olga", "pw-olga")
    page.goto("/me/moderation/")
    item = page.locator("article.procedure", has_text=rule)
    item.locator("select[name=namespace_path]").select_option("org/acme")
    item.get_by_role("button", name="Approve").click()
    page.wait_for_url("**/me/moderation/")
    assert "Approved" in page.content()
    assert recalled(owner, "How do I answer refund questions?") == [rule]
