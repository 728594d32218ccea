"""When two statements are the same statement: one definition for write-time merging
(`reconciliation.reconcile`) and for the consolidation pass (`forgetting.consolidate`).

A close vector is not enough. Embeddings put "How was the meeting?" next to "The meeting was
really insightful" (cosine 0.93), "34 years old" next to "35", "allergic" next to "not allergic".
Two statements are the same when they make the same claim about the same subject:
- the same wording (case, spacing and final punctuation aside) — always the same; or
- a paraphrase: similar vectors AND the same speaker (metadata), the same mood (a question is
  not an answer), the same numbers and names, the same polarity, and largely the same content words (so
  one that adds a second claim — "Thanks. … I'll keep pushing forward" — is not absorbed).
`exact` callers (adds documented as "stored as given") accept only the first rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memory_core.validation import negated, normalise

# Metadata keys that name who said a statement (mem0 imports, LoCoMo-style turns).
SPEAKER_KEYS = ("speaker", "role", "author", "actor_id", "speaker_id", "name")
# Share of distinct content words two paraphrases must have in common (Jaccard on word stems).
MIN_WORD_OVERLAP = 0.5

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "by",
        "from",
        "and",
        "or",
        "but",
        "so",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "user",
        "user's",
        "users",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "he",
        "him",
        "his",
        "she",
        "her",
        "they",
        "them",
        "their",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "not",
        "no",
        "very",
        "really",
        "just",
        "also",
    ]
)


def speaker(metadata: Mapping[str, Any] | None) -> str:
    """Who said it, from the metadata callers attach ("" when unknown)."""
    for key in SPEAKER_KEYS:
        value = (metadata or {}).get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().casefold()
    return ""


def is_question(text: str) -> bool:
    return text.rstrip().endswith(("?", "\uff1f"))


def numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text))


_SUFFIXES = ("ies", "ing", "ed", "es", "ic", "ly", "s", "y")


def _stem(word: str) -> str:
    """A light stem: "allergic", "allergy" and "allergies" agree; names stay whole."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> set[str]:
    """Stems of the content words, or the characters of CJK text."""
    words = {
        _stem(w)
        for w in _WORD.findall(text.casefold())
        if len(w) > 1 and w not in _STOPWORDS and not _CJK.search(w)
    }
    return words | set(_CJK.findall(text))


_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'\u2019-]*|\b\w*\d\w*")


def names(text: str) -> set[str]:
    """Capitalised words inside a sentence and words with digits: the values a claim is about
    ("Contoso", "Zanzibar", "RF20260629001"). Two statements naming different ones differ."""
    return {match.casefold().rstrip("'\u2019s") for match in _NAME.findall(text.strip())}


_CAPITALISED = re.compile(r"\b[A-Z][\w'\u2019-]*")


def value_tokens(text: str) -> set[str]:
    """What a statement's value may be named by: its capitalised words (at the start too), words
    with digits and its CJK characters; "I live in Leeds" and "我住在成都" minus the wording of their
    correction leave "leeds" and "成都"'s characters."""
    words = {re.sub(r"['\u2019]s$", "", m.casefold()) for m in _CAPITALISED.findall(text)} | {
        m.casefold() for m in re.findall(r"\b\w*\d\w*", text)
    }
    return (words - {"i", "i'm", "i'd", "i've", "i'll"}) | set(_CJK.findall(text))


def word_overlap(a: str, b: str) -> float:
    left, right = content_words(a), content_words(b)
    if not left and not right:
        return 1.0
    return len(left & right) / len(left | right)


def same_wording(a: str, b: str) -> bool:
    return normalise(a) == normalise(b)


def same_statement(
    a: str,
    b: str,
    *,
    similarity: float,
    threshold: float,
    a_metadata: Mapping[str, Any] | None = None,
    b_metadata: Mapping[str, Any] | None = None,
    exact: bool = False,
) -> bool:
    """Whether `a` and `b` make the same claim (see the module docstring)."""
    left, right = speaker(a_metadata), speaker(b_metadata)
    if left and right and left != right:
        return False
    if same_wording(a, b):
        return True
    if exact or similarity < threshold:
        return False
    if is_question(a) != is_question(b) or negated(a) != negated(b) or numbers(a) != numbers(b):
        return False
    if names(a) != names(b):
        return False
    return word_overlap(a, b) >= MIN_WORD_OVERLAP
