"""How the detector cuts text: sentences, runs of digits, spelled-out digits, and numbers that an
identifier owns ("order 88231")."""

from __future__ import annotations

import re

from .lexicon import CJK_DIGITS, DIGIT_NAMES, OWNED_BY, SENTENCE_END, SPECIAL


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


def digit_chains(s: str) -> list[tuple[int, int, int]]:
    """Runs of digits joined by "-", by single spaces between groups of 2-6 ("482 913"), or by
    single spaces between single digits ("1 9 8 4")."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"\d+", s)]
    chains, i = [], 0
    while i < len(runs):
        j = i
        while j + 1 < len(runs):
            gap = s[runs[j][1] : runs[j + 1][0]]
            sizes = (runs[j][1] - runs[j][0], runs[j + 1][1] - runs[j + 1][0])
            grouped = all(2 <= n <= 6 for n in sizes) or sizes == (1, 1)
            if gap in ("-", "\u2013") or (gap == " " and grouped):
                j += 1
            else:
                break
        start, end = runs[i][0], runs[j][1]
        chains.append((start, end, sum(b - a for a, b in runs[i : j + 1])))
        i = j + 1
    return chains


def spelled_digits(value: str) -> str:
    """"four-eight-two" -> "482", "四八二" -> "482"; "" when `value` is not spelled digits."""
    words = re.findall(r"[A-Za-z]+|\S", value.lower())
    names = {name: str(d) for d, name in enumerate(DIGIT_NAMES)} | {"oh": "0", "\u3007": "0"}
    names |= {char: str(d) for d, char in enumerate(CJK_DIGITS)}
    digits = [names.get(w) for w in words if w not in ",-"]
    return "".join(d for d in digits if d) if digits and all(digits) else ""


def owned(text: str, start: int) -> bool:
    """Whether an identifier noun right before `start` owns the number there ("order 88231")."""
    return bool(OWNED_BY.search(text[max(0, start - 40) : start]))
