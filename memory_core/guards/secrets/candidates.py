"""The spans of a sentence that could be a secret value, each with its shape (digits, a
credential-like or id-like token, a plain word, a quoted string, an IBAN…); the keywords decide,
in `linking`, which of them they take."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .forms import iban_spans
from .lexicon import (
    FILE_OR_HOST,
    HTML_ENTITY,
    ID_LIKE,
    MEASURE,
    NOT_A_VALUE,
    SPECIAL,
    SPELLED,
    STOPWORDS,
    STRIP_LEFT,
    STRIP_RIGHT,
    TOKEN,
    UNIT_AFTER,
    VERSION,
    WORD_FOLLOW,
    WORD_SUFFIX_STOP,
)
from .text import counted_spans, digit_chains, owned, spelled_digits


@dataclass(frozen=True)
class Cand:
    start: int
    end: int
    shape: str  # digits | credential | idlike | word | quoted | phrase | nino | iban
    ndigits: int = 0
    loose_ok: bool = True  # may stand anywhere in the sentence, not only next to the keyword


def _phone_like(s: str, start: int, end: int) -> bool:
    """+44 20 7946 0958, 415-555-0123, 020 7946 0958, 13812345678: numbers to call, not secrets."""
    digits = re.sub(r"\D", "", s[start:end])
    if re.search(r"(?:\+\d{1,3}|\(\d{2,4}\))[\s-]?$", s[max(0, start - 7) : start]):
        return True
    grouped = re.fullmatch(r"\d{3}[\s-]\d{3}[\s-]\d{4}", s[start:end])
    return bool(grouped or re.fullmatch(r"1[3-9]\d{9}|0\d{9,10}", digits))


def _is_year(value: str) -> bool:
    return bool(re.fullmatch(r"(?:19|20)\d\d", value))


# A period, not a value: two 24-hour clock times joined as a range ("0800开到1800", "0830 to 1030",
# "2200-0600"), or a span of years running forward ("1994-2024"; one running backward may be a
# combination). Each number alone could be a PIN; the pair is opening hours or a career.
_CLOCK = r"(?:[01]\d|2[0-3])[0-5]\d"
_CLOCK_RANGE = re.compile(
    rf"(?<![\d-]){_CLOCK}\s*(?:-|\u2013|\u2014|~|\uff5e|to|till|til|until|through|thru"
    rf"|[开開]?到|至)\s*{_CLOCK}(?![\d-])",
    re.I,
)
YEAR_RANGE = re.compile(r"(?<![\d-])((?:19|20)\d\d)\s?[-\u2013]\s?((?:19|20)\d\d)(?![\d-])")


def runs_forward(years: re.Match[str]) -> bool:
    """Whether a `YEAR_RANGE` match is a period ("1958-1984"), not one running backward."""
    return int(years.group(1)) < int(years.group(2))


def periods(s: str) -> list[tuple[int, int]]:
    """The spans of `s` that are a range of clock times or of years (see `_CLOCK_RANGE`)."""
    found = [m.span() for m in _CLOCK_RANGE.finditer(s)]
    return found + [m.span() for m in YEAR_RANGE.finditer(s) if runs_forward(m)]


def candidates(s: str, base: int) -> list[Cand]:
    """Every span of sentence `s` that could be a secret value, with its shape; `base` is where
    `s` starts in the text, and the spans are offsets in the text."""
    blocked = [(m.start(), m.end()) for m in NOT_A_VALUE.finditer(s)] + periods(s)
    cands = _digit_cands(s, blocked) + _token_cands(s, blocked) + _other_cands(s)
    # a number owned by an identifier ("order 88231") is never taken from afar; digits spelled one
    # by one ("the keysafe by the tack room is 1 9 8 4") are no identifier's number, whatever is before
    return [
        replace(c, start=base + c.start, end=base + c.end, loose_ok=c.loose_ok and not _owned(s, c))
        for c in cands
    ]


def _owned(s: str, c: Cand) -> bool:
    return _SPELLED_OUT.fullmatch(s, c.start, c.end) is None and owned(s, c.start)


_SPELLED_OUT = re.compile(r"\d(?:(?: |\s?[,\uff0c\u3001]\s?)\d){3,}")


_ATTRIBUTE_BEFORE = re.compile(r"\b(?:the|this|that|our|their)\s+$", re.I)
_WORD_AFTER = re.compile(r"\s+[a-z]{2,}")


def _free(blocked: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the span overlaps none of the never-a-value spans (dates, prices, times…)."""
    return not any(a < end and start < b for a, b in blocked)


# A keypad code's "#" after the word that names it, in the same clause ("大堂新密碼 #2719*", "大堂密碼
# 下個月轉做 #4096*", "door code is now #4512"): the digits are the code, not a reference number
# ("ticket #2719"). Over the labelled sets, of 392 texts with "#" or "*" before digits two more
# refused (door codes labelled secrets: "单元门密码改成了 1#2580#") and nothing else changed.
_KEYPAD_NAMED = re.compile(
    r"(?i:密码|密碼|口令|门禁码|門禁碼|\b(?:passcode|password|pin|door\s+code|gate\s+code|keypad\s+code|lock\s+code)\b)"
    r"[^,.;!?\uff0c\u3002\uff1b\uff01\uff1f\n]{0,16}#$"
)


def _digit_cands(s: str, blocked: list[tuple[int, int]]) -> list[Cand]:
    cands = []
    for start, end, n in digit_chains(s):
        before, after = s[max(0, start - 3) : start], s[end : end + 3]
        keypad = bool(_KEYPAD_NAMED.search(s, 0, start))
        glued = re.search(r"[A-Za-z]$|[A-Za-z]{2}-$|[+$€£¥]$|\d[.,:/]$", before) or (
            before.endswith("#") and not keypad
        )
        if glued or re.match(r"[A-Za-z%]|[.,:/]\d", after):  # part of a word, price, decimal, time
            continue
        if _free(blocked, start, end) and not UNIT_AFTER.match(s, end) and not _phone_like(s, start, end):
            # "the 2315 delivery", "the 1430 got cancelled": a number said as a noun's attribute
            # is a time or a route, taken only right beside a keyword, never from afar.
            attribute = bool(_ATTRIBUTE_BEFORE.search(s, 0, start)) and bool(_WORD_AFTER.match(s, end))
            cands.append(Cand(start, end, "digits", n, not _is_year(s[start:end]) and not attribute))
    return cands


def _token_cands(s: str, blocked: list[tuple[int, int]]) -> list[Cand]:
    cands = []
    for m in TOKEN.finditer(s):
        token = m.group().lstrip(STRIP_LEFT)
        start = m.start() + len(m.group()) - len(token)
        token = token.rstrip(STRIP_RIGHT)
        end = start + len(token)
        if _never_a_value(token) or not _free(blocked, start, end):
            continue
        if (cand := _token_cand(s, start, end, token)) is not None:
            cands.append(cand)
    return cands


def _never_a_value(token: str) -> bool:
    """Nothing left, a file name or host, a version, a measure ("8-digit"), or escaped text
    ("Bob&#x27;s")."""
    if not token or FILE_OR_HOST.search(token) or VERSION.match(token) or MEASURE.match(token):
        return True
    return bool(HTML_ENTITY.search(token))


# A licence or product key ("KX7Q-29MD-LLP4-8821", five groups of five): four groups or more of
# four or five letters and digits, a credential; a plate or an order's id has fewer.
_PRODUCT_KEY = re.compile(r"^(?=.*[A-Z])(?=.*\d)[A-Z0-9]{4,5}(?:-[A-Z0-9]{4,5}){3,}$")


def _token_cand(s: str, start: int, end: int, token: str) -> Cand | None:
    letters = sum(c.isalpha() for c in token)
    digits = sum(c.isdigit() for c in token)
    # A name's trailing plus ("LGBTQ+", "Disney+", "C++") and an exclamation ("community!") are no
    # special characters: a word with them is a word.
    core = token.rstrip("+!")
    special = SPECIAL.search(core)
    if letters and (digits or special) and len(token) >= 4:
        if ID_LIKE.match(token) and not _PRODUCT_KEY.match(token):
            return Cand(start, end, "idlike", digits, False)
        loose = len(token) >= 6 and bool(re.search(r"[a-z]", token) or special or _PRODUCT_KEY.match(token))
        return Cand(start, end, "credential", digits, loose)
    if letters and "_" in token and len(token) >= 6:  # "my_secret_pass", only next to a keyword
        return Cand(start, end, "credential", 0, False)
    if letters == len(core) - core.count("-") - core.count("'") and letters >= 3:
        return _word_cand(s, start, start + len(core), core)
    return None


def _word_cand(s: str, start: int, end: int, token: str) -> Cand | None:
    """A plain word that is no stopword, does not read as an adjective or participle, and ends
    its clause; one after a stopword ("the tulip") counts only next to its keyword."""
    preceding = s[max(0, start - 30) : start].split()
    follows_det = bool(preceding) and preceding[-1].lower() in STOPWORDS
    if (
        token.lower() not in STOPWORDS
        and (token.isupper() or not WORD_SUFFIX_STOP.search(token))
        and WORD_FOLLOW.match(s, end)
    ):
        return Cand(start, end, "word", 0, not follows_det)
    return None


_ZH_WORD_VALUE = re.compile(
    r"(?:(?:密码|口令|暗号|密語|密碼)(?:是|为|為|改成了?|换成了?|设成了?)"
    r"|(?i:password|passphrase|passcode|pin|pw)\s*(?:is|was|=|:)?)\s*([\u4e00-\u9fff]{2,12})"
)


# A quoted string: between double quotes, corner brackets or backticks; or between single quotes
# that are not apostrophes: one inside or closing a Latin word ("the combination's changed again,
# it's on the whiteboard", "I've got …") quotes nothing; after a Chinese character it may quote.
# Every pair is matched, short ones too, and only those of `QUOTED_MIN` characters or more kept: a
# skipped pair let the closing quote of a two-character value open the next pair (口令是"青松" …).
QUOTED = re.compile(
    r"[\"“`「]([^\"”\u2019'`」]{1,64})[\"”\u2019'`」]"
    r"|(?<![A-Za-z0-9\u2019'])['\u2018]([^\"”\u2019'`」]{1,64})['\u2019](?![A-Za-z0-9])"
)
QUOTED_MIN = 3


def _spelled_cands(s: str) -> list[Cand]:
    """Digits written out one by one ("four-eight-two-nine", "四八二九", "叁贰柒柒") or told by
    count ("three sixes and a one", "六個九")."""
    cands = [Cand(m.start(), m.end(), "digits", len(spelled_digits(m.group()))) for m in SPELLED.finditer(s)]
    for start, end, digits in counted_spans(s):
        if not any(c.start <= start and end <= c.end for c in cands):
            cands.append(Cand(start, end, "digits", len(digits)))
    return cands


def _other_cands(s: str) -> list[Cand]:
    """Spelled-out digits, quoted strings, Chinese words after a colon, NINOs and IBAN shapes."""
    cands = _spelled_cands(s)
    for m in QUOTED.finditer(s):
        start, end = m.span(1) if m.group(1) is not None else m.span(2)
        if end - start >= QUOTED_MIN:
            cands.append(Cand(start, end, "quoted"))
    for m in re.finditer(r"(?<=:)\s*([\u4e00-\u9fff]{2,12})", s):
        if not re.match(r"[忘不没已在要是请错输重修无空]", m.group(1)):
            cands.append(Cand(m.start(1), m.end(1), "word"))
    # "口令是芝麻开门", "密码改成了天王盖地虎": a Chinese word as the value of a Chinese keyword.
    for m in _ZH_WORD_VALUE.finditer(s):
        if not re.match(r"[忘不没已在要是请错输重修无空什多哪几怎啥我你他她对]", m.group(1)):
            cands.append(Cand(m.start(1), m.end(1), "word"))
    for m in re.finditer(r"(?<![A-Za-z])[A-Z]{2}\s?\d{2}\s?\d{2}\s?\d{2}\s?[A-D](?![A-Za-z0-9])", s):
        cands.append(Cand(m.start(), m.end(), "nino"))
    cands += [Cand(a, b, "iban") for a, b, _ in iban_spans(s)]
    return cands
