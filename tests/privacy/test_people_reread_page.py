# ruff: noqa: RUF001  # full-width Chinese punctuation is what some of these tests are about
"""A memory read again once the user said who the person it names is: its page says so in the
history, by the system, with the reason, in English and in Chinese; the memory is shown as always
recalled."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils.html import escape

from privacy.services import privacy_remember
from tests.chat.helpers import client_for
from tests.privacy.test_always_recall import chinese

pytestmark = pytest.mark.django_db

REASON = "Read again once the user said who the person is: their dependant's safety fact."


def _read_again(owner):
    first = privacy_remember(user=owner, content="Ella has epilepsy.", kind="fact").entry
    assert first is not None and not first.pinned
    privacy_remember(user=owner, content="My daughter is called Ella.", kind="fact")
    return first


def test_the_memory_page_says_it_was_read_again_and_why(owner):
    first = _read_again(owner)

    html = client_for(owner).get(reverse("privacy:memory", args=[first.pk])).content.decode()

    assert escape(f"marked always recalled by system: {REASON}") in html


def test_in_chinese(owner):
    first = _read_again(owner)

    html = chinese(owner).get(reverse("privacy:memory", args=[first.pk])).content.decode()

    assert "用户说明此人是谁后重新判断：这是其被照顾者的安全信息。" in html
    assert escape(REASON) not in html
