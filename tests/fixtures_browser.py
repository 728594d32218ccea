"""A real browser: Debian's chromium driven by Playwright against pytest-django's live server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# axe-core, served to the pages under test from the test tree (no network here).
AXE = Path(__file__).parent / "static" / "axe-4.14.1.min.js"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


# Per module, not per session: Playwright's sync API keeps an asyncio loop running in this thread
# while it is open, and a test that runs its own loop after it (the MCP client's anyio.run) would
# fail with "Cannot run the event loop while another loop is running" wherever the order put it.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        pytest.fail(f"chromium not found at {CHROMIUM}: `make test` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


# Every page reports its Content-Security-Policy violations to the console, where they are collected.
_REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
                + ` at ${event.sourceFile || document.location.pathname}:${event.lineNumber}`);
});
"""


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    """A tab on the live server; the test fails if any page broke the Content-Security-Policy."""
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(15_000)
    context.add_init_script(_REPORT_CSP_VIOLATIONS)
    violations: list[str] = []

    def collect(message: Any) -> None:
        if "CSP violation" in message.text or "Content Security Policy" in message.text:
            violations.append(message.text)

    tab = context.new_page()
    tab.on("console", collect)
    yield tab
    context.close()
    assert not violations, f"Content-Security-Policy violations: {violations}"


@pytest.fixture
def login(page: Any) -> Callable[[str, str], Any]:
    """Sign in through the real login form; returns the page."""

    def _login(username: str, password: str) -> Any:
        page.goto("/accounts/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda url: "/accounts/login/" not in url)
        return page

    return _login


@pytest.fixture(scope="module")
def pages_ready() -> Iterator[None]:
    """For a module of browser tests: the local model warmed once (the live server runs in this
    process, so a cold start would count against a reply's time) and a patient `expect`."""
    from playwright.sync_api import expect

    from memory_core.embeddings import load_local_model

    load_local_model()
    expect.set_options(timeout=20_000)
    yield
    expect.set_options(timeout=None)  # back to Playwright's default for other modules


@pytest.fixture
def errors(page: Any) -> Iterator[list[str]]:
    """The page's uncaught script errors (the test fails on any); axe-core served locally."""
    seen: list[str] = []
    page.on("pageerror", lambda error: seen.append(str(error)))
    page.route(
        "**/__tests__/axe.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
    )
    yield seen
    assert not seen, f"page errors: {seen}"
