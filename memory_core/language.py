"""The language of a text, and the words full-text search indexes it by (docs/languages.md).

One detector, by Unicode script ranges: the search index segments Chinese, the chat answers its
acknowledgements in the language the user wrote, recall weighs the English-trained local
embedding down for CJK queries, and the pages say when memories are in a script it serves poorly.

PostgreSQL's parser splits words at spaces and punctuation; Chinese has neither between words,
so a run of Han characters would be one token ("我对花生过敏" one lexeme, found only by the exact
run). `search_text` segments each run of Han characters into words with jieba (rjieba, which
ships its dictionary) and leaves everything else as written, so the column's `english`
configuration still stems English words and keeps identifiers such as `RF20260629001` whole.
The English stemmer and stop list leave Chinese words as they are, so a Chinese word's lexeme
is the word itself, what the `simple` configuration would give (tests/memory_core/test_language.py).

Queries go through the same function (`memory_core.lexical.parse_terms`), so a question and a
memory meet on the same words in either language, or in a mix of both.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

import opencc
import rjieba

from memory_core.topics import topic_words

Language = Literal["zh", "ja", "ko", "en"]

# Han ideographs: the unified block, extension A, compatibility ideographs, extensions B onwards.
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
HAN_RUN = re.compile(f"[{_HAN}]+")
_KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff]")
# Han (the basic planes), kana, Hangul syllables and jamo: CJK script. A class of literal
# characters, so Python's re and PostgreSQL's regex (`content__regex`) both read it.
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x3040, 0x30FF), (0x31F0, 0x31FF),
               (0xAC00, 0xD7AF), (0x1100, 0x11FF))  # fmt: skip
CJK_CLASS = "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES) + "]"
_CJK = re.compile(CJK_CLASS)
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")

# Words a Chinese question is mostly made of and that tell memories apart by nothing: pronouns,
# particles, copulas, question words. Left out of the index and the query, as the `english`
# configuration leaves out "the", "is" and "what" (the IDF would give them next to no weight
# anyway, but they would make every entry a keyword candidate). Measured in `bench languages`.
STOP_WORDS = frozenset(
    " ".join(
        (
            "的 地 得 了 着 过 是 在 有 和 与 及 或 也 都 就 还 又 很 太",
            "吗 呢 吧 啊 呀 哦 嗯 么 嘛 好的 是的 对的 嗯嗯 好吧 哈哈",
            "我 你 您 他 她 它 我们 你们 他们 她们 它们 咱 咱们 自己 我的 你的 他的 她的 我能",
            "这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 个 些 一个 一下 一些",
            "把 被 给 让 对 从 向 到 跟 为",
            "什么 时候 啥 哪 哪里 哪儿 哪个 哪些 谁 几 多少 怎么 怎样 怎么样 如何 为什么 是不是 有没有",
            "请 请问 告诉 知道 记得 还记得 能 会 要 想 可以",
        )
    ).split()
)


# OpenCC's traditional-to-simplified conversion (characters and phrases, Taiwan and Hong Kong
# forms): one converter, built once; its conversion is a pure function of the text.
_T2S = opencc.OpenCC("t2s")


def simplified_han(text: str) -> str:
    """Traditional Chinese read as simplified ("對花生嚴重過敏" → "对花生严重过敏"), so what was
    learned or listed in one script reads the other; a text without Han characters as it is."""
    return _T2S.convert(text) if HAN_RUN.search(text) else text


def cjk_share(text: str) -> float:
    """About what share of the text's words are CJK (0.0 for text without words).

    CJK text has no spaces: two characters count as a word (Chinese words are mostly one or two
    characters), a run of Latin letters as one.
    """
    cjk_words = len(_CJK.findall(text)) / 2
    total = cjk_words + len(_LATIN_WORD.findall(text))
    return cjk_words / total if total else 0.0


def detect(text: str) -> Language:
    """The language a text is written in, from its script (no model, no dictionary): Japanese with
    kana, Korean with Hangul, Chinese when at least half its words are Han ("我叫 Alice",
    "我的订单号是RF20260629001"), else English, the one configuration the search index has for
    alphabetic scripts ("The user likes 豆浆")."""
    if _KANA.search(text):
        return "ja"
    if _HANGUL.search(text):
        return "ko"
    return "zh" if cjk_share(text) >= 0.5 else "en"


def is_cjk(text: str) -> bool:
    """Mostly Chinese, Japanese or Korean: "我叫 Alice" is, "My name is 王小明" is not."""
    return cjk_share(text) >= 0.5


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def is_chinese(text: str) -> bool:
    """Mostly Han characters, and no kana or Hangul (which would make it Japanese or Korean)."""
    return detect(text) == "zh"


# jieba's search segmentation: each long word and the dictionary words inside it ("订单号" →
# 订单 单号 订单号), so a question naming a part finds the whole (compared with `rjieba.cut` in
# `bench languages`).
segment = rjieba.cut_for_search


# Each word's characters are indexed too, so a question that words a thing differently from the
# memory ("几楼" / "三楼", "搬家" / "搬到", "肉" / "肉类") still shares a term with it; BM25's term
# weights keep common characters light (measured in `bench languages`).
CHARACTERS = True


def _kept(word: str) -> bool:
    return word not in STOP_WORDS and HAN_RUN.fullmatch(word) is not None


def words(run: str) -> list[str]:
    """The searchable words of a run of Han characters, then their characters, stop words left out."""
    if not CHARACTERS:
        return [word for word in segment(run) if _kept(word)]
    longer = [word for word in segment(run) if len(word) > 1 and _kept(word)]
    # Each character of the run once (from jieba's non-overlapping cut), none of a stop word's.
    chars = [char for word in rjieba.cut(run) if _kept(word) for char in word if char not in STOP_WORDS]
    return longer + chars


def search_text(text: str) -> str | None:
    """`text` as the full-text index should read it: each Han run replaced by its words separated
    by spaces, full-width letters and digits folded (NFKC, as a Chinese input method types them). None when
    that is `text` itself (no Han character): the index then reads the text as it is."""
    if not text:
        return None
    folded = unicodedata.normalize("NFKC", text)
    if not HAN_RUN.search(folded):
        return None if folded == text else folded
    return HAN_RUN.sub(lambda match: " " + " ".join(words(match.group())) + " ", folded)


# Where a Chinese memory's topic words go: "A", the statement's own weight (`search_text`), or "D",
# the context's (`search_context_text`). Measured in `bench languages` (docs/languages.md).
TOPIC_WEIGHT: Literal["A", "D"] = "A"


def topic_terms(text: str, key: str) -> list[str]:
    """The question words of the key's topic (`memory_core.topics`) for a Chinese statement; none
    for any other language, no key, or a key outside the vocabulary."""
    if not key or not text or detect(text) != "zh":
        return []
    return topic_words(key)


def _joined(text: str, terms: list[str]) -> str | None:
    """The text's searchable copy followed by the topic words it does not hold already (a word
    counted twice would weigh the topic above what the statement says)."""
    copy = search_text(text)
    held = set((copy or text).split())
    added = [term for term in terms if term not in held]
    if not added:
        return copy
    return f"{copy or text} {' '.join(added)}".strip()


def search_copies(content: str, context: str, key: str) -> tuple[str | None, str | None]:
    """What the full-text index reads for an entry: its statement and its context (`search_text`;
    None when that is the text as written), the topic words of a Chinese statement's key with
    the one at `TOPIC_WEIGHT`. The one place the copies are computed (model, querysets, migrations)."""
    terms = topic_terms(content, key)
    if TOPIC_WEIGHT == "A":
        return _joined(content, terms), search_text(context)
    return search_text(content), _joined(context, terms)
