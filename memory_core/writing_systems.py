"""Which writing system a text is in, by Unicode script ranges (no model, no dictionary).

Enough to tell Chinese / Japanese / Korean text from text in Latin letters: the chat answers its
acknowledgements in the language the user wrote, and the pages say when memories are in a script
the default local embedding model (English-trained all-MiniLM-L6-v2) serves poorly.
"""

from __future__ import annotations

import re

# Han ideographs (CJK Unified + Extension A + Compatibility), kana, Hangul syllables and jamo.
_CJK_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x3040, 0x30FF), (0x31F0, 0x31FF),
               (0xAC00, 0xD7AF), (0x1100, 0x11FF))  # fmt: skip
# A character class of literal characters: Python's re and PostgreSQL's regex both read it.
CJK_CLASS = "[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES) + "]"
_CJK = re.compile(CJK_CLASS)
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")


def cjk_share(text: str) -> float:
    """About what share of the text's words are CJK (0.0 for text without words).

    CJK text has no spaces: two characters count as a word (Chinese words are mostly one or two
    characters), a run of Latin letters as one.
    """
    cjk_words = len(_CJK.findall(text)) / 2
    total = cjk_words + len(_LATIN_WORD.findall(text))
    return cjk_words / total if total else 0.0


def is_cjk(text: str) -> bool:
    """True when the text is mostly CJK: "我叫 Alice" is, "My name is 王小明" is not."""
    return cjk_share(text) >= 0.5


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uac00-\ud7af\u1100-\u11ff]")


def is_chinese(text: str) -> bool:
    """Mostly CJK, and no kana or Hangul (which would make it Japanese or Korean)."""
    return is_cjk(text) and _KANA_HANGUL.search(text) is None
