# ruff: noqa: RUF001  # full-width Chinese punctuation is what these tests are about
"""The /me/tokens/ page in Simplified Chinese, chosen with the language switch: headings, form,
expiries, table, the token shown once, the reasons a form is refused and the flash after a revoke;
no sentence of the page left in English. The English page says what it said before."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from api.models import UserToken
from api.services import user_token_issue
from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db

PAGE = "/me/tokens/"

# Every sentence, label and word the page itself says in English.
ENGLISH = [
    "Personal tokens",
    "Back to what the AI knows about me",
    "A token lets one of your own tools",
    "Make one per tool",
    "Your new token",
    "Copy it now: it is shown this once.",
    "Only a fingerprint of it is kept",
    ">Token<",
    ">Copy<",
    "Copied",
    "Select and copy",
    "Ready to paste",
    "mem0's Python client",
    "mem0&#x27;s Python client",
    "Make a token",
    ">Name<",
    "Claude Desktop on my laptop",
    "It may",
    "read and search your memories",
    "add and correct memories",
    "erase memories",
    ">Expires<",
    "In 90 days",
    "In 30 days",
    "In a year",
    ">Never<",
    "Make token",
    "Your tokens",
    ">May<",
    ">Made<",
    "Last used",
    "(issued by an operator)",
    ">never<",
    ">revoked<",
    ">expired<",
    "Revoke",
    "No tokens yet.",
    "read, write",
    "Invalid token request.",
    "Give it a name",
    "Choose among",
    "Choose when it expires.",
    "no longer works",
]


def _zh(owner):
    client = client_for(owner)
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": PAGE})
    assert response.status_code == 302 and response["Location"] == PAGE
    return client


def _text(response) -> str:
    """The page's own part: from its heading to the end of the content (not the site's header)."""
    html = response.content.decode()
    return html[html.index('<div class="privacy tokens">') : html.index("</main>")]


def _english_left(html: str) -> list[str]:
    return [phrase for phrase in ENGLISH if phrase in html]


def test_the_tokens_page_in_chinese(owner):
    client = _zh(owner)
    empty = client.get(PAGE, HTTP_ACCEPT_LANGUAGE="en")
    assert empty.status_code == 200
    whole = empty.content.decode()
    assert '<html lang="zh-hans">' in whole and "<title>个人令牌" in whole
    html = _text(empty)
    for chinese in (
        "<h1>个人令牌</h1>",
        "返回“AI 对我的了解”",
        "读取和修改你的记忆",
        '<h2 id="new-title">创建令牌</h2>',
        '<h2 id="list-title">你的令牌</h2>',
        "<legend>允许它</legend>",
        "读取和搜索你的记忆",
        "添加和更正记忆",
        "清除记忆",
        '<option value="90" selected>90 天后</option>',
        "一年后",
        '<option value="0">永不过期</option>',
        "<th>名称</th><th>令牌</th><th>权限</th><th>创建于</th><th>过期时间</th><th>最近使用</th>",
        "还没有令牌。",
    ):
        assert chinese in html, chinese
    assert _english_left(html) == []

    # One made by an operator (no name, no expiry), one made on the page: shown once, in Chinese.
    user_token_issue(user=owner)
    made = client.post(PAGE, {"name": "Cursor", "scopes": ["read", "write"], "expires": "30"})
    assert made.status_code == 201
    html = _text(made)
    for chinese in (
        "你的新令牌“Cursor”",
        "<strong>请立即复制：它只显示这一次。</strong>",
        "<h3>可直接粘贴的配置</h3>",
        ">复制</button>",
        'data-copied="已复制"',
        "<summary>mem0 的 Python 客户端</summary>",
        "<td>（由管理员签发）</td>",
        "<td>读取、写入</td>",
        "<td>永不过期</td>",
        '<span class="muted">从未使用</span>',
        'aria-label="撤销 Cursor">撤销</button>',
    ):
        assert chinese in html, chinese
    assert _english_left(html) == []

    old = client.post(PAGE, {"name": "Old script", "scopes": ["read"], "expires": "30"})
    assert old.status_code == 201
    now = timezone.now()
    UserToken.objects.filter(name="Old script").update(
        created_at=now - timedelta(days=2), expires_at=now - timedelta(days=1)
    )
    token = UserToken.objects.get(user=owner, name="Cursor")
    revoked = client.post(f"{PAGE}{token.pk}/revoke/", follow=True)
    html = _text(revoked)
    assert "已撤销 Cursor：它已无法再使用。" in html
    assert '<span class="muted">已撤销</span>' in html and '<span class="muted">已过期</span>' in html
    assert _english_left(html) == []


def test_the_reasons_a_form_is_refused_in_chinese(owner):
    client = _zh(owner)
    bad = client.post(PAGE, {"name": " ", "expires": "30"})
    assert bad.status_code == 400
    alert = re.search(r'role="alert">(.*?)</p>', bad.content.decode()).group(1)
    assert alert == (
        "无法创建令牌。请给它起一个 1–100 个字符的名称（写明使用它的客户端）。"
        "请至少选择一项权限（读取、写入、清除）。"
    )
    odd = client.post(PAGE, {"name": "x", "scopes": ["read"], "expires": "7"})
    assert odd.status_code == 400 and 'role="alert">请选择它何时过期。</p>' in odd.content.decode()
    assert _english_left(_text(bad)) == [] and _english_left(_text(odd)) == []
    assert not UserToken.objects.filter(user=owner).exists()


def test_the_english_page_is_unchanged(owner):
    client = client_for(owner)
    user_token_issue(user=owner)
    html = _text(client.get(PAGE, HTTP_ACCEPT_LANGUAGE="en"))
    for english in (
        "<h1>Personal tokens</h1>",
        ">Back to what the AI knows about me</a>",
        "A token lets one of your own tools — an MCP client such as Claude or Cursor, a script, mem0's client"
        " — read and change your memories, and only yours. Make one per tool, so that you can revoke one"
        " without touching the others.",
        '<h2 id="new-title">Make a token</h2>',
        '<label for="token-name">Name</label>',
        'placeholder="Claude Desktop on my laptop"',
        "<legend>It may</legend>",
        "read and search your memories</label>",
        '<option value="90" selected>In 90 days</option><option value="30">In 30 days</option>'
        '<option value="365">In a year</option><option value="0">Never</option>',
        '<button type="submit">Make token</button>',
        '<h2 id="list-title">Your tokens</h2>',
        "<th>Name</th><th>Token</th><th>May</th><th>Made</th><th>Expires</th><th>Last used</th>",
        "<td>(issued by an operator)</td>",
        "<td>read, write, erase</td>",
        "<td>never</td>",
        '<span class="muted">never</span>',
        'aria-label="Revoke ',
    ):
        assert english in html, english
    assert not re.search(r"[\u4e00-\u9fff]", html)

    made = client.post(PAGE, {"name": "Cursor", "scopes": ["read"], "expires": "30"})
    html = _text(made)
    assert "Your new token “Cursor”" in html
    assert "<strong>Copy it now: it is shown this once.</strong> Only a fingerprint of it is kept" in html
    assert "<summary>mem0&#x27;s Python client</summary>" in html and ">Copy</button>" in html
    token = UserToken.objects.get(user=owner, name="Cursor")
    revoked = _text(client.post(f"{PAGE}{token.pk}/revoke/", follow=True))
    assert "Revoked Cursor: it no longer works." in revoked and ">revoked</span>" in revoked

    bad = client.post(PAGE, {"name": "", "expires": "30"})
    assert re.search(r'role="alert">(.*?)</p>', bad.content.decode()).group(1) == (
        "Invalid token request. Give it a name of 1-100 characters (the client using it)."
        " Choose among read, write, erase."
    )
    odd = client.post(PAGE, {"name": "x", "scopes": ["read"], "expires": "7"})
    assert 'role="alert">Choose when it expires.</p>' in odd.content.decode()


def test_the_link_from_me_is_in_chinese(owner):
    html = _zh(owner).get("/me/").content.decode()
    assert '/me/tokens/">个人令牌</a>' in html and "Personal tokens" not in html
