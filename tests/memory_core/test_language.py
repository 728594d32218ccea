"""The segmentation full-text search reads Chinese through (memory_core.language)."""

# ruff: noqa: RUF001 - Chinese punctuation is what these tests type

from __future__ import annotations

import re

import pytest
from django.db import connection

from memory_core.language import detect, search_text


def test_a_chinese_word_keeps_its_form_under_the_english_configuration(db):
    """The column's `english` configuration gives a Chinese word the lexeme `simple` would give."""
    text = search_text("我对花生过敏，去年在上海的医院做过皮试，医生开了肾上腺素笔。")
    assert text is not None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(to_tsvector('english', %s)), "
            "tsvector_to_array(to_tsvector('simple', %s))",
            [text, text],
        )
        english, simple = cursor.fetchone()
    assert english == simple and {"花生", "过敏", "上海", "医院", "肾上腺素"} <= set(english)


def test_chinese_runs_are_cut_into_words_and_the_rest_is_left_as_written():
    text = search_text("我的订单号是RF20260629001，please refund it")
    assert text is not None
    words = re.findall(r"\w+", text)
    assert {"订单号", "订单", "单号", "RF20260629001", "please", "refund", "it"} <= set(words)
    assert not {"我", "的", "是", "我的"} & set(words)  # stop words
    assert search_text("The user likes tea.") is None  # nothing to segment: the index reads the text
    assert search_text("ＲＦ２０２６") == "RF2026"  # full-width, as a Chinese input method types it


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("我对花生过敏", "zh"),
        ("我叫 Alice", "zh"),  # half the words
        ("My name is 王小明", "en"),
        ("我的订单号是RF20260629001", "zh"),
        ("The user likes 豆浆 in the morning", "en"),
        ("I live in Lisbon.", "en"),
        ("私はピーナッツアレルギーです", "ja"),
        ("저는 땅콩 알레르기가 있어요", "ko"),
        ("", "en"),
    ],
)
def test_the_language_is_read_from_the_script(text, language):
    assert detect(text) == language
