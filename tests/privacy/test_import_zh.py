# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""The import pages and a memory's history in Simplified Chinese (issue 32 item 5): the page's
own sentences, labels, statuses and errors are translated; the user's statements are not."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from memory_core.models import ImportJob, MemoryEntry, MemoryStatus
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db
URL = "/me/import/"
PASTED = "- I live in Lisbon\n- I prefer green tea\n"

# The English pages' own sentences and labels: none may be left on the Chinese pages.
ENGLISH = [
    "Import memories",
    "Back to what the AI knows about me",
    "Bring what another assistant remembers about you",
    "What are you importing?",
    "Where to find it",
    "Upload a file",
    "or paste it here",
    "Preview (writes nothing)",
    ">Import<",
    "Preview: nothing was written",
    "Press <em>Import</em>",
    "Statement",
    "Would be",
    "Holds from",
    "Nothing the assistant would learn",
    "Your imports",
    "A saved-memories list",
    "A mem0 export",
    "A transcript with timestamps",
    "Import of ",
    "Import more",
    "What the AI knows about me",
    "written",
    "Outcome",
    "not stored",
    "merged into an existing memory",
    "replaces an older value",
    "waits for an operator",
]


def chinese_client(user) -> Client:
    client = Client()
    client.force_login(user)
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/me/"})
    assert response.status_code == 302
    return client


def _text(html: str) -> str:
    """The page without its tags' attributes' values that are not shown (values, classes)."""
    return re.sub(r"<(\w+)[^>]*>", r"<\1>", html)


def _no_english(html: str, *, allowed: tuple[str, ...] = ()) -> None:
    shown = _text(html)
    for allowed_text in allowed:
        shown = shown.replace(allowed_text, "")
    left = [sentence for sentence in ENGLISH if sentence in shown]
    assert not left, left


def test_the_import_page_is_in_chinese(owner):
    html = chinese_client(owner).get(URL).content.decode()
    assert '<html lang="zh-hans">' in html
    shown = (
        "导入记忆",
        "你要导入什么？",
        "在哪里找到它",
        "预览（不写入任何内容）",
        "已保存的记忆列表",
        "上传文件",
    )
    for chinese in shown:
        assert chinese in html, chinese
    _no_english(html)


def test_a_dry_run_preview_is_in_chinese_and_writes_nothing(owner):
    client = chinese_client(owner)
    html = client.post(URL, {"format": "text", "text": PASTED, "dry_run": "1"}).content.decode()
    assert "预览：没有写入任何内容" in html and "2 条陈述" in html
    assert "陈述" in html and "将会" in html and "原因" in html and "生效自" in html
    assert "新增" in html and "新记忆" in html  # each row's outcome and why
    assert "I live in Lisbon" in html  # the user's own words stay as they are
    _no_english(html, allowed=("I live in Lisbon", "I prefer green tea"))
    assert not MemoryEntry.objects.filter(namespace__owner=owner).exists()


def test_an_empty_form_is_refused_in_chinese(owner):
    response = chinese_client(owner).post(URL, {"format": "text", "text": "  "})
    assert response.status_code == 400
    html = response.content.decode()
    assert "没有可导入的内容" in html and "Nothing to import" not in html


def test_the_job_page_after_an_import_is_in_chinese(owner):
    client = chinese_client(owner)
    response = client.post(URL, {"format": "text", "text": PASTED})
    assert response.status_code == 302
    job = ImportJob.objects.get()
    html = client.get(response["Location"]).content.decode()
    assert "的导入" in html and "继续导入" in html and "AI 对我的了解" in html
    assert "已完成" in html and "已写入 2 / 2 条陈述" in html and "结果" in html and "新增" in html
    assert "带时间戳" not in html and "已保存的记忆列表" in html
    assert "新记忆" in html and ">new<" not in html
    _no_english(html, allowed=("I live in Lisbon", "I prefer green tea"))
    # The list of imports on the import page says the same in Chinese.
    listed = client.get(URL).content.decode()
    assert "你的导入" in listed and "已完成，2 / 2" in listed
    assert reverse("privacy:import_job", args=[job.pk]) in listed
    _no_english(listed)


def test_a_memory_history_says_its_actions_in_chinese(owner):
    entry = remember(owner, "I live in Porto")
    client = chinese_client(owner)
    client.post(reverse("privacy:correct", args=[entry.pk]), {"content": "I live in Lisbon"})
    newer = MemoryEntry.objects.get(namespace__owner=owner, status=MemoryStatus.ACTIVE)
    for shown in (entry, newer):
        html = client.get(reverse("privacy:memory", args=[shown.pk])).content.decode()
        history = html[html.index('id="history"') :]
        history = history[: history.index("</section>")]
        assert "由你" in history
        assert "Corrected by the user" not in history
        words = re.findall(r"\b(created|superseded|corrected|merged|replaced|by you)\b", history)
        assert not words, words
    html = client.get(reverse("privacy:memory", args=[entry.pk])).content.decode()
    history = html[html.index('id="history"') :]
    assert "创建" in history and ("更正" in history or "被取代" in history)
    assert "由用户更正。" in history
    # The English page keeps the recorded reason word for word.
    english = Client()
    english.force_login(owner)
    page = english.get(reverse("privacy:memory", args=[entry.pk]), HTTP_ACCEPT_LANGUAGE="en").content
    assert "Corrected by the user." in page.decode()


def test_the_english_import_page_keeps_its_words(owner):
    client = Client()
    client.force_login(owner)
    html = client.get(URL, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Import memories" in html and "What are you importing?" in html
    assert "A saved-memories list (ChatGPT, Claude), one per line" in html
