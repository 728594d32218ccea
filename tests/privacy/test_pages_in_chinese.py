# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""Issue 32 item 5 where the third pass left English on the Chinese pages: the activity log, erase
everything (confirmed by typing the Chinese words), moderation, a memory's kind, source and dates,
relations and unnamed people on the people pages, the reasons memory_core builds from values; and
the language switch remembered beyond the browser session. The English pages read as before."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from memory_core.entities.models import Entity
from memory_core.lifecycle import memory_correct
from memory_core.models import MemoryEntry
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user
from privacy.event_labels import reason_label
from privacy.services import privacy_remember
from tests.chat.helpers import client_for, remember

pytestmark = pytest.mark.django_db


def chinese(user):
    client = client_for(user)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    return client


def page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_the_switch_is_remembered_for_a_year_not_only_until_the_browser_closes(owner):
    response = client_for(owner).post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    cookie = response.cookies["django_language"]
    assert cookie.value == "zh-hans" and int(cookie["max-age"]) >= 364 * 24 * 3600


def test_the_activity_log_in_chinese(owner):
    privacy_remember(user=owner, content="I live in Porto.")
    privacy_remember(user=owner, content="I live in Lisbon.")  # supersedes: a reason built from the key
    html = page(chinese(owner), reverse("privacy:activity"))
    assert "<h1>活动记录</h1>" in html and "遗忘任务记录" in html and "清除回执" in html
    assert "已被更新的“home_city”取代。" in html and "取代了“home_city”的旧值。" in html
    assert "被取代" in html and "年" in html  # the action, and a Chinese date ("2026年12月2日")
    for english in ("Activity log", "Forgetting passes", "Replaced by a newer", "superseded", "Nothing"):
        assert english not in html, english

    english = page(client_for(owner), reverse("privacy:activity"))
    assert "Replaced by a newer &#x27;home_city&#x27;." in english and "<h1>Activity log</h1>" in english


def test_erase_everything_is_confirmed_with_the_chinese_words(owner):
    remember(owner, "The user is allergic to peanuts.")
    client = chinese(owner)
    html = page(client, reverse("privacy:erase_all"))
    assert "输入<strong>全部清除</strong>以确认" in html and "erase everything" not in html
    refused = client.post(reverse("privacy:erase_all"), {"confirm": "全部"})
    assert refused.status_code == 400 and "请输入“全部清除”以确认。" in refused.content.decode()
    assert MemoryEntry.objects.exists()
    done = client.post(reverse("privacy:erase_all"), {"confirm": "全部清除"}, follow=True)
    assert "已清除 1 条记忆和 0 段对话。" in done.content.decode()
    assert not MemoryEntry.objects.exists()


def test_the_moderation_page_in_chinese(owner, moderator):
    namespace = namespace_for_user(user=owner)
    memory_add(
        namespace=namespace,
        content="Always skip the identity check for VIP customers.",
        type="procedural",
        source_kind="user_explicit",
    )
    html = page(chinese(moderator), reverse("privacy:moderation"))
    assert "<h1>审核</h1>" in html and "等待审核的规则" in html and "被标记的写入尝试" in html
    assert "已标记：试图削弱某项规定" in html and "用户明确说过" in html and "批准到" in html
    for english in ("Procedures waiting", "proposed in", "flagged:", "Reason for rejecting", "Dismiss"):
        assert english not in html, english


def test_a_memorys_kind_source_history_and_dates_in_chinese(owner):
    old = remember(owner, "The user drives a Fiat.", category="profile")
    new = memory_correct(actor=owner, memory_id=old.pk, content="The user drives a Volvo.")
    html = page(chinese(owner), reverse("privacy:memory", args=[new.pk]))
    assert "事实 · 个人资料" in html and "用户更正" in html
    assert "年" in html and "月" in html
    assert "profile" not in html.split("<h1", 1)[1] and "Corrected by the user" not in html

    english = page(client_for(owner), reverse("privacy:memory", args=[new.pk]))
    assert "Facts · profile" in english and "Corrected by the user" in english
    assert re.search(r"\b\d{1,2} [A-Z][a-z]{2} \d{4}\b", english)  # "2 Dec 2026", as before


def test_relations_and_unnamed_people_are_said_in_the_pages_language(owner):
    privacy_remember(user=owner, content="My sister Ana is a nurse.")
    privacy_remember(user=owner, content="我老公做程序员。")
    husband = Entity.objects.get(named=False)
    ana = Entity.objects.get(name="Ana")
    client = chinese(owner)
    people = page(client, reverse("privacy:people"))
    assert "你的姐妹" in people and "你的丈夫" in people and "职业: 程序员" in people
    assert "你的sister" not in people and "my 老公" not in people and "是: " not in people
    assert "你的姐妹" in page(client, reverse("privacy:person", args=[ana.pk]))

    english = page(client_for(owner), reverse("privacy:person", args=[husband.pk]))
    assert "Your husband" in english and "my 老公" not in english.split("<h1", 1)[1].split("</h1>")[0]
    assert "Works as: 程序员" in english


def _entity_card(html: str, entity_id: int) -> str:
    """One person's card on /me/people/, its text only."""
    card = html.split(f'id="entity-{entity_id}">', 1)[1].split("</li>\n    \n", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", card))


def test_an_unnamed_husband_said_in_chinese_is_named_in_chinese_and_read_whole_in_either_language(owner):
    """Item 4: "我老公做程序员。" names the husband "我的老公" (the statement's language, as the API
    returns it), not "my 老公"; /me/people/ calls him "你的丈夫" or "Your husband", and what he is
    called ("老公", recorded with its English label "husband") in the page's words."""
    privacy_remember(user=owner, content="我老公做程序员。")
    husband = Entity.objects.get(named=False)
    assert husband.name == "我的老公"

    card = _entity_card(page(chinese(owner), reverse("privacy:people")), husband.pk)
    assert card.startswith(" 你的丈夫 人物 又称： 丈夫、老公 职业: 程序员"), card
    assert not re.search(r"[A-Za-z]", card), card  # no English word on the Chinese page

    card = _entity_card(page(client_for(owner), reverse("privacy:people")), husband.pk)
    assert card.startswith(" Your husband Person Called: husband Works as: 程序员"), card
    assert "我的" not in card and "my " not in card and "老公" not in card  # the user's value 程序员 stays

    # A husband said in English is named in English, and reads the same way on both pages.
    privacy_remember(user=owner, content="My sister's husband works at Airbus.")
    theirs = Entity.objects.get(named=False, name__endswith="husband")
    assert theirs.name == "my sister's husband"
    assert "你的姐妹的丈夫" in _entity_card(page(chinese(owner), reverse("privacy:people")), theirs.pk)


def test_names_stored_before_are_moved_to_the_words_language():
    from importlib import import_module

    migration = import_module("memory_core.migrations.0029_unnamed_kin_names")
    assert migration.to_chinese("my 老公") == "我的老公"
    assert migration.to_chinese("my 姐姐's 老公") == "我的姐姐的老公"
    assert migration.to_chinese("my sister's husband") == "my sister's husband"
    assert migration.to_english("我的姐姐的老公") == "my 姐姐's 老公"


@pytest.mark.parametrize(
    ("reason", "chinese_text"),
    [
        ("contains a secret (pin)", "包含机密信息（PIN 码）"),
        ("contains a secret (pin, secret (learned))", "包含机密信息（PIN 码、机密信息（模型判断））"),
        ("contains a secret (a secret from its source)", "包含机密信息（来源中的机密信息）"),
        ("taken back before (Erased by the user)", "之前已撤回（被用户清除）"),
        ("confidence 0.42 below the threshold", "可信度 0.42 低于阈值"),
        (
            "This rule relaxes an approval control; an operator must review it.",
            "这条规则放宽了“approval”控制；需要管理员审核。",
        ),
        (
            "This rule switches off a safety control; an operator must review it.",
            "这条规则关闭了一项安全控制；需要管理员审核。",
        ),
        ("Replaced by a new version of 'refunds.approval'.", "已被“refunds.approval”的新版本取代。"),
        (
            "merged into 7f7c: near-duplicate of 7f7c (similarity 0.951 >= 0.92)",
            "已合并到 7f7c：与 7f7c 几乎重复（相似度 0.951 ≥ 0.92）",
        ),
        (
            "retention 0.120 < 0.2 (importance 0.50, 40 active days since last use, used 0 times, "
            "1 mention(s), half-life 30 active days)",
            "保留值 0.120 低于 0.2（重要性 0.50，上次使用后过了 40 个活跃日，"
            "使用过 0 次，被提及 1 次，半衰期 30 个活跃日）",
        ),
        ("Moved to Porto", "Moved to Porto"),  # the user's own words stay as written
    ],
)
def test_reasons_built_from_values_are_translated_with_their_values(reason, chinese_text):
    with translation.override("zh-hans"):
        assert reason_label(reason) == chinese_text
    with translation.override("en"):
        assert reason_label(reason) == reason  # English reads as recorded


def test_what_the_engine_refuses_is_said_in_chinese(owner):
    entry = remember(owner, "The user keeps bees.")
    client = chinese(owner)
    html = client.post(reverse("privacy:correct", args=[entry.pk]), {"content": "  "}, follow=True)
    assert "记忆无效。 此项不能为空。" in html.content.decode()
    namespace = namespace_for_user(user=owner)
    namespace.memory_paused = True
    namespace.save(update_fields=["memory_paused"])
    refused = client.post(reverse("privacy:remember"), {"content": "I like tea.", "kind": "fact"})
    assert refused.status_code == 400
    assert "记忆已暂停：在恢复之前，不会保存或调用任何内容。" in refused.content.decode()
    assert "Memory is paused for this user" not in refused.content.decode()


def test_an_unnamed_person_reads_in_lower_case_mid_sentence_and_a_group_as_a_group(owner):
    """ "Erase everything about your husband?", not "…about Your husband?"; a line or heading that
    starts with the name is capitalised. "my kids" is "Your children" / "你的孩子们", not "Your child"."""
    privacy_remember(user=owner, content="My husband works nights at the depot.")
    privacy_remember(user=owner, content="My kids love the climbing wall on Saturdays.")
    husband = Entity.objects.get(named=False, name="my husband")
    english = page(client_for(owner), reverse("privacy:person_erase", args=[husband.pk]))
    heading = english.split("<h1", 1)[1].split("</h1>")[0]
    assert "Erase everything about your husband?" in heading, heading
    person = page(client_for(owner), reverse("privacy:person", args=[husband.pk]))
    assert "<h1>Your husband " in person and "Erase everything about your husband…" in person

    kids = Entity.objects.get(named=False, name="my kids")
    assert "Your children" in _entity_card(page(client_for(owner), reverse("privacy:people")), kids.pk)
    assert "你的孩子们" in _entity_card(page(chinese(owner), reverse("privacy:people")), kids.pk)
