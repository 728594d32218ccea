"""Which span of a flagged sentence is its secret value: a learned model over each candidate span.

The secret model says a sentence carries a secret; the candidates (`value_spans`: digits, a
credential-like token, a quoted string, digits written out) say where it could be. Most numbers in
a sentence are something else's: a clock time ("the 1430 was cancelled"), a count ("18 syringes"),
a year range, a locomotive's or a bus's number, a job's id. Lists of such words grow with every
new text; the value model learns them instead, from the labelled sets: every candidate of a text
with no secret is a negative, the candidates of a text with one are positives (weighted by how
many there are, as one of them is the value). Its features are the span's shape and the words and
characters around it, hashed (murmurhash3, stateless, like `features`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import rjieba
from scipy import sparse
from sklearn.feature_extraction.text import HashingVectorizer

from memory_core.guards.policy.chinese import simplified
from memory_core.guards.secrets.candidates import YEAR_RANGE, candidates, runs_forward
from memory_core.guards.secrets.lexicon import CJK_DIGITS, DIGIT_NAMES, FINANCIAL_DIGITS
from memory_core.guards.secrets.text import counted_spans, owned

SPAN_WIDTH = 2**18
_VALUE_SHAPES = {"digits", "credential", "idlike", "quoted", "iban", "nino"}
# A credential-shaped word holds a digit or a symbol inside it ("Tr0ub4dor&3"), not only a
# closing mark ("spirit!").
_CREDENTIAL_CORE = re.compile(r"[^A-Za-z]")
_DIGIT_WORD = "(?:" + "|".join([*DIGIT_NAMES, "oh", *CJK_DIGITS, "\u3007", "两", *FINANCIAL_DIGITS]) + ")"
# Three or more digits written out ("four seven seven one", "六六八八", "叁贰柒"): a value in words;
# or told by count ("three sixes and a one", "六個九": `counted_spans`).
SPELLED_RUN = re.compile(rf"(?<![A-Za-z]){_DIGIT_WORD}(?:[\s,\-]*{_DIGIT_WORD}){{2,}}(?![A-Za-z])", re.I)
_HAN = re.compile(r"[\u4e00-\u9fff]")
# The Chinese right after a span (after spaces), and right before it.
_HAN_RUN = re.compile(r"^\s*([\u4e00-\u9fff]{1,12})")
_HAN_TAIL = re.compile(r"([\u4e00-\u9fff]{1,12})\s*$")
_LETTER = re.compile(r"[A-Za-z\u4e00-\u9fff]")
QUOTES = frozenset("\"'`\u2018\u201c\u300c")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019]*|[\u4e00-\u9fff]|\d+|[^\sA-Za-z\d\u4e00-\u9fff]")

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# Dates and times are never a secret's value: "on 20 January 2023", "2023-05-08", "at 14:05", "3月8日".
_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+(?:19|20)\d\d)?\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+(?:19|20)\d\d)?\b"
    r"|\b(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)?\d\d\b|\b\d{1,2}:\d{2}\b"
    r"|\b(?:in|of|since|by)\s+(?:19|20)\d\d\b|(?:19|20)\d\d\s*年|\d{1,2}\s*月\s*\d{1,2}\s*[日号]"
    r"|\b(?:19|20)\d\d\s?[-\u2013]\s?(?:19|20)\d\d\b",
    re.IGNORECASE,
)
_NUMERIC_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}")
# A house number is the street's after it ("to 14 Carlow Way", "221b Baker Street"): an address,
# never a secret's value. Read after a sentence the secret model flagged ("Van: Hotpoint fridge to
# 14 Carlow Way, 10-12 slot": the van's heading read as a code's), the number was refused.
_STREET_AFTER = re.compile(
    r"[A-Za-z]?(?:\s+[A-Z][\w'\u2019-]*){1,3}\s+(?:Way|Road|Rd|Street|St|Lane|Ln|Avenue|Ave|Close|Cl|Drive|Dr"
    r"|Crescent|Cres|Court|Ct|Place|Pl|Terrace|Gardens|Gdns|Grove|Park|Row|Square|Sq|Walk|Hill|Mews|Parade"
    r"|Boulevard|Blvd|Highway|Hwy|Rise|View|Green|Vale|Wharf|Quay)\b\.?"
)


def dates(sentence: str) -> list[re.Match[str]]:
    """The dates and times of a sentence. A numeric one must have a day and a month in it:
    "18-40-26" is a combination, not a date; a span of years must run forward ("1958-1984")."""
    found = _DATE.finditer(sentence)
    return [
        m
        for m in found
        if (not _NUMERIC_DATE.fullmatch(m.group()) or _calendar(m.group())) and _forward(m.group())
    ]


def _forward(text: str) -> bool:
    """False for a span of years that runs backward ("2019-1994": not a period, maybe a code)."""
    years = YEAR_RANGE.fullmatch(text)
    return years is None or runs_forward(years)


def _calendar(text: str) -> bool:
    parts = [int(p) for p in re.split(r"[-/.]", text)]
    if len(str(parts[0])) == 4 or parts[0] >= 1900:  # 2023-05-08
        return 1 <= parts[1] <= 12 and 1 <= parts[2] <= 31
    day_month = 1 <= parts[0] <= 31 and 1 <= parts[1] <= 12
    month_day = 1 <= parts[0] <= 12 and 1 <= parts[1] <= 31
    return day_month or month_day


_hasher = HashingVectorizer(
    analyzer=lambda tokens: tokens,  # type: ignore[arg-type, return-value]
    n_features=SPAN_WIDTH,
    alternate_sign=False,
    norm="l2",
)


def value_spans(text: str, start: int, end: int, *, set_aside: bool = False) -> list[tuple[int, int]]:
    """The spans of `text[start:end]` that can hold a secret: value-shaped (digits, a
    credential-like token, a quoted string, digits written out), never a date's, a number a word
    owns ("order 88231", "at 2140") nor an id-like token (a plate, "XYZ-4821"); a year only with
    `set_aside` (for the value model, which tells "the key box is 1945" from "built in 1945")."""
    sentence = text[start:end]
    dated = [(start + m.start(), start + m.end()) for m in dates(sentence)]
    spans = [
        (c.start, c.end)
        for c in candidates(sentence, start)
        if c.shape in _VALUE_SHAPES
        and (c.loose_ok or (set_aside and c.shape == "digits" and not owned(sentence, c.start - start)))
        and not any(a <= c.start and c.end <= b for a, b in dated)
        and not (c.shape == "digits" and _STREET_AFTER.match(text, c.end))
        and (c.shape != "credential" or _CREDENTIAL_CORE.search(text[c.start : c.end].rstrip("!?.,;:")))
    ]
    spelled = [(start + m.start(), start + m.end()) for m in SPELLED_RUN.finditer(sentence)]
    counted = [
        (a, b)
        for a, b, _ in counted_spans(sentence, start)
        if not any(c <= a and b <= d for c, d in spelled)
    ]
    return spans + spelled + counted


def _shape(value: str) -> list[str]:
    """The span's own shape: digit count, groups, letters, whether it reads as a clock time, a year
    or a range of years, repeated or running digits."""
    digits = re.sub(r"\D", "", value)
    groups = re.findall(r"\d+", value)
    shape = re.sub(r"[A-Za-z]", "a", re.sub(r"\d", "0", value))
    found = [
        f"n={min(len(digits), 17)}",
        f"groups={min(len(groups), 5)}",
        f"shape={shape[:12]}",
        f"letters={bool(re.search(r'[A-Za-z]', value))}",
        f"han={bool(_HAN.search(value))}",
        f"len={min(len(value) // 3, 10)}",
    ]
    if len(groups) == 1 and len(digits) == 4:
        hours, minutes = int(digits[:2]), int(digits[2:])
        found.append(f"clock={hours <= 23 and minutes <= 59}")
        found.append(f"year={1900 <= int(digits) <= 2099}")
    if len(groups) == 2 and all(len(g) == 4 for g in groups):
        found.append(f"year_range={all(1900 <= int(g) <= 2099 for g in groups)}")
        found.append(f"clock_range={all(int(g[:2]) <= 23 and int(g[2:]) <= 59 for g in groups)}")
    if digits:
        found.append(f"leading_zero={digits[0] == '0'}")
        found.append(f"one_digit_repeated={len(set(digits)) == 1}")
        found.append(f"distinct={min(len(set(digits)), 6)}")
    return found


def _context(words: list[str], side: str) -> list[str]:
    """The words on one side of the span, nearest first: each of the nearest three by place, all
    five as a bag, and what kind of word the nearest is."""
    found = []
    for place, word in enumerate(words[:3], 1):
        found.append(f"{side}{place}={word.lower()}")
    found += [f"{side}*={word.lower()}" for word in words[:5]]
    if words:
        nearest = words[0]
        kind = (
            "digits"
            if nearest.isdigit()
            else "han"
            if "\u4e00" <= nearest <= "\u9fff"
            else "capital"
            if nearest[:1].isupper() and nearest[1:].islower()
            else "upper"
            if nearest.isupper() and len(nearest) > 1
            else "word"
            if nearest[:1].isalpha()
            else "mark"
        )
        found.append(f"{side}kind={kind}")
        if len(words) > 1 and kind == "han":
            found.append(f"{side}2han={''.join(words[:2]) if side == 'R' else words[1] + words[0]}")
    else:
        found.append(f"{side}=edge")
    return found


def span_features(text: str, start: int, end: int, sure: float) -> list[str]:
    """What the value model reads of the span `text[start:end]`: its shape, its neighbours, and
    how sure the secret model is of its sentence (`sure`: a sentence that is plainly about a
    secret's value, "that's the answer to all his security questions", lends its one candidate
    the value's part)."""
    value = text[start:end]
    left, right = simplified(text[max(0, start - 60) : start]), simplified(text[end : end + 60])
    before, after = _WORD.findall(left)[::-1], _WORD.findall(right)
    kind = "quoted" if text[start - 1 : start] in QUOTES else "letters" if _LETTER.search(value) else "digits"
    sureness = f"sure={min(int(sure * 10), 9)}"
    found = [*_shape(value), *_context(before, "L"), *_context(after, "R"), sureness, f"{sureness}|{kind}"]
    return found + _chinese_words(left, "L") + _chinese_words(right, "R")


def _chinese_words(side_text: str, side: str) -> list[str]:
    """The two Chinese words nearest the span on one side ("到站 大概 | 1120"), cut by jieba: one
    character alone says little of what a number is."""
    run = _HAN_RUN.search(side_text) if side == "R" else _HAN_TAIL.search(side_text)
    if run is None:
        return []
    words = [w for w in rjieba.cut(run.group(1)) if w.strip()]
    nearest = words[::-1] if side == "L" else words
    return [f"{side}w{place}={word}" for place, word in enumerate(nearest[:2], 1)]


def span_matrix(items: Sequence[tuple[str, int, int, float]]) -> sparse.csr_matrix:
    """One hashed row a span (`text`, `start`, `end`, the secret model's score of its sentence)."""
    return _hasher.transform([span_features(*item) for item in items]).astype(np.float32)
