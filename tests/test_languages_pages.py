# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""The pages in English and Simplified Chinese: the browser's language, the switch, the chat's
acknowledgements in the language the user wrote, and the hint about the local embedding model."""

from __future__ import annotations

import pytest

from chat.models import Message
from tests.chat.helpers import client_for, conversation, pause_memory, remember

pytestmark = pytest.mark.django_db


def _page(client, path: str, **headers) -> str:
    response = client.get(path, **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_the_pages_follow_the_browsers_language(owner):
    client = client_for(owner)
    chinese = _page(client, "/me/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.5")
    assert '<html lang="zh-hans">' in chinese
    assert "<h1>AI 对我的了解</h1>" in chinese
    assert "按词语或语义搜索" in chinese
    assert "What the AI knows about me" not in chinese

    english = _page(client, "/me/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.8")
    assert '<html lang="en">' in english
    assert "<h1>What the AI knows about me</h1>" in english

    chat = _page(client, "/", HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert "新对话" in chat and "开始对话" in chat
    # A language the site has no catalogue for gets English.
    assert "New conversation" in _page(client, "/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9")


def test_the_language_switch_wins_over_the_browser(owner):
    client = client_for(owner)
    page = _page(client, "/me/", HTTP_ACCEPT_LANGUAGE="en")
    assert 'action="/i18n/setlang/"' in page and 'value="zh-hans"' in page and "简体中文" in page

    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/me/"})
    assert response.status_code == 302 and response["Location"] == "/me/"
    assert "AI 对我的了解" in _page(client, "/me/", HTTP_ACCEPT_LANGUAGE="en")

    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert "New conversation" in _page(client, "/", HTTP_ACCEPT_LANGUAGE="zh-CN")


def test_a_language_the_site_does_not_have_is_refused_by_the_switch(owner):
    client = client_for(owner)
    client.post("/i18n/setlang/", {"language": "xx", "next": "/me/"})
    assert "What the AI knows about me" in _page(client, "/me/")
    # An outside address for `next` is not followed.
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def _send(client, conv, text: str) -> str:
    response = client.post(f"/c/{conv.pk}/send/", {"content": text})
    assert response.status_code == 302
    return Message.objects.filter(role="assistant").latest("pk").content


def test_the_chat_acknowledges_in_the_language_the_user_wrote(owner):
    client = client_for(owner)
    conv = conversation(owner)
    reply = _send(client, conv, "Remember that 我对花生过敏，不能吃花生")
    assert reply.startswith("我会记住：")
    assert "花生" in reply.split("\n", 1)[0]

    # An English message on the Chinese pages is acknowledged in English.
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    reply = _send(client, conv, "Remember that my home city is Porto.")
    assert reply.startswith("I'll remember that: ")

    # The page's own "Memory updated" under each reply follows the page's language.
    page = _page(client, f"/c/{conv.pk}/")
    assert page.count("记忆已更新") == 2
    assert "Memory updated" not in page


def test_the_chat_says_in_chinese_why_it_does_not_remember(owner):
    client = client_for(owner)
    incognito = conversation(owner, incognito=True)
    reply = _send(client, incognito, "Remember that 我住在上海")
    assert reply.startswith("这是无痕对话，所以我不会记住这个。")

    pause_memory(owner)
    paused = conversation(owner)
    assert _send(client, paused, "Remember that 我住在上海").startswith("记忆已暂停，所以我不会记住这个。")


def test_the_memory_page_hints_at_a_multilingual_model_for_chinese_memories(owner, settings):
    client = client_for(owner)
    remember(owner, "The user is allergic to peanuts.")
    assert 'id="embedding-hint"' not in _page(client, "/me/")

    remember(owner, "用户对花生过敏")
    english = _page(client, "/me/")
    assert 'id="embedding-hint"' in english and "docs/languages.md" in english
    chinese = _page(client, "/me/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "本地嵌入模型（all-MiniLM-L6-v2）是用英文训练的" in chinese

    # With a multilingual embedding model configured there is nothing to say.
    settings.EMBEDDING_BACKEND = "openai"
    assert 'id="embedding-hint"' not in _page(client, "/me/")


def test_another_users_chinese_memories_do_not_show_the_hint(owner, make_user):
    remember(make_user("bob"), "用户对花生过敏")
    assert 'id="embedding-hint"' not in _page(client_for(owner), "/me/")


def test_the_chinese_catalogue_translates_every_string_with_its_placeholders():
    """A string added to a page or a reply without its Chinese would show in English on the
    Chinese pages; a translation that lost a placeholder would fail when it is shown."""
    import re
    from pathlib import Path

    import polib

    placeholder = re.compile(r"%\(\w+\)[sd]")
    catalogue = polib.pofile(str(Path(__file__).parent.parent / "locale/zh_Hans/LC_MESSAGES/django.po"))
    assert len(catalogue) > 100
    assert [e.msgid for e in catalogue.untranslated_entries() + catalogue.fuzzy_entries()] == []
    for entry in catalogue:
        translations = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for text in translations:
            # Chinese has one plural form: it says the plural (the count included) for every count.
            source = entry.msgid_plural or entry.msgid
            assert sorted(placeholder.findall(text)) == sorted(placeholder.findall(source)), entry.msgid
