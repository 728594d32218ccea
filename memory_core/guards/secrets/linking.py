"""Values found by keyword: a secret keyword and a value of the shape it accepts in one sentence,
in either order, tied by a copula ("my PIN is 4821"), adjacent ("the password tulip"), named
afterwards ("4821 is my PIN") or loosely anywhere in the sentence; or the answer in the next
sentence to a question about one ("the wifi pw? it's sunshine42")."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from .candidates import Cand, candidates
from .checksums import luhn_ok
from .lexicon import (
    ADJACENT,
    AFTER,
    BEFORE,
    CARRY_START,
    CODE_CONTEXT,
    CODE_NOT_AFTER,
    CONJ,
    CONJ_OR_COPULA,
    KEYWORDS,
    LOCK_CONTEXT,
    PHRASE_STOP,
    STOPWORDS,
    STRIP_RIGHT,
    WORD_SUFFIX_STOP,
)

_REACH = 300  # keyword and value within this many characters: any real sentence, and no blow-up
_NEAR_LINKS = ("tight", "adjacent", "before", "beside")


@dataclass(frozen=True)
class _Keyword:
    start: int
    end: int
    cls: str
    kind: str


def keyword_hits(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every value a secret keyword takes in its own sentence or, when that
    sentence has none, in the answer that follows it."""
    hits: list[tuple[int, int, str]] = []
    keywords = _keywords(text)
    cands_of = _candidates_per_sentence(text, sentences)
    k = 0
    for index, (s_start, s_end) in enumerate(sentences):
        while k < len(keywords) and keywords[k].start < s_start:
            k += 1
        here = [kw for kw in keywords[k:] if kw.start < s_end]
        if not here:
            continue
        sentence = text[s_start:s_end]
        lock = bool(LOCK_CONTEXT.search(sentence))  # a bare "code" that opens a door is a PIN
        sent_or_typed = bool(CODE_CONTEXT.search(sentence))
        found = _sentence_hits(text, here, s_end, cands_of(index), lock, sent_or_typed)
        hits += found
        if not found and index + 1 < len(sentences):
            later = partial(cands_of, index + 1)  # computed only if the sentence asks
            hits += _answer_hits(text, here, sentence, sentences[index + 1], later, sent_or_typed)
    return hits


def _candidates_per_sentence(text: str, sentences: list[tuple[int, int]]) -> Callable[[int], list[Cand]]:
    """Sentence number -> its candidates sorted by start, computed once per sentence."""
    cache: dict[int, list[Cand]] = {}

    def cands_of(index: int) -> list[Cand]:
        if index not in cache:
            found = candidates(text[sentences[index][0] : sentences[index][1]], sentences[index][0])
            cache[index] = sorted(found, key=lambda c: c.start)
        return cache[index]

    return cands_of


def _sentence_hits(
    text: str, here: list[_Keyword], s_end: int, cands: list[Cand], lock: bool, code_context: bool
) -> list[tuple[int, int, str]]:
    """The values the sentence's keywords `here` take among its candidates `cands`."""
    # Each value is named by its best keyword: a tight link beats a loose one, then the nearest.
    best: dict[tuple[int, int], tuple[int, int, str]] = {}
    for kw in here:
        kind = "pin" if kw.cls == "code" and lock else kw.kind
        if kw.cls in ("phrase", "password") and (span := _phrase_value(text, kw, s_end)):
            best.setdefault(span, (0, 0, kind))
        _rank(text, kw, kind, cands, best, code_context)
    return [(start, end, kind) for (start, end), (_, _, kind) in best.items()]


def _rank(
    text: str,
    kw: _Keyword,
    kind: str,
    cands: list[Cand],
    best: dict[tuple[int, int], tuple[int, int, str]],
    code_context: bool,
) -> None:
    """Enter into `best` every candidate near `kw` that it takes, unless a nearer keyword has it."""
    for cand in _near(cands, kw):
        if kw.start < cand.end and cand.start < kw.end:
            continue
        span, distance = (cand.start, cand.end), max(cand.start - kw.end, kw.start - cand.end)
        if span in best and best[span][:2] <= (0, distance):
            continue  # already tied to a nearer keyword
        link = _link(text, kw, cand)
        if _accepts(kw, cand, link, text, code_context):
            ranked = (0 if link != "loose" else 1, distance, kind)
            best[span] = min(best.get(span, ranked), ranked)


def _answer_hits(
    text: str,
    here: list[_Keyword],
    sentence: str,
    nxt: tuple[int, int],
    cands_of_next: Callable[[], list[Cand]],
    code_context: bool,
) -> list[tuple[int, int, str]]:
    """After a question ("the wifi pw? it's sunshine42"), or when the next sentence opens with
    "it's" / ":", the value may stand in the next sentence; its first word is tied tightly."""
    answer = CARRY_START.match(text, nxt[0])
    question = sentence.rstrip().endswith("?")
    if not (question or answer):
        return []
    bare = re.compile(r"\s*").match(text, nxt[0])
    both = code_context or bool(CODE_CONTEXT.search(text, *nxt))
    hits = []
    for kw in here:
        for cand in _near(cands_of_next(), kw):
            starts_answer = bool(answer and answer.end() == cand.start)
            first = starts_answer or bool(question and bare and bare.end() == cand.start)
            if _accepts(kw, cand, "tight" if first else "loose", text, both):
                hits.append((cand.start, cand.end, kw.kind))
    return hits


def _keywords(text: str) -> list[_Keyword]:
    found = []
    for cls, kind, pattern in KEYWORDS:
        for m in pattern.finditer(text):
            if m.group().lower() == "sin" and m.group() != "SIN":
                continue  # "sin" in lower case is the English word
            if cls == "code" and CODE_NOT_AFTER.search(text[max(0, m.start() - 16) : m.start()]):
                continue
            found.append(_Keyword(m.start(), m.end(), cls, kind))
    # "one-time password" is an OTP, not a password: drop keywords inside a longer one. Sorted by
    # start, longest first, a keyword's container always comes before it.
    kept: list[_Keyword] = []
    reach, reach_start = -1, -1
    for kw in sorted(found, key=lambda k: (k.start, -k.end)):
        if kw.end < reach or (kw.end == reach and reach_start < kw.start):
            continue
        kept.append(kw)
        if kw.end > reach:
            reach, reach_start = kw.end, kw.start
    return kept


def _tight(m: re.Match[str] | None) -> bool:
    """An `AFTER` gap that really ties keyword and value: a short tail without a conjunction, and
    no second verb unless a colon announces the value ("the password you need is in caps: X")."""
    if not m or len(m["tail"].split()) > 8 or (m["inter"] and len(m["inter"].split()) > 16):
        return False
    tail_ok = not CONJ_OR_COPULA.search(m["tail"])
    return tail_ok or (m.group().rstrip(" \"'“\u2018`「").endswith(":") and not CONJ.search(m["tail"]))


def _link(text: str, kw: _Keyword, cand: Cand) -> str:
    """How `cand` is tied to `kw`: "tight" (a copula after the keyword), "adjacent", "before" (value
    first, with a verb: "X is my PIN"), "beside" (value first, punctuation: "X — my PIN") or "loose"."""
    if cand.start >= kw.end and cand.start - kw.end <= 200:
        gap = text[kw.end : cand.start]
        if ADJACENT.fullmatch(gap):
            return "adjacent"
        if _tight(AFTER.fullmatch(gap)):
            return "tight"
    elif 0 <= kw.start - cand.end <= 80 and (m := BEFORE.fullmatch(text[cand.end : kw.start])):
        return "before" if m["verb"] else "beside"
    return "loose"


def _names_it(kw: _Keyword, cand: Cand, link: str, text: str) -> bool:
    """"uses the password tulip": a plain word right after "the/my … password" that ends the clause
    and does not read as a noun of its own ("a password reader")."""
    ends = re.match(r"\s*(?:$|[,;.!?)\"'”\u2019」])", text[cand.end :])
    before = text[max(0, kw.start - 40) : kw.start]
    owner = re.search(r"\b(?:the|my|his|her|their|our|your|user'?s)\s+(?:[\w-]+\s+)?$", before, re.I)
    noun = re.search(r"(?:er|or|ion|ment|ness|ity|ure|age|ance|ence)$", text[cand.start : cand.end], re.I)
    return link == "adjacent" and bool(ends and owner) and not noun


def _accepts(kw: _Keyword, cand: Cand, link: str, text: str, code_context: bool) -> bool:
    """Whether keyword `kw` takes `cand` as its value, given how the two are linked; `code_context`
    says whether the sentence speaks of codes being sent or typed."""
    if link == "loose" and not cand.loose_ok:
        return False
    near = link in _NEAR_LINKS
    value = text[cand.start : cand.end]
    cls = kw.cls
    if cls in ("password", "phrase"):
        return _password_takes(kw, cand, link, text, near)
    if cls == "code":  # bare "code" takes digits, and from afar only where codes are sent or typed
        return cand.shape == "digits" and 4 <= cand.ndigits <= 8 and (near or code_context)
    if cls in ("pin", "otp"):
        return _pin_takes(cls, cand, value, near)
    if cls in ("token", "key"):
        return _token_takes(cls, cand.shape, value, near)
    return _number_takes(cls, cand, value, near)


def _password_takes(kw: _Keyword, cand: Cand, link: str, text: str, near: bool) -> bool:
    shape, n = cand.shape, cand.ndigits
    if shape == "digits":
        return 4 <= n <= (16 if near else 8)
    if shape in ("credential", "idlike"):
        return True
    if shape == "word":  # "the password tulip" only when the word ends the clause
        return link == "tight" or _names_it(kw, cand, link, text) or (link == "before" and cand.loose_ok)
    if shape == "quoted":
        return near
    return shape == "phrase" and link == "tight"


def _pin_takes(cls: str, cand: Cand, value: str, near: bool) -> bool:
    """A PIN (up to 12 digits next to its keyword) or a one-time code (up to 8), or a short code
    with digits in it next to the keyword."""
    if cand.shape == "digits":
        return 4 <= cand.ndigits <= (12 if cls == "pin" and near else 8)
    if cand.shape in ("credential", "idlike"):
        short = len(value) <= 14 and bool(re.search(r"\d", value))
        return (short and near) or cand.shape == "credential"
    return False


def _token_takes(cls: str, shape: str, value: str, near: bool) -> bool:
    if shape in ("credential", "idlike"):
        return len(value) >= 8 and (near or shape == "credential" or cls == "token")
    return cls == "token" and near and shape == "quoted" and len(value) >= 8


def _number_takes(cls: str, cand: Cand, value: str, near: bool) -> bool:
    """Card numbers (Luhn unless next to the keyword), CVVs, IBANs and national ids."""
    shape, n = cand.shape, cand.ndigits
    if cls == "card":
        digits = re.sub(r"\D", "", value)
        return shape == "digits" and 13 <= n <= 19 and (near or luhn_ok(digits))
    if cls == "cvv":
        return shape == "digits" and 3 <= n <= 4 and near
    if cls == "iban":
        return shape == "iban"
    if cls == "nid":
        if shape == "digits":
            return 8 <= n <= 18
        if shape in ("credential", "idlike"):
            return n >= 5 and len(value) <= 20
        return shape == "nino"
    return False


def _phrase_value(text: str, kw: _Keyword, limit: int) -> tuple[int, int] | None:
    """The words after "passphrase is" / "password:", up to the end of the clause. After a plain
    "password" every word but the first must be an unusual one ("correct horse battery staple",
    not "pretty much the same everywhere")."""
    first = AFTER.match(text, kw.end, limit)
    # the value starts after the first copula, or after a colon ("is four words: apple banana …")
    starts = [first.end()] if first else []
    starts += [kw.end + m.end() for m in re.finditer(r":\s*", text[kw.end : min(limit, kw.end + _REACH)])]
    for start in starts:
        if not _tight(AFTER.fullmatch(text, kw.end, start)):
            continue
        words = re.match(r"[^\W\d_][^,;:.!?—\u2013()\"”]*", text[start:limit])
        if not words:
            continue
        value = words.group().rstrip().rstrip(STRIP_RIGHT)
        parts = value.split()
        if len(parts) < 3 or parts[0].lower() in PHRASE_STOP or WORD_SUFFIX_STOP.search(parts[0]):
            continue
        if kw.cls == "password" and any(p.lower() in STOPWORDS or not p.isalpha() for p in parts[1:]):
            continue
        return start, start + len(value)
    return None


def _near(cands: list[Cand], kw: _Keyword) -> list[Cand]:
    """The candidates (sorted by start) within _REACH of the keyword."""
    low = bisect.bisect_left(cands, kw.start - _REACH - 64, key=lambda c: c.start)
    high = bisect.bisect_right(cands, kw.end + _REACH, key=lambda c: c.start)
    return cands[low:high]
