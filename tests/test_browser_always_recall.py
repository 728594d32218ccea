# ruff: noqa: RUF001  # full-width Chinese punctuation is what the Chinese walk reads
""" "Don't always recall" in a real browser (Debian's chromium): on a phone, in a row of /me/ (htmx,
the row changes in place); on a desktop, on the memory's page (a form post, the message after the
redirect), and in Chinese. No page error, no CSP violation (the `page` fixture), no serious axe
violation and no sideways scroll (`check`)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memory_core.models import MemoryEntry
from privacy.services import privacy_remember
from tests.test_browser_pages import VIEWPORTS, check
from tests.test_browser_third_pass import to_chinese

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("pages_ready"),
]

# A condition the write path pins as the user's safety fact (the slot of what they eat).
FACT = "I follow a gluten-free diet because of coeliac disease."

PHONE = VIEWPORTS["phone"]  # 390 x 844
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def coeliac(owner) -> MemoryEntry:
    """A condition the safety model pins as the user's safety fact."""
    privacy_remember(user=owner, content="The user keeps bees.")
    entry = privacy_remember(user=owner, content=FACT).entry
    assert entry is not None and entry.pinned
    return entry


def test_a_phone_user_takes_always_recalled_off_a_row_of_the_list(owner, coeliac, login, errors):
    page = login("alice", "pw-alice")
    page.set_viewport_size(PHONE)
    page.goto("/me/")
    row = page.locator(f"#memory-{coeliac.pk}")
    expect(row.locator("> details > summary .tags")).to_contain_text("always recalled")
    row.locator("> details > summary").click()
    button = row.locator(".row-body .actions").get_by_role("button", name="Don't always recall")
    expect(button).to_be_visible()
    button.click()

    row = page.locator(f"#memory-{coeliac.pk}")  # swapped in place
    expect(row.locator(".row-body .notice")).to_have_text(
        "No longer always recalled: the assistant uses it only when it fits the question."
    )
    expect(row.locator("> details > summary .tags")).not_to_contain_text("always recalled")
    expect(row.locator(".row-body .actions").get_by_role("button", name="Always recall")).to_be_visible()
    assert page.url.endswith("/me/")  # no navigation: the row changed in place
    check(page, "always-recall-row", "phone")
    entry = MemoryEntry.objects.get(pk=coeliac.pk)
    assert (entry.pinned, entry.category) == (False, "general")


def test_a_desktop_user_switches_it_on_the_memorys_page_in_english_and_chinese(owner, coeliac, login, errors):
    page = login("alice", "pw-alice")
    page.set_viewport_size(DESKTOP)
    page.goto(f"/me/memories/{coeliac.pk}/")
    facts = page.locator("dl.facts")
    expect(facts).to_contain_text("always recalled")
    facts.get_by_role("button", name="Don't always recall").click()
    page.wait_for_url(f"**/me/memories/{coeliac.pk}/")
    expect(page.locator(".flash")).to_contain_text("No longer always recalled")
    expect(facts).not_to_contain_text("always recalled")
    expect(page.locator("#history")).to_contain_text("marked not always recalled by you")
    check(page, "always-recall-page-en", "desktop")

    to_chinese(page)
    page.locator("dl.facts").get_by_role("button", name="设为总是调用").click()
    expect(page.locator(".flash")).to_contain_text("已设为总是调用：助手每次回答都会得到它。")
    expect(page.locator("dl.facts")).to_contain_text("总是调用")
    expect(page.locator("dl.facts").get_by_role("button", name="不再总是调用")).to_be_visible()
    expect(page.locator("#history")).to_contain_text("标记为总是调用")
    check(page, "always-recall-page-zh", "desktop")
    page.set_viewport_size(PHONE)
    check(page, "always-recall-page-zh", "phone")
    assert MemoryEntry.objects.get(pk=coeliac.pk).pinned
