"""How the detector cuts text: sentences, runs of digits, spelled-out digits, and numbers that an
identifier owns ("order 88231")."""

from __future__ import annotations

import re

from .lexicon import (
    CJK_DIGITS,
    COUNTED,
    COUNTED_GROUP,
    DIGIT_NAMES,
    FINANCIAL_DIGITS,
    OWNED_BY,
    SENTENCE_END,
    SPECIAL,
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence; a "!" or "?" ending a password-like word is no sentence end."""
    spans, start = [], 0
    for match in SENTENCE_END.finditer(text):
        before = text[max(0, match.start() - 64) : match.start()].split()
        word = before[-1] if before else ""
        if match.group() in "!?" and (re.search(r"\d", word) or SPECIAL.search(word)):
            continue  # "P@ssw0rd! is what I use": the mark belongs to the value
        spans.append((start, match.end()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


_LISTED = re.compile(r"\s?[,\uff0c\u3001]\s?")
# Single digits listed with commas are one value only in a sentence about what a code opens ("the
# side gate opens with 7, 2, 9, 4"); else they are scores, ages or lottery numbers ("won 3, 1, 0, 2").
_OPENED_BY_A_CODE = re.compile(
    r"(?i)\b(?:codes?|combo|combination|pin|passcode|password|lock\w*|unlock\w*|opens?|padlock|safe|alarm"
    r"|door|gate|keypad|key\s?(?:box|safe)|shed|locker)\b|密码|密碼|门锁|門鎖|门禁|門禁|口令|开锁|開鎖"
)


def digit_chains(s: str) -> list[tuple[int, int, int]]:
    """Runs of digits joined by "-", by single spaces between groups of 2-6 ("482 913"), or by
    single spaces or commas between single digits ("1 9 8 4", "8, 3, 0, 6")."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"\d+", s)]
    a_code = _OPENED_BY_A_CODE.search(s) is not None
    chains, i = [], 0
    while i < len(runs):
        j = i
        while j + 1 < len(runs):
            gap = s[runs[j][1] : runs[j + 1][0]]
            sizes = (runs[j][1] - runs[j][0], runs[j + 1][1] - runs[j + 1][0])
            grouped = all(2 <= n <= 6 for n in sizes) or sizes == (1, 1)
            # "4, 7, 1, 9" (and with the full-width comma): a code told digit by digit
            listed = a_code and sizes == (1, 1) and _LISTED.fullmatch(gap) is not None
            if gap in ("-", "\u2013") or (gap == " " and grouped) or listed:
                j += 1
            else:
                break
        start, end = runs[i][0], runs[j][1]
        chains.append((start, end, sum(b - a for a, b in runs[i : j + 1])))
        i = j + 1
    return chains


_NAMES = (
    {name: str(d) for d, name in enumerate(DIGIT_NAMES)}
    | {"oh": "0", "\u3007": "0"}
    | {char: str(d) for d, char in enumerate(CJK_DIGITS)}
    | FINANCIAL_DIGITS
)


def spelled_digits(value: str) -> str:
    """"four-eight-two" -> "482", "四八二" -> "482", "叁贰柒" -> "327", "three sixes and a one" ->
    "6661"; "" when `value` is not spelled digits."""
    if COUNTED.fullmatch(value.strip()) and COUNTED_GROUP.search(value):
        return counted_digits(value)
    words = re.findall(r"[A-Za-z]+|\S", value.lower())
    digits = [_NAMES.get(w) for w in words if w not in ",-"]
    return "".join(d for d in digits if d) if digits and all(digits) else ""


_TIMES = {"double": 2, "triple": 3, "两": 2, "兩": 2, "十": 10} | {
    name: d for d, name in enumerate(DIGIT_NAMES) if d >= 2
} | {char: d for d, char in enumerate(CJK_DIGITS) if d >= 1}
_PLURAL = {"zeros": "0", "zeroes": "0", "ohs": "0", "sixes": "6"} | {
    f"{name}s": str(d) for d, name in enumerate(DIGIT_NAMES) if d not in (0, 6)
}
_COUNTED_PART = re.compile(
    r"(?P<times>double|triple|two|three|four|five|six|seven|eight|nine)\s+(?P<what>[a-z]+)"
    r"|(?P<zh_times>[两兩一二三四五六七八九十])\s*[个個]\s*(?P<zh_what>\S)"
    r"|(?P<one>[a-z]+|\S)",
    re.I,
)


def counted_digits(value: str) -> str:
    """The digits of a phrase that tells them by count (`lexicon.COUNTED`): "three sixes and a
    one" -> "6661", "double seven" -> "77", "六个八" -> "888888"; words between them ("and", "a",
    "加") say nothing."""
    digits = []
    for m in _COUNTED_PART.finditer(value.lower()):
        if m.group("times"):
            times, what = m.group("times"), m.group("what")
            digit = _PLURAL.get(what) or (_NAMES.get(what) if times in ("double", "triple") else None)
            if digit is not None:
                digits.append(digit * _TIMES[times])
            else:  # "four seven": two digits, not a count
                digits += [d for w in (times, what) if (d := _NAMES.get(w)) is not None]
            continue
        if m.group("zh_times") and (digit := _NAMES.get(m.group("zh_what"))) is not None:
            digits.append(digit * (1 if m.group("zh_times") == "一" else _TIMES[m.group("zh_times")]))
            continue
        if (word := m.group("one") or "") in _NAMES:
            digits.append(_NAMES[word])
    return "".join(digits)


def counted_spans(text: str, start: int = 0) -> list[tuple[int, int, str]]:
    """(start, end, digits) of each phrase in `text` that tells three digits or more by count
    (`lexicon.COUNTED`: "three sixes and a one", "六個九"), offset by `start`."""
    found = []
    for m in COUNTED.finditer(text):
        if COUNTED_GROUP.search(m.group()) and len(digits := counted_digits(m.group())) >= 3:
            found.append((start + m.start(), start + m.end(), digits))
    return found


def owned(text: str, start: int) -> bool:
    """Whether an identifier noun right before `start` owns the number there ("order 88231")."""
    return bool(OWNED_BY.search(text[max(0, start - 40) : start]))
