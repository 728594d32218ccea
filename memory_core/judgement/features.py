"""What the judgement models read: the sentence embedding the product already computes (local
all-MiniLM-L6-v2, the recall query cache shares it), hashed character n-grams of the normalised
text (which carry Chinese, typos and number shapes the English-centred embedding misses) and a few
structural signals. Deterministic: the hashing is murmurhash3 with a fixed seed (scikit-learn's
`HashingVectorizer`, stateless, nothing fitted), so a vector depends on the text alone."""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import rjieba
from scipy import sparse
from sklearn.feature_extraction._hashing_fast import transform as hash_features
from sklearn.feature_extraction.text import HashingVectorizer

from memory_core import process_caches
from memory_core.language import simplified_han

from . import medicines

NGRAM_FEATURES = 2**16
WORD_FEATURES = 2**15
PRESENCE_FEATURES = 2**14
EMBEDDING_DIMENSIONS = 384
STRUCTURAL = 9
# The embedding's weight beside the n-grams (a unit vector against two unit n-gram blocks). Chosen
# on batch 7 held out (trained on what came before it; docs/trust.md): against 0.5, 0.25 ranked
# rules, weakening and secrets better (AP 0.943 / 0.974 / 0.953 against 0.935 / 0.966 / 0.942) and
# safety alike (0.874 against 0.876); 1.0 ranked all four worse.
EMBEDDING_SCALE = 0.25
# Each word's presence, whatever the text's length, beside the two normalised blocks: a word's share
# of a normalised row shrinks as the text grows, so a condition named in a long message about
# something else ("…it fits round my son's dialysis days") weighs a third of what it weighs alone.
# Read by the rule and relaxation models only (`train.PRESENCE_READERS`).
PRESENCE_SCALE = 0.25
WIDTH = NGRAM_FEATURES + WORD_FEATURES + PRESENCE_FEATURES + EMBEDDING_DIMENSIONS + STRUCTURAL

_DIGIT = re.compile(r"\d")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_DIGIT_RUN = re.compile(r"\d[\d\s-]{2,}\d|\d{3,}")
_TOKEN = re.compile(r"\b(?=[A-Za-z0-9_\-]*\d)(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-!@#$%^&*]{6,}\b")


_NUMBER_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine|[零〇一二三四五六七八九两幺])"
# Three or more digits written out ("four seven seven one", "一九九零", "八零二六"): a number's shape.
_WRITTEN_DIGITS = re.compile(rf"(?<![a-z]){_NUMBER_WORD}(?:[\s,\-]*{_NUMBER_WORD}){{2,}}(?![a-z])")


def plain(text: str) -> str:
    """The text the n-grams are taken from: NFKC, traditional Chinese read as simplified (OpenCC:
    "小安有癲癇" and "小安有癫痫" are one text to the models), lower case, every digit one symbol (a
    PIN's shape matters, not its value), digits written out as digits ("four seven seven one" and
    "七七四一" read as "0000")."""
    text = simplified_han(unicodedata.normalize("NFKC", text or "")).lower()
    text = _WRITTEN_DIGITS.sub(lambda m: "0" * len(re.findall(_NUMBER_WORD, m.group(0))), text)
    return _DIGIT.sub("0", text)


_ngrams = HashingVectorizer(
    analyzer="char_wb",
    ngram_range=(1, 4),
    n_features=NGRAM_FEATURES,
    alternate_sign=False,
    norm="l2",
    lowercase=False,
    preprocessor=plain,
    dtype=np.float32,
)


_WORD = re.compile(r"[a-z0]+(?:'[a-z]+)?|[\u4e00-\u9fff]+")


def words(text: str) -> list[str]:
    """Words of the plain text, Chinese runs cut by jieba, with a marker for the first word (an
    imperative's verb, a memo's "per")."""
    return _plain_words(plain(text))


def _plain_words(plained: str) -> list[str]:
    found: list[str] = []
    for token in _WORD.findall(plained):
        found += rjieba.cut(token) if "\u4e00" <= token[0] <= "\u9fff" else [token]
    return [f"^{found[0]}", *found] if found else []


def words_and_pairs(text: str) -> list[str]:
    """`words`, and each pair of neighbouring words after the first-word marker."""
    return _with_pairs(words(text))


def _with_pairs(found: list[str]) -> list[str]:
    return found + [f"{a} {b}" for a, b in itertools.pairwise(found[1:])]


_words = HashingVectorizer(
    analyzer=words_and_pairs,
    n_features=WORD_FEATURES,
    alternate_sign=False,
    norm="l2",
    dtype=np.float32,
)


_presence = HashingVectorizer(
    analyzer=words,
    n_features=PRESENCE_FEATURES,
    alternate_sign=False,
    norm=None,
    binary=True,
    dtype=np.float32,
)


def structural(text: str) -> list[float]:
    """Signals that do not depend on wording: length, Chinese share, digit runs, token shapes,
    a question, an exclamation, a second person, the number of words, a medicine named
    (`medicines`: one the labelled sets never named is still a treatment spoken of)."""
    words = text.split()
    han = len(_HAN.findall(text))
    return [
        min(len(text), 400) / 400,
        han / max(len(text), 1),
        1.0 if _DIGIT_RUN.search(text) else 0.0,
        1.0 if _TOKEN.search(text) else 0.0,
        1.0 if text.rstrip().endswith(("?", "\uff1f", "吗", "呢")) else 0.0,  # ASCII or full-width mark
        1.0 if "!" in text or "\uff01" in text else 0.0,
        1.0 if re.search(r"\byou(r|rs)?\b|你|您", text, re.IGNORECASE) else 0.0,
        min(len(words), 60) / 60,
        1.0 if medicines.named(text) else 0.0,
    ]


PRESENCE_START = NGRAM_FEATURES + WORD_FEATURES
_DENSE_COLUMNS = np.arange(PRESENCE_START + PRESENCE_FEATURES, WIDTH, dtype=np.int32)


def _hash(features: list[str], n_features: int) -> np.ndarray:
    """The column of each feature: scikit-learn's own hashing, as `FeatureHasher` calls it."""
    pairs = zip(features, itertools.repeat(1))  # (feature, count) as FeatureHasher passes them
    hashed, _indptr, _values = hash_features([pairs], n_features, np.float32, False, 0)
    return hashed


def _counted(hashed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One text's row of `_ngrams` or `_words` (`HashingVectorizer.transform` as they are set: no
    alternating sign, l2 norm, float32) from its features' columns: the sorted columns and their
    values, without the estimator's checks of its parameters and input on every call (most of
    its cost on one short text). The same counts and rounding: equal bit for bit
    (tests/memory_core/test_judgement_models.py)."""
    columns, counts = np.unique(hashed, return_counts=True)
    norm = math.sqrt(int(np.dot(counts, counts)))
    values = counts / norm if norm else counts
    return columns.astype(np.int32), values.astype(np.float32)


@lru_cache(maxsize=1 << 15)
def _word_grams(word: str) -> np.ndarray:
    """The columns of the n-grams `_ngrams` takes from one word of a plain text (`char_wb`, 1 to
    4 characters of the word padded with a space; a word shorter than n once, whole). A write
    judges its statement and then each clause of it: the same words, hashed once."""
    padded = f" {word} "
    size = len(padded)
    grams: list[str] = []
    for n in (1, 2, 3, 4):
        if n >= size:
            grams.append(padded)
            break
        grams += [padded[i : i + n] for i in range(size - n + 1)]
    hashed = _hash(grams, NGRAM_FEATURES)
    hashed.flags.writeable = False
    return hashed


process_caches.register_lru(_word_grams)


_NO_COLUMNS = np.zeros(0, dtype=np.int32)


def _char_ngram_columns(plained: str) -> np.ndarray:
    """The columns of every n-gram `_ngrams` takes from a plain text, word by word (the order
    differs; the counts, which are what the row holds, do not)."""
    words = plained.split()
    return np.concatenate([_word_grams(word) for word in words]) if words else _NO_COLUMNS


def row(text: str, vector: Sequence[float]) -> sparse.csr_matrix:
    """`matrix` of one text, built directly (the write path judges one statement at a time, and a
    general sparse stack costs more than the features themselves); the plain text is made once."""
    plained = plain(text)
    gram_columns, grams = _counted(_char_ngram_columns(plained))
    found = _plain_words(plained)
    word_columns, tokens = _counted(_hash(_with_pairs(found), WORD_FEATURES))
    present = np.unique(_hash(found, PRESENCE_FEATURES)).astype(np.int32)
    presence = np.full(len(present), PRESENCE_SCALE, dtype=np.float32)
    embedding = np.asarray(vector, dtype=np.float32) * EMBEDDING_SCALE
    dense = np.concatenate([embedding, np.asarray(structural(text), dtype=np.float32)])
    data = np.concatenate([grams, tokens, presence, dense])
    indices = np.concatenate(
        [gram_columns, word_columns + NGRAM_FEATURES, present + PRESENCE_START, _DENSE_COLUMNS]
    )
    return sparse.csr_matrix((data, indices, np.array([0, len(data)], dtype=np.int32)), shape=(1, WIDTH))


def matrix(texts: Sequence[str], vectors: Sequence[Sequence[float]]) -> sparse.csr_matrix:
    """One row per text: character n-grams, words and word pairs, words present, embedding,
    structural signals (`WIDTH` columns)."""
    grams = _ngrams.transform(list(texts))
    tokens = _words.transform(list(texts))
    present = _presence.transform(list(texts)) * np.float32(PRESENCE_SCALE)
    dense = np.hstack(
        [
            np.asarray(vectors, dtype=np.float32).reshape(len(texts), EMBEDDING_DIMENSIONS) * EMBEDDING_SCALE,
            np.asarray([structural(t) for t in texts], dtype=np.float32).reshape(len(texts), STRUCTURAL),
        ]
    )
    return sparse.hstack([grams, tokens, present, sparse.csr_matrix(dense)], format="csr")
