# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""In a real browser set to Simplified Chinese, on a phone (390 px): the pages speak Chinese, long
Chinese text without spaces wraps instead of scrolling sideways, /me/ finds a Chinese memory, and
the language switch turns the pages to English."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from memory_core.models import MemoryEntry
from tests.chat.helpers import conversation, remember, say

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("pages_ready"),
]

PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).parent / "screenshots"  # git-ignored, for review
# One long sentence, no spaces: the browser may only break it between characters.
LONG = (
    "我对花生和所有坚果都严重过敏，吃了以后会呼吸困难，所以点心、零食、沙拉酱和泰国菜里都不能有花生，"
    "出门时我总是随身带着肾上腺素注射笔，朋友聚餐时请一定提前告诉餐厅我的过敏情况，谢谢你一直帮我记着这件事情。"
)


@pytest.fixture
def chinese_phone(browser: Any, live_server: Any) -> Iterator[Any]:
    """A tab whose browser asks for Chinese (Accept-Language: zh-CN), at a phone's width."""
    context = browser.new_context(base_url=live_server.url, locale="zh-CN", viewport=PHONE)
    context.set_default_timeout(15_000)
    tab = context.new_page()
    yield tab
    context.close()


def _login(page: Any, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    expect(page.locator("h1")).to_have_text("登录")
    page.get_by_label("用户名").fill(username)
    page.get_by_label("密码").fill(password)
    page.get_by_role("button", name="登录").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def _assert_no_sideways_scroll(page: Any, name: str) -> None:
    page.wait_for_load_state("load")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / f"zh-{name.replace('/', '').replace(' ', '-')}.png"), full_page=True)
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll <= inner, f"{name} scrolls sideways at 390 px: {scroll} > {inner}"


def test_a_chinese_speaking_user_on_a_phone(owner, chinese_phone):
    long = remember(owner, LONG)
    remember(owner, "我在上海的一家银行工作。")
    remember(owner, "The user plays the cello.")
    conv = conversation(owner)
    say(owner, conv, LONG)
    page = chinese_phone
    _login(page, "alice", "pw-alice")

    page.goto("/me/")
    assert page.evaluate("document.documentElement.lang") == "zh-hans"
    expect(page.locator("h1")).to_have_text("AI 对我的了解")
    expect(page.get_by_role("link", name="导出全部（JSON）")).to_be_visible()
    expect(page.locator("details.remember-bar > summary")).to_have_text("记住关于我的这件事")
    # The local English model and Chinese memories: the page says what an operator can do.
    expect(page.locator("#embedding-hint")).to_contain_text("多语言模型")
    _assert_no_sideways_scroll(page, "/me/")
    row = page.locator(f"#memory-{long.pk}")
    row.locator("> details > summary").click()
    text = row.locator(".content").first
    box = text.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"]
    assert box["height"] > 3 * 16, "the long memory wraps onto several lines"
    _assert_no_sideways_scroll(page, "/me/ with a long memory open")

    # Search by words: a query made of words of the memory (see docs/languages.md for segmentation).
    page.get_by_label("按词语或语义搜索").fill("银行工作")
    page.get_by_role("button", name="显示").click()
    rows = page.locator("#memory-list li.memory")
    expect(rows.first).to_contain_text("我在上海的一家银行工作。")
    expect(page.locator("#memory-list")).not_to_contain_text("cello")

    page.goto(f"/me/memories/{long.pk}/")
    expect(page.locator("h1.content")).to_contain_text("肾上腺素注射笔")
    _assert_no_sideways_scroll(page, "the memory's page")

    page.goto(f"/c/{conv.pk}/")
    expect(page.get_by_role("button", name="发送")).to_be_visible()
    expect(page.locator(".msg.user").first).to_contain_text("肾上腺素注射笔")
    _assert_no_sideways_scroll(page, "the chat")


def test_the_chat_remembers_and_acknowledges_in_chinese_and_the_switch_turns_english(owner, chinese_phone):
    page = chinese_phone
    _login(page, "alice", "pw-alice")
    page.goto("/")
    expect(page.get_by_role("heading", name="开始对话")).to_be_visible()
    page.locator("#composer textarea").fill("Remember that 我对花生过敏")
    page.get_by_role("button", name="发送").click()
    reply = page.locator(".msg.assistant .text").first
    expect(reply).to_contain_text("我会记住：", timeout=30_000)
    page.reload()
    expect(page.locator(".notice.updated.inline")).to_contain_text("记忆已更新")
    assert MemoryEntry.objects.filter(content__contains="花生").exists()

    page.locator(".site-footer select[name=language]").select_option("en")
    page.locator(".site-footer").get_by_role("button").click()
    expect(page.locator(".notice.updated.inline")).to_contain_text("Memory updated")
    assert page.evaluate("document.documentElement.lang") == "en"
    _assert_no_sideways_scroll(page, "the chat in English")
