"""Every page in a real browser at a desktop (1280x800) and a phone (390x844) size: no sideways
scroll, no serious or critical accessibility violation (axe-core, served from tests/static), a
screenshot of each under tests/screenshots/ (git-ignored) for review. Then what only a browser
shows: the focused composer, "Memory updated" with Undo, markdown that runs no script, a deep link
into page 3 and to a superseded version, bulk erase with Undo, the API docs fully offline."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from memory_core.lifecycle import memory_correct
from memory_core.models import MemoryEntry, Namespace
from memory_core.moderation import procedure_reject
from memory_core.pipeline import memory_add
from memory_core.services import EntryDraft, memory_create, namespace_for_user
from tests.chat.helpers import conversation, remember, say
from tests.fixtures_browser import AXE

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("pages_ready"),
]


SHOTS = Path(__file__).parent / "screenshots"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
XSS = (
    '<img src=x onerror="window.__pwned=1"> [x](javascript:window.__pwned=2) '
    "<script>window.__pwned=3</script>"
)


# The narrowest and widest common phones: only the sideways scroll is checked there.
PHONE_WIDTHS = {"phone-360": {"width": 360, "height": 740}, "phone-430": {"width": 430, "height": 932}}


def no_sideways_scroll(page, name: str, size: str) -> None:
    page.wait_for_load_state("load")
    width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if width[0] > width[1]:
        wide = page.evaluate(
            "[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
            " > window.innerWidth + 1).slice(-5).map(e => e.tagName + '.' + e.className)"
        )
        pytest.fail(f"{name} scrolls sideways at {size}: {width}, widest: {wide}")


def check(page, name: str, size: str) -> None:
    """No sideways scroll, no serious or critical axe violation, and a screenshot."""
    no_sideways_scroll(page, name, size)
    page.add_script_tag(url="/__tests__/axe.js")
    result = page.evaluate(
        "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations"
        ".filter(v => ['serious', 'critical'].includes(v.impact))"
        ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))"
    )
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}-{size}.png"), full_page=True)
    assert result == [], f"{name} at {size}: {result}"


def open_a_row(page) -> None:
    """/me/ with its first row opened: the row's body (history, correct form, actions) loads."""
    page.goto("/me/")
    row = page.locator("#memory-list li.memory").first
    row.locator("> details > summary").click()
    expect(row.locator(".row-body .actions")).to_be_visible()
    row.locator("details.history > summary").click()
    row.locator("details.correct > summary").click()


def tab_shows_focus(page, presses: int) -> None:
    """Keyboard: whatever Tab reaches shows a visible focus ring, from the skip link on."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        ring = page.evaluate(
            "(() => { const e = document.activeElement, s = getComputedStyle(e);"
            " return [e.tagName + '.' + e.className, s.outlineStyle, parseFloat(s.outlineWidth)]; })()"
        )
        assert ring[1] != "none" and ring[2] >= 2, ring


def test_every_page_at_both_sizes(owner, moderator, login, openai_server, live_server):
    namespace = namespace_for_user(user=owner)
    for i in range(120):
        memory_create(namespace=namespace, draft=EntryDraft(content=f"The user owns bicycle number {i}."))
    deep = MemoryEntry.objects.filter(namespace=namespace).order_by("-recorded_at", "-id")[105]  # page 3
    old = remember(owner, "The user lives in Lisbon.")
    current = memory_correct(
        actor=owner, memory_id=old.pk, content="The user lives in Porto.", reason="Moved"
    )
    rule = memory_add(namespace=namespace, content="Always answer me in Portuguese.", type="procedural").entry
    conv = conversation(owner)
    openai_server.reply_text("Noted.\n\n**Bold**, a list:\n\n- one\n- two\n\n" + XSS)
    say(owner, conv, "Remember that I am severely allergic to peanuts.")
    taught = MemoryEntry.objects.get(namespace=namespace, content__icontains="peanuts")

    page = login("alice", "pw-alice")
    page.route(
        "**/__tests__/axe.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
    )
    pages = {
        "chat": f"/c/{conv.pk}/",
        "new-chat": "/",
        "me": "/me/",
        "me-page-3": "/me/?page=3",
        "memory": f"/me/memories/{current.pk}/",
        "memory-old-version": f"/me/memories/{old.pk}/",
        "activity": "/me/activity/",
        "not-found": "/me/memories/00000000-0000-4000-8000-000000000000/",
    }
    # A rule the user asked for is rejected: the next chat page says so once, /me/ keeps it (axe
    # checks both with it).
    procedure_reject(operator=moderator, memory_id=rule.pk, reason="Not for this assistant")
    page.set_viewport_size(VIEWPORTS["desktop"])
    page.goto(f"/c/{conv.pk}/")
    expect(page.locator(".banner.decision.rejected")).to_contain_text("Not for this assistant")
    check(page, "chat-decision", "desktop")
    page.goto("/me/")
    expect(page.locator(".banner.decision.rejected")).to_contain_text("Not for this assistant")
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        for name, url in pages.items():
            page.goto(url)
            check(page, name, size)
        open_a_row(page)
        check(page, "me-row-open", size)
        # The chat: the composer has the focus and is in view; the reply ran no script.
        for url in ("/", f"/c/{conv.pk}/"):
            page.goto(url)
            focused = "document.activeElement.matches('#composer textarea')"
            # The page's script gives the focus: on a loaded machine it may come after the load.
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_function(focused, timeout=5000)
            assert page.evaluate(focused), (url, size)
            box = page.locator("#composer textarea").bounding_box()
            assert box is not None and box["y"] + box["height"] <= viewport["height"], (url, size)
        assert page.evaluate("window.__pwned") is None
        expect(page.locator(".msg.assistant .md strong")).to_have_text("Bold")

    for size, viewport in PHONE_WIDTHS.items():
        page.set_viewport_size(viewport)
        for name, url in pages.items():
            page.goto(url)
            no_sideways_scroll(page, name, size)
        open_a_row(page)
        no_sideways_scroll(page, "me-row-open", size)

    page.set_viewport_size(VIEWPORTS["desktop"])
    # Deep links: a memory on page 3, an old version that names the current one.
    page.goto("/me/?page=3")
    page.locator(f"#memory-{deep.pk} > details > summary").click()
    page.locator(f"#memory-{deep.pk}").get_by_role("link", name="Open its page").click()
    page.wait_for_url(f"**/me/memories/{deep.pk}/")
    expect(page.locator("h1.content")).to_have_text(deep.content)
    page.goto(f"/me/memories/{old.pk}/")
    page.locator(".banner.old-version a").click()
    page.wait_for_url(f"**/me/memories/{current.pk}/")

    page.goto("/me/")
    tab_shows_focus(page, 12)

    # Bulk erase, then Undo: both come back.
    page.goto("/me/")
    first, second = (page.locator("#memory-list input[name=ids]").nth(i) for i in (0, 1))
    chosen = [first.get_attribute("value"), second.get_attribute("value")]
    first.check()
    second.check()
    page.get_by_role("button", name="Erase", exact=True).click()
    expect(page.locator("#undo")).to_contain_text("Erasing 2 memories")
    for pk in chosen:
        expect(page.locator(f"#memory-{pk}")).to_have_count(0)
    page.locator("#undo").get_by_role("button", name="Undo").click()
    for pk in chosen:
        expect(page.locator(f"#memory-{pk}")).to_have_count(1)

    # "Memory updated" at the reply that taught it; Undo forgets it.
    page.goto(f"/c/{conv.pk}/")
    notice = page.locator(".notice.updated.inline")
    expect(notice).to_contain_text("Memory updated")
    expect(notice.get_by_role("link")).to_have_attribute("href", f"/me/memories/{taught.pk}/")
    notice.get_by_role("button", name="Undo").click()
    expect(page.locator(".notice.updated.inline")).to_contain_text("Undone")
    assert not MemoryEntry.objects.filter(pk=taught.pk).exists()

    # The composer: a 20,000-character paste is counted, not cut, and cannot be sent; Enter gets a
    # plain message (no echo of the text) and the paste stays in the box to be shortened.
    box = page.locator("#composer textarea")
    box.fill("pasted " * 2857 + "x")
    expect(page.locator("#composer-count")).to_contain_text("12,000 over the limit")
    assert len(box.input_value()) == 20_000
    expect(page.get_by_role("button", name="Send")).to_be_disabled()
    turns = page.locator("#messages .turn").count()
    box.press("Enter")
    expect(page.locator("#composer-error")).to_contain_text("Nothing was sent")
    assert "pasted pasted" not in page.locator("#composer-error").inner_text()
    assert len(box.input_value()) == 20_000 and page.locator("#messages .turn").count() == turns
    box.fill("Short again.")
    expect(page.locator("#composer-error")).to_have_text("")


def test_moderation_and_the_api_docs_at_both_sizes(moderator, login, live_server, settings):
    # A transactional test empties the tables the first migrate filled (test_memory_page checks it).
    Namespace.objects.get_or_create(path=settings.DEFAULT_ORG_NAMESPACE, defaults={"kind": "org"})
    page = login("olga", "pw-olga")
    page.route(
        "**/__tests__/axe.js", lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
    )
    outside: list[str] = []

    def note(request) -> None:
        if not request.url.startswith((live_server.url, "data:", "blob:")):
            outside.append(request.url)

    page.on("request", note)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.goto("/me/moderation/")
        check(page, "moderation", size)
        expect(page.locator("select[name=namespace_path]").first).to_have_value("org/default")
    for size, viewport in PHONE_WIDTHS.items():
        page.set_viewport_size(viewport)
        page.goto("/me/moderation/")
        no_sideways_scroll(page, "moderation", size)
    for url in ("/api/redoc/", "/api/docs/"):
        page.goto(url)
        page.wait_for_load_state("networkidle")
    assert outside == [], json.dumps(outside)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_me_leads_with_the_memories_and_one_tab_reaches_them(owner, login, live_server, size):
    namespace = namespace_for_user(user=owner)
    for i in range(30):
        memory_create(namespace=namespace, draft=EntryDraft(content=f"The user has visited lighthouse {i}."))
    page = login("alice", "pw-alice")
    page.set_viewport_size(VIEWPORTS[size])
    page.goto("/me/")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"me-first-screen-{size}.png"))

    # The first screen shows the count, the search and where the list begins (on a phone, below
    # the site's header and the offline banner), not only pause and add forms.
    first_row = page.locator("#memory-list li.memory").first
    expect(first_row).to_be_visible()
    height = VIEWPORTS[size]["height"]
    for target in (page.locator("#memory-list .totals"), page.locator("input[name=q]")):
        box = target.bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, size
    row = first_row.bounding_box()
    assert row is not None and row["y"] < height and (size == "phone" or row["y"] + row["height"] <= height)
    # "Remember this" is one line until opened, and still works.
    expect(page.locator("form.remember textarea")).to_be_hidden()

    # Keyboard: the first Tab is the skip link, Enter lands on the memories.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.getAttribute('href')") == "#memories"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.closest('#memories') !== null")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.closest('#memories') !== null")
    assert focused, "the next Tab stays in the memories (their search first)"

    page.locator("details.remember-bar > summary").click()
    page.fill("form.remember textarea", "The user keeps a logbook of every lighthouse.")
    page.locator("form.remember button[type=submit]").click()
    expect(page.locator("main")).to_contain_text("logbook of every lighthouse")  # its own page
