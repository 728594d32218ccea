"""Text search in Chinese, through the API: questions worded differently from the memory, Chinese
mixed with English, identifiers inside Chinese sentences, every write path, erasure, bad input.

The memories and questions here are not those of the benchmark set (tests/data/languages).
"""

# ruff: noqa: RUF001 - Chinese punctuation is what these tests type

from __future__ import annotations

import pytest
from django.db import connection

from memory_core.models import MemoryEntry, SearchStats, SearchTerm

pytestmark = pytest.mark.django_db

# A user's memories, none of them a safety fact or profile (those are recalled whatever the query).
MEMORIES = {
    "violin": "我女儿每周六上午去少年宫学小提琴。",
    "garage": "我的电动车停在地下车库B2层的充电桩旁边。",
    "fish": "我在客厅养了一缸金鱼，每两天喂一次。",
    "novel": "最近在读余华的《活着》，看到一半了。",
    "dinner": "周日晚上和大学同学约在海底捞聚餐。",
    "badminton": "我每周二晚上和同事打羽毛球。",
    "tea": "我平时只喝乌龙茶，不喝绿茶。",
    "passport": "我的护照明年八月过期，得提前续办。",
}
# Each question words the thing otherwise than its memory does (the words the two share differ in
# form: "小提琴课" / "学小提琴", "车库" / "地下车库", "续签" / "续办").
QUESTIONS = [
    ("孩子的小提琴课是星期几？", "violin"),
    ("女儿在哪儿学琴？", "violin"),
    ("电动车在车库哪一层？", "garage"),
    ("我在哪给车充电？", "garage"),
    ("金鱼多久喂一次？", "fish"),
    ("余华那本书我读到哪了？", "novel"),
    ("海底捞那顿饭是跟谁吃？", "dinner"),
    ("同学聚会定在什么时候？", "dinner"),
    ("打羽毛球是哪天晚上？", "badminton"),
    ("我爱喝什么茶？", "tea"),
    ("护照什么时候过期？", "passport"),
]


def add(client, content: str, user_id: str = "u1", **fields) -> dict:
    body = {"user_id": user_id, "content": content, **fields}
    response = client.post("/api/v1/memories/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["entry"]


def recall(client, query: str, user_id: str = "u1") -> list[dict]:
    response = client.post("/api/v1/recall/", {"user_id": user_id, "query": query}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def by_words(items: list[dict]) -> list[str]:
    """The contents recall found through words of the query (the local embedding model reads
    Chinese poorly and finds something for any Chinese text: docs/languages.md)."""
    return [item["entry"]["content"] for item in items if item["breakdown"]["keyword"] > 0]


def best(items: list[dict]) -> str | None:
    """The content of the item recall scores highest (the prompt block lists always-recall first)."""
    ranked = sorted(items, key=lambda item: -item["score"])
    return ranked[0]["entry"]["content"] if ranked else None


def test_chinese_questions_find_their_memory_in_other_wordings(key_client):
    for content in MEMORIES.values():
        add(key_client, content)

    wrong = [
        (question, best(items))
        for question, memory in QUESTIONS
        if best(items := recall(key_client, question)) != MEMORIES[memory]
    ]

    assert wrong == []


def test_the_keyword_score_comes_from_chinese_words(key_client):
    add(key_client, MEMORIES["tea"])
    add(key_client, MEMORIES["fish"])

    [tea] = [item for item in recall(key_client, "乌龙茶") if item["entry"]["content"] == MEMORIES["tea"]]

    assert tea["breakdown"]["keyword"] > 0 and "keyword" in tea["reasons"]
    # Before segmentation a run of Chinese characters was one token: only the exact run matched.
    assert "乌龙茶" in terms_of(tea["entry"]["id"]) and "我平时只喝乌龙茶" not in terms_of(tea["entry"]["id"])


def terms_of(entry_id: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tsvector_to_array(search_vector) FROM memory_core_memoryentry WHERE id = %s", [entry_id]
        )
        return cursor.fetchone()[0]


# The learned rule model holds "下周四给Acme的客户做quarterly review的presentation。" (a plan) for review,
# so it is not searchable: one of the false holds docs/trust.md counts. Strict: when a model stops
# holding it, the search promise below is checked again.
@pytest.mark.xfail(strict=True, reason="a known false hold of the learned rule model")
def test_mixed_chinese_and_english_meet_in_either_language(key_client):
    meeting = add(key_client, "下周四给Acme的客户做quarterly review的presentation。")
    add(key_client, "The user's quarterly tax payment is due in March.")
    add(key_client, "周末想去看画展。")

    # English words in a Chinese sentence are stemmed as English ("reviews" finds "review").
    assert best(recall(key_client, "Acme的reviews是哪天？")) == meeting["content"]
    assert best(recall(key_client, "When is the Acme presentation?")) == meeting["content"]
    assert best(recall(key_client, "给客户的汇报在什么时候")) == meeting["content"]


def test_identifiers_in_chinese_sentences_match_alone_and_in_chinese(key_client):
    order = add(key_client, "我的退货单号是RT20261130007，快递员说三天内上门取件。")
    add(key_client, "我的会员号是MB5521，积分快到期了。")

    assert best(recall(key_client, "RT20261130007")) == order["content"]
    assert best(recall(key_client, "RT20261130007到哪一步了？")) == order["content"]
    assert best(recall(key_client, "what is the status of RT20261130007")) == order["content"]
    # Typed with a Chinese input method's full-width letters and digits.
    assert best(recall(key_client, "ＲＴ２０２６１１３０００７")) == order["content"]
    # The memory list's text search reads Chinese the same way.
    listed = key_client.get("/api/v1/memories/", {"user_id": "u1", "q": "取件"}).json()
    assert [m["content"] for m in listed["results"]] == [order["content"]]


def test_every_write_path_indexes_chinese_words(key_client, owner_client, owner):
    """The memories API, mem0's add, a correction and an import: each entry is found by a word
    inside a run of Chinese characters (before, only the whole run matched)."""
    add(key_client, "我家楼下新开了一家兰州拉面馆。")
    added = key_client.post(
        "/v3/memories/add/",
        {"user_id": "u1", "messages": [{"role": "user", "content": "我的瑜伽课改到周四晚上了。"}], "infer": False},  # noqa: E501
        format="json",
    )
    assert added.status_code == 200, added.content
    original = add(key_client, "我的牙医诊所在人民路上。")
    corrected = key_client.patch(
        f"/api/v1/memories/{original['id']}/", {"content": "我的牙医诊所搬到了解放路上。"}, format="json"
    )
    assert corrected.status_code == 200, corrected.content
    imported = owner_client.post(
        "/api/v1/imports/", {"format": "text", "data": "- 喜欢在阳台上种多肉植物"}, format="json"
    )
    assert imported.status_code == 201, imported.content

    assert best(recall(key_client, "拉面")) == "我家楼下新开了一家兰州拉面馆。"
    assert best(recall(key_client, "瑜伽")) == "我的瑜伽课改到周四晚上了。"
    assert best(recall(key_client, "牙医诊所在哪条路？")) == "我的牙医诊所搬到了解放路上。"
    # The import went to the owner's own namespace.
    found = owner_client.post("/api/v1/recall/", {"query": "多肉"}, format="json").json()["items"]
    assert best(found) == "喜欢在阳台上种多肉植物"
    # The corrected version's words replaced the old ones: the old road is no current entry's.
    old_road = recall(key_client, "人民路")
    assert "我的牙医诊所在人民路上。" not in [item["entry"]["content"] for item in old_road]
    assert by_words(recall(key_client, "人民")) == []


def test_erasing_a_chinese_memory_removes_its_words_from_the_statistics(key_client):
    add(key_client, "我喜欢喝豆浆。")
    secret = add(key_client, "我在阁楼的旧皮箱里藏了外婆的玉镯。")
    namespace_id = MemoryEntry.objects.get(pk=secret["id"]).namespace_id
    assert SearchTerm.objects.filter(namespace_id=namespace_id, term="玉镯").exists()
    assert SearchStats.objects.get(namespace_id=namespace_id).entries == 2

    assert key_client.delete(f"/api/v1/memories/{secret['id']}/").status_code == 204

    left = dict(SearchTerm.objects.filter(namespace_id=namespace_id).values_list("term", "entries"))
    assert not {"玉镯", "皮箱", "阁楼", "外婆"} & set(left)
    assert SearchStats.objects.get(namespace_id=namespace_id).entries == 1
    assert "豆浆" in left and set(left.values()) == {1}
    assert by_words(recall(key_client, "玉镯在哪？")) == []


@pytest.mark.parametrize("query", ["？！。，", "的了吗", "你我他", "   "])
def test_a_query_of_only_punctuation_or_stop_words_finds_nothing_and_breaks_nothing(key_client, query):
    add(key_client, "我喜欢喝豆浆。")

    response = key_client.post("/api/v1/recall/", {"user_id": "u1", "query": query}, format="json")

    assert response.status_code == 200, response.content
    assert by_words(response.json()["items"]) == []
    assert by_words(recall(key_client, "豆浆")) == ["我喜欢喝豆浆。"]  # and search still works after it


def test_a_memory_of_only_stop_words_is_stored_and_finds_nothing_by_them(key_client):
    entry = add(key_client, "是的。")
    add(key_client, "我喜欢喝豆浆。")

    assert key_client.get(f"/api/v1/memories/{entry['id']}/", {"user_id": "u1"}).json()["content"] == "是的。"
    assert by_words(recall(key_client, "是的")) == []
    assert by_words(recall(key_client, "豆浆")) == ["我喜欢喝豆浆。"]
