# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""Issue 32 item 3: the import parser's messages and the kinds of secret a refusal names, in the
page's language. The parser's messages carry how they were built (`memory_core.errors.Wording`),
so /me/import/ says them in Chinese with the values kept; the API answers in English whatever the
request's Accept-Language (as every engine error does), with its machine-readable code unchanged.
The kinds of secret are recorded in English (reasons, `secret_kinds`) and said in the reader's
language where the pages and the chat show them (`memory_core.secret_kinds`)."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from rest_framework.test import APIClient

from api.services import user_token_issue
from memory_core.imports.run import died_error, lost_error
from memory_core.models import ImportJob, MemoryEntry
from memory_core.secret_kinds import KIND_NAMES
from privacy.event_labels import reason_label
from tests.chat.helpers import conversation, say
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db
URL = "/me/import/"

# (format, input, the English message, the Chinese one): each a different way of being built.
BAD_INPUT = [
    (
        "mem0",
        '{"results": [{"memory": "Likes tea"',
        escape("The file is not valid JSON (line 1, column 36: Expecting ',' delimiter)."),
        "这个文件不是有效的 JSON（第 1 行，第 36 列：Expecting &#x27;,&#x27; delimiter）。",
    ),
    (
        "mem0",
        json.dumps({"results": [{"memory": "Likes tea"}, {"memory": "Tea", "created_at": "last tuesday"}]}),
        "Memory 2: created_at: &#x27;last tuesday&#x27; is not an ISO date or date-time.",
        "第 2 条记忆的 created_at：&#x27;last tuesday&#x27; 不是 ISO 格式的日期或日期时间。",
    ),
    ("mem0", json.dumps([{"memory": ""}]), "Memory 1 has no `memory` text.", "第 1 条记忆没有 `memory` 文本"),
    ("mem0", json.dumps({"rows": []}), "Not a mem0 export: expected a list", "这不是 mem0 的导出文件"),
    (
        "transcript",
        json.dumps([{"role": "user", "content": "Hi"}, {"role": "narrator", "content": "Once"}]),
        "Message 2: `role` must be user or assistant.",
        "第 2 条消息：`role` 必须是 user 或 assistant。",
    ),
    (
        "transcript",
        json.dumps([{"role": "assistant", "content": "Hello"}]),
        "Nothing to import: the transcript has no message from the user.",
        "没有可导入的内容：这段对话记录里没有用户的消息。",
    ),
    (
        "text",
        "Saved memories\n---\n",
        "Nothing to import: no line of it is a memory (only titles, closing lines or separators).",
        "没有可导入的内容：没有一行是记忆（只有标题、结束语或分隔线）。请每行粘贴一条记忆。",
    ),
    (
        "text",
        "2024-13-45: I live in Lisbon\n",
        "Line 1: &#x27;2024-13-45&#x27; is not an ISO date or date-time.",
        "第 1 行：&#x27;2024-13-45&#x27; 不是 ISO 格式的日期或日期时间。",
    ),
]


def chinese_client(user) -> Client:
    client = Client()
    client.force_login(user)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/me/"})
    return client


@pytest.mark.parametrize(("format", "data", "english", "chinese"), BAD_INPUT)
def test_the_parsers_refusals_are_said_in_the_pages_language(owner, format, data, english, chinese):
    for dry_run in ({"dry_run": "1"}, {}):
        response = chinese_client(owner).post(URL, {"format": format, "text": data, **dry_run})
        assert response.status_code == 400
        html = response.content.decode()
        assert chinese in html, html[html.find('role="alert"') - 40 :][:400]
        assert english.split(":")[0] not in html.split('role="alert"')[1].split("</li>")[0]

        client = Client()
        client.force_login(owner)
        html = client.post(URL, {"format": format, "text": data, **dry_run}).content.decode()
        assert english in html
    assert not ImportJob.objects.exists() and not MemoryEntry.objects.exists()


def test_the_api_keeps_the_parsers_english_and_its_code_whatever_the_language(owner):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {user_token_issue(user=owner).key}")
    for format, data, english, _ in BAD_INPUT:
        response = api.post(
            "/api/v1/imports/",
            {"format": format, "data": data},
            format="json",
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        )
        assert response.status_code == 400
        body = response.json()
        assert body["code"] == "invalid_import"
        assert english.replace("&#x27;", "'") in body["detail"], body


def test_a_refused_secret_names_its_kind_in_the_pages_language(owner):
    client = chinese_client(owner)
    html = client.post(
        URL, {"format": "text", "text": "My bank card PIN is 482913\nI like tea\n", "dry_run": "1"}
    ).content.decode()
    assert "包含机密信息（PIN 码）" in html and "(pin)" not in html and "（pin）" not in html

    entry = remember(owner, "I live in Porto")
    response = client.post(
        reverse("privacy:correct", args=[entry.pk]), {"content": "My password is hunter22x"}
    )
    html = response.content.decode()
    assert "机密信息从不保存（密码）。" in html and "(password)" not in html

    english = Client()
    english.force_login(owner)
    html = english.post(
        URL, {"format": "text", "text": "My bank card PIN is 482913\n", "dry_run": "1"}
    ).content.decode()
    assert "contains a secret (pin)" in html


def test_the_chat_names_the_kind_in_the_language_it_was_told_in(owner):
    conv = conversation(owner)
    _, reply = say(owner, conv, "记住我的银行卡密码是482913")
    assert "482913" not in reply.content
    assert "PIN 码" in reply.content and "(pin)" not in reply.content and "（pin）" not in reply.content
    _, reply = say(owner, conversation(owner), "Remember that my bank card PIN is 482913.")
    assert "(pin)" in reply.content


def test_every_kind_the_detector_names_has_a_name_to_be_said():
    from memory_core.guards.secrets.lexicon import KEYWORDS
    from memory_core.judgement import LEARNED_SECRET

    named = {kind for _, kind, _ in KEYWORDS} | {LEARNED_SECRET, "a secret from its source"}
    assert named <= set(KIND_NAMES)


def test_a_statement_too_long_to_import_is_refused_in_the_pages_language(owner):
    """A row refused for its length reads in Chinese on a Chinese page, with its figures kept."""
    long_line = "I collect postcards from every harbour town I visit " * 45  # over 2,000 characters
    data = f"I like tea\n{long_line.strip()}\n"
    html = chinese_client(owner).post(URL, {"format": "text", "text": data, "dry_run": "1"}).content.decode()
    assert "无效的记忆。内容：最多 2000 个字符" in html, html[html.find("<table") :][:1500]
    assert "At most 2000 characters" not in html

    english = Client()
    english.force_login(owner)
    html = english.post(URL, {"format": "text", "text": data, "dry_run": "1"}).content.decode()
    assert "content: At most 2000 characters" in html


def test_an_import_jobs_stop_is_said_in_the_pages_language(owner):
    """The reasons an import job stops (`imports.run`) read in Chinese, their figures kept."""
    job = ImportJob(done=40, total=120, attempts=3)
    with translation.override("zh-hans"):
        died, lost = reason_label(died_error(job)), reason_label(lost_error(job))
    assert died.startswith("在 120 条中的第 40 条后停止：运行它的工作进程停止了 3 次"), died
    assert lost.startswith("在 120 条中的第 40 条后停止（第 3 次尝试）：排队的任务丢失了"), lost
    with translation.override("en"):
        assert reason_label(died_error(job)) == died_error(job)
