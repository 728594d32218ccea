"""Personal tokens in a real browser: from /me/ to the tokens page, make a named token with its
scopes and expiry, copy it (shown once, with paste-ready snippets), use it against the API, and
revoke it; at a phone's size and a desktop's, without sideways scroll or serious axe violations."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from api.models import UserToken
from tests.api.conftest import client_with
from tests.fixtures_browser import AXE
from tests.test_browser_pages import VIEWPORTS, check

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True, scope="module")
def _ready():
    expect.set_options(timeout=15_000)
    yield
    expect.set_options(timeout=None)


def test_a_person_makes_uses_and_revokes_a_token(owner, login, live_server):
    page = login("alice", "pw-alice")
    page.route(
        "**/__tests__/axe.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
    )
    page.goto("/me/")
    page.get_by_role("link", name="Personal tokens").click()
    page.wait_for_url("**/me/tokens/")
    expect(page.locator(".token-list")).to_contain_text("No tokens yet.")

    page.get_by_label("Name").fill("Claude Desktop on my laptop")
    page.get_by_label("erase memories").check()
    page.get_by_label("Expires").select_option("30")
    page.get_by_role("button", name="Make token").click()

    secret = page.locator("#new-token").input_value()
    token = UserToken.objects.get(user=owner)
    assert secret.startswith(token.prefix + "_") and token.name == "Claude Desktop on my laptop"
    assert sorted(token.scopes) == ["erase", "read", "write"] and token.expires_at is not None
    expect(page.locator("#snippet-1")).to_contain_text(f"Authorization: Bearer {secret}")
    expect(page.locator(".token-list")).to_contain_text(token.prefix)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        check(page, "tokens-issued", size)
    assert client_with(secret).get("/api/v1/memories/").status_code == 200

    page.goto("/me/tokens/")  # shown once: not on the next visit
    assert secret not in page.content()
    page.get_by_role("button", name="Revoke Claude Desktop on my laptop").click()
    expect(page.locator(".flash")).to_contain_text("no longer works")
    expect(page.locator(".token-list tr.inactive")).to_contain_text("revoked")
    check(page, "tokens", "phone" if page.viewport_size == VIEWPORTS["phone"] else "desktop")
    assert client_with(secret).get("/api/v1/memories/").status_code == 401


def test_a_bad_form_says_why_and_makes_nothing(owner, login, live_server):
    page = login("alice", "pw-alice")
    page.goto("/me/tokens/")
    page.get_by_label("Name").fill("   ")
    for scope in ("read and search your memories", "add and correct memories"):
        page.get_by_label(scope).uncheck()
    page.get_by_role("button", name="Make token").click()
    expect(page.get_by_role("alert")).to_contain_text("Choose among")
    assert not UserToken.objects.filter(user=owner).exists()
