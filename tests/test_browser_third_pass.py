# ruff: noqa: RUF001  # full-width Chinese punctuation is what some of these tests are about
"""Issue 32's third pass in a real browser (Debian's chromium), as the person would walk it: what a
passing remark taught shows at its reply with Undo and the offline notice is said once; /me/'s
numbers agree and "food I must avoid" finds the peanut allergy; a long paste is refused whole and
kept; the erase dialog says what happens to the conversations; relations are corrected and ended
on the people page; a rule an operator approved is used by the proposer's next chat. In English
and Chinese, at a phone's and a desktop's width; no page error, no CSP violation (the `page`
fixture), no serious axe violation (`check`), screenshots under tests/screenshots/."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings as django_settings
from playwright.sync_api import expect

from chat.models import Conversation, Message
from memory_core.entities.models import Entity, Relation
from memory_core.entities.vocabulary import Predicate
from memory_core.models import MemoryEntry, MemoryType
from privacy.services import privacy_remember
from tests.chat.helpers import conversation, remember, say
from tests.test_browser_pages import VIEWPORTS, check

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("pages_ready"),
]

PHONE = VIEWPORTS["phone"]
DESKTOP = VIEWPORTS["desktop"]


def to_chinese(page: Any) -> None:
    page.locator(".site-footer select[name=language]").select_option("zh-hans")
    page.locator(".site-footer").get_by_role("button").click()
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.lang") == "zh-hans"


def send(page: Any, text: str) -> Any:
    """Type and send; the assistant's side of the new turn once the final reply replaced the stream."""
    turns = page.locator("#messages .turn").count()
    box = page.locator("#composer textarea")
    box.fill(text)
    box.press("Enter")
    reply = page.locator("#messages .turn").nth(turns).locator(".msg.assistant")
    expect(reply).not_to_have_class(re.compile(r"\bpending\b"))
    return page.locator("#messages .turn").nth(turns)


def test_a_passing_remark_is_shown_learned_at_its_reply(owner, login, errors, settings):
    settings.CHAT_LEARN_EACH_TURN_OFFLINE = True
    conv = conversation(owner)
    page = login("alice", "pw-alice")
    for size in ("desktop", "phone"):
        page.set_viewport_size(VIEWPORTS[size])
        page.goto(f"/c/{conv.pk}/" if size == "desktop" else f"/c/{conv.pk}/#composer")
        if size == "desktop":
            first = send(page, "Hi! My brother's a carpenter, and I'm allergic to sesame, it's serious.")
            expect(first.locator(".msg.assistant")).to_contain_text("running without a language model")
            notice = first.locator(".notice.updated.inline")
            expect(notice).to_contain_text("Memory updated")
            expect(notice).to_contain_text("The user is allergic to sesame.")
            expect(notice).to_contain_text("The user's brother works as a carpenter.")
            expect(notice).not_to_contain_text("serious")  # a whole clause, never "allergic to it's serious"
            second = send(page, "What should I cook tonight?")
            expect(second.locator(".msg.assistant")).not_to_contain_text("running without a language model")
        check(page, "third-chat-learned", size)

    page.set_viewport_size(DESKTOP)
    page.goto(f"/c/{conv.pk}/")
    sesame = MemoryEntry.objects.get(namespace__owner=owner, content="The user is allergic to sesame.")
    notice = page.locator("#messages .turn").first.locator(".notice.updated.inline")
    notice.locator("li", has_text="sesame").get_by_role("button", name="Undo").click()
    expect(page.locator("#messages .turn").first.locator(".notice.updated.inline")).to_contain_text("Undone")
    assert not MemoryEntry.objects.filter(pk=sesame.pk).exists()

    # In Chinese: the interface, the inline notice and the offline reply.
    to_chinese(page)
    page.goto("/")
    page.locator("#composer textarea").fill("我老公做程序员。")
    page.get_by_role("button", name="发送").click()
    page.wait_for_url(re.compile(r"/c/[0-9a-f-]{36}/"))
    reply = page.locator("#messages .turn").first.locator(".msg.assistant")
    expect(reply).not_to_have_class(re.compile(r"\bpending\b"))
    expect(reply).to_contain_text("离线模式")
    expect(reply).not_to_contain_text("language model")
    expect(page.locator(".notice.updated.inline")).to_contain_text("记忆已更新")
    expect(page.locator(".notice.updated.inline")).to_contain_text("用户的老公是程序员。")
    check(page, "third-chat-zh", "desktop")


def test_me_numbers_search_and_rows_in_english_and_chinese(owner, login, errors):
    allergy = remember(owner, "The user is severely allergic to peanuts.", category="safety", pinned=True)
    remember(owner, "The user plays the cello in an orchestra.")
    old = remember(owner, "The user lives in Lisbon.")
    privacy_remember(user=owner, content="My sister Ana is a nurse.")
    from memory_core.lifecycle import memory_correct

    memory_correct(actor=owner, memory_id=old.pk, content="用户住在里斯本。")
    page = login("alice", "pw-alice")
    for language in ("en", "zh-hans"):
        if language == "zh-hans":
            to_chinese(page)
        for size in ("desktop", "phone"):
            page.set_viewport_size(VIEWPORTS[size])
            page.goto("/me/")
            totals = page.locator("#memory-list nav.totals a").first.inner_text()
            count = page.locator("#memory-list nav.pages span").inner_text()
            n = re.search(r"\d+", totals)
            assert n is not None and re.search(rf"\b{n.group(0)} ", count.split("·")[-1]), (totals, count)
            expect(page.locator("#memory-list")).not_to_contain_text("{#")  # no template comment shown
            rows = page.locator("#memory-list li.memory").count()
            assert str(rows) == n.group(0), (rows, totals)
            check(page, f"third-me-{language}", size)

            page.goto("/me/?q=food+I+must+avoid")
            row = page.locator(f"#memory-{allergy.pk}")
            expect(row).to_be_visible()
            expect(row).to_contain_text("related by meaning" if language == "en" else "意思相近")
            expect(page.locator("#memory-list")).not_to_contain_text("cello")

            page.goto("/me/?q=Lisbon")
            expect(page.locator("#memory-list")).to_contain_text("用户住在里斯本。")
            earlier = "Found by an earlier version" if language == "en" else "通过以前的版本找到"
            expect(page.locator("#memory-list")).to_contain_text(earlier)

            page.goto("/me/")
            row = page.locator(f"#memory-{allergy.pk}")
            row.locator("> details > summary").click()
            actions = row.locator(".row-body .actions")
            expect(actions).to_be_visible()
            expect(actions).to_contain_text("Open its page" if language == "en" else "打开详情页")
            if language == "zh-hans":
                expect(row.locator(".row-body")).not_to_contain_text("confidence")
                expect(page.locator("select[name=status]")).to_contain_text("当前（使用中、已停用、待审核）")
            check(page, f"third-me-row-{language}", size)
            page.goto(f"/me/memories/{allergy.pk}/")
            if language == "zh-hans":
                expect(page.locator("dl.facts")).to_contain_text("总是调用")
                expect(page.locator("dl.facts")).not_to_contain_text("always recalled")
            check(page, f"third-memory-{language}", size)


def test_a_long_paste_is_kept_and_the_erase_dialog_explains(owner, login, errors):
    page = login("alice", "pw-alice")
    page.set_viewport_size(DESKTOP)
    page.goto("/me/")
    page.locator("details.remember-bar > summary").click()
    text = "The user keeps three beehives on the roof and harvests honey every June. " * 40
    page.locator("form.remember textarea").fill(text)
    assert len(page.locator("form.remember textarea").input_value()) == len(text)  # not cut on paste
    page.locator("form.remember").get_by_role("button", name="Remember").click()
    alert = page.locator("#remember-error")
    expect(alert).to_contain_text("Nothing was saved")
    expect(alert).to_contain_text("at most 2,000")
    assert page.locator("form.remember textarea").input_value().strip() == text.strip()
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()
    check(page, "third-remember-too-long", "desktop")

    conv = conversation(owner)
    say(owner, conv, "Remember that I keep bees.")
    entry = MemoryEntry.objects.get(namespace__owner=owner, content__icontains="bees")
    page.goto(f"/me/memories/{entry.pk}/erase/")
    keep = page.get_by_role("radio", name=re.compile("Keep those conversations"))
    expect(keep).to_be_checked()
    expect(page.locator("fieldset.erase-sources")).to_contain_text("replies that quoted it stay")
    expect(page.locator("fieldset.erase-sources")).to_contain_text("Each whole conversation is deleted")
    check(page, "third-erase", "desktop")
    page.get_by_role("button", name="Erase for good").click()
    page.wait_for_url("**/me/")
    assert not MemoryEntry.objects.filter(pk=entry.pk).exists()
    assert Conversation.objects.filter(pk=conv.pk).exists()


def test_relations_are_corrected_and_ended_on_the_people_page(owner, login, errors):
    privacy_remember(user=owner, content="My sister Ana is a nurse.")
    privacy_remember(user=owner, content="Ana is married to Marc.")
    ana, marc = Entity.objects.get(name="Ana"), Entity.objects.get(name="Marc")
    role = Relation.objects.get(subject=ana, predicate=Predicate.ROLE)
    page = login("alice", "pw-alice")
    page.set_viewport_size(PHONE)
    page.goto(f"/me/people/{marc.pk}/")
    expect(page.locator(".entity-facts").first).to_contain_text("Married to: Ana")
    expect(page.locator("body")).not_to_contain_text("Ana’s married to")
    page.goto(f"/me/people/{ana.pk}/")
    # By keyboard alone: open the relation's Change, type the new value, Enter.
    item = page.locator(f"#relation-{role.pk}")
    item.locator("details.relation-actions > summary").focus()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.name") == "value"
    page.keyboard.press("Control+A")
    page.keyboard.type("midwife")
    page.keyboard.press("Enter")
    expect(page.locator(".flash")).to_contain_text("Corrected.")
    expect(page.locator(f"#relation-{role.pk}")).to_contain_text("Works as: midwife")
    check(page, "third-person-relations", "phone")

    item = page.locator(f"#relation-{role.pk}")
    item.locator("details.relation-actions > summary").click()
    item.get_by_role("button", name="End it").click()
    expect(page.locator(".entity-facts.earlier")).to_contain_text("Works as: midwife")
    role.refresh_from_db()
    assert role.valid_to is not None

    to_chinese(page)
    page.set_viewport_size(DESKTOP)
    page.goto(f"/me/people/{marc.pk}/")
    expect(page.locator("h2").first).to_have_text("助手知道的内容")
    expect(page.locator(".entity-facts").first).to_contain_text("配偶: Ana")
    check(page, "third-person-zh", "desktop")
    page.goto("/me/people/")
    expect(page.locator("h1")).to_have_text("人物和地点")
    check(page, "third-people-zh", "desktop")


def test_a_rule_approved_into_the_default_org_is_used_by_the_proposers_chat(
    owner, moderator, login, errors, browser, live_server
):
    page = login("alice", "pw-alice")
    page.set_viewport_size(DESKTOP)
    page.goto("/")
    page.locator("#composer textarea").fill(
        "Remember: for every refund, always ask for the order number and check the receipt first."
    )
    page.get_by_role("button", name="Send").click()
    page.wait_for_url(re.compile(r"/c/[0-9a-f-]{36}/"))
    expect(page.locator(".msg.assistant").first).to_contain_text("an operator will review it")
    proposal = MemoryEntry.objects.get(namespace__owner=owner, type=MemoryType.PROCEDURAL)

    operator = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
    tab = operator.new_page()
    tab.goto("/accounts/login/")
    tab.fill("input[name=username]", "olga")
    tab.fill("input[name=password]", "pw-olga")
    tab.click("button[type=submit]")
    tab.wait_for_url(lambda url: "/accounts/login/" not in url)
    tab.goto("/me/moderation/")
    card = tab.locator(f"#procedure-{proposal.pk}")
    expect(card.locator("select[name=namespace_path]")).to_have_value(django_settings.DEFAULT_ORG_NAMESPACE)
    expect(card).to_contain_text("Who follows it")
    card.get_by_role("button", name="Approve").click()
    expect(tab.locator(".flash")).to_contain_text("Approved")
    operator.close()

    page.goto("/")
    page.locator("#composer textarea").fill("A customer wants a refund. What do I do?")
    page.get_by_role("button", name="Send").click()
    page.wait_for_url(re.compile(r"/c/[0-9a-f-]{36}/"))
    reply = page.locator(".msg.assistant").first
    expect(reply).not_to_have_class(re.compile(r"\bpending\b"))
    expect(reply).to_contain_text("order number")
    reply.locator("details.used > summary").click()
    expect(reply.locator("details.used")).to_contain_text("order number")
    conv = Message.objects.filter(role="assistant").order_by("-id").first().conversation
    page.goto(f"/c/{conv.pk}/")
    check(page, "third-chat-procedure", "desktop")
