""" "People and places" in a real browser at a phone's size (390x844) and a desktop's: no sideways
scroll with long names and memories, no serious or critical accessibility violation (axe-core),
and the whole path a user takes: /me/ → the list → a person → correct → erase, asked first."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from memory_core.entities.models import Entity
from memory_core.models import MemoryEntry
from privacy.services import privacy_remember
from tests.fixtures_browser import AXE
from tests.test_browser_pages import VIEWPORTS, check

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("pages_ready"),
]

LONG = "Maria-Konstantinopoulou-Vanderbilt-Oppenheimer"


def test_people_and_places_on_a_phone(owner, login, live_server):
    for text in (
        f"My sister {LONG} is a nurse.",
        f"{LONG}'s husband Marc is a pilot.",
        "My friend Bea likes green tea and reads long Russian novels on the train every morning.",
        "I work at Acme.",
    ):
        privacy_remember(user=owner, content=text)
    sister = Entity.objects.get(name=LONG)

    page = login("alice", "pw-alice")
    page.route(
        "**/__tests__/axe.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
    )
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.goto("/me/")
        page.get_by_role("link", name="People and places").click()
        page.wait_for_url("**/me/people/")
        expect(page.locator(f"#entity-{sister.pk}")).to_contain_text("Works as: nurse")
        check(page, "people", size)
        page.locator(f"#entity-{sister.pk} h2 a").click()
        page.wait_for_url(f"**/me/people/{sister.pk}/")
        for summary in page.locator(".entity-actions summary").all():
            summary.click()  # every form open: the widest the page gets
        check(page, "person", size)
        page.goto(f"/me/people/{sister.pk}/erase/")
        check(page, "person-erase", size)

    # On the phone: correct the name, then erase everything about her.
    page.set_viewport_size(VIEWPORTS["phone"])
    page.goto(f"/me/people/{sister.pk}/")
    page.locator(".entity-actions summary", has_text="Correct").click()
    page.get_by_label("Name", exact=True).fill("Ana")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("h1")).to_contain_text("Ana")
    expect(page.locator(".flash")).to_contain_text("Corrected.")
    page.get_by_role("link", name="Erase everything about Ana…").click()
    expect(page.locator("h1")).to_have_text("Erase everything about Ana?")
    page.get_by_role("button", name="Erase for good").click()
    page.wait_for_url("**/me/people/")
    expect(page.locator(".flash")).to_contain_text("Erased for good, with 2 memories")
    expect(page.locator(f"#entity-{sister.pk}")).to_have_count(0)
    assert not MemoryEntry.objects.filter(content__contains=LONG).exists()
