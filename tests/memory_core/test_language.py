"""The segmentation full-text search reads Chinese through (memory_core.language)."""

# ruff: noqa: RUF001 - Chinese punctuation is what these tests type

from __future__ import annotations

import re

import pytest
from django.db import connection

from memory_core.language import detect, has_cjk, search_copies, search_text


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


def _lexemes(entry) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(search_vector) FROM memory_core_memoryentry WHERE id = %s", [entry.pk]
        )
        return set(cursor.fetchone()[0])


def test_a_chinese_memory_is_indexed_with_its_keys_topic_and_follows_the_key(django_user_model):
    """The copy the index reads holds the key's topic words (memory_core.topics), recomputed on
    every path that changes the key: save, save(update_fields), queryset update."""
    from memory_core.models import MemoryEntry
    from tests.memory_core.helpers import remember

    user = django_user_model.objects.create_user(username="topics")
    entry = remember(user, "我在阿里巴巴做数据分析师。", key="job")
    assert {"工作", "职位"} <= _lexemes(entry)
    entry.key = "preferred_name"
    entry.save(update_fields=["key"])
    assert "称呼" in _lexemes(entry) and "工作" not in _lexemes(entry)
    MemoryEntry.objects.filter(pk=entry.pk).update(key="")
    assert not {"称呼", "工作"} & _lexemes(entry)
    MemoryEntry.objects.filter(pk=entry.pk).update(key="home_city", content="我家在成都。")
    assert {"住", "成都"} <= _lexemes(entry)


def test_topic_words_are_for_chinese_statements_only(django_user_model):
    from tests.memory_core.helpers import remember

    user = django_user_model.objects.create_user(username="topics-en")
    english = remember(user, "I work at Alibaba as a data analyst.", key="job")
    assert english.search_text is None and not any(has_cjk(lexeme) for lexeme in _lexemes(english))
    unknown = remember(user, "我的车是白色的。", key="car.colour")  # a key outside the vocabulary
    assert unknown.search_text == search_text("我的车是白色的。")


def test_a_statement_holding_a_topic_word_does_not_count_it_twice():
    copy, _context = search_copies("我在腾讯上班。", "", "employer")
    assert copy is not None and copy.split().count("上班") == 1 and "工作" in copy.split()
