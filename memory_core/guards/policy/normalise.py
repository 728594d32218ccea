"""The text as the detector reads it: obfuscations undone, abbreviations and contractions spelt out."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from itertools import islice, product

from memory_core import process_caches

from .lexicon import is_keyword

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201b": "'", "`": "'", "\u2032": "'"})
_DASHES = re.compile(r"[^\S\n]*[\u2012-\u2015\u2212][^\S\n]*|[^\S\n]+-+[^\S\n]+")
# Single characters joined by one separator: "s k i p", "b-y-p-a-s-s", "s.k.i.p".
_SPACED = re.compile(r"(?<![\w@$])[A-Za-z0-9@$](?:([ .\-_*])[A-Za-z0-9@$])(?:\1[A-Za-z0-9@$])+(?![\w@$])")
_LEET_TOKEN = re.compile(r"(?<![\w@$])(?=[\w@$!|']*[A-Za-z])[A-Za-z0-9@$]+(?:[!|'][A-Za-z0-9@$]+)*(?![\w@$])")
# Words a leetspeak token may stand for besides the lexicon: "d0n't", "c4n't".
_LEET_WORDS = frozenset(
    {"don't", "doesn't", "isn't", "aren't", "can't", "won't", "needn't", "dont", "doesnt"}
)
_LEET = {"0": "o", "1": "il", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i", "|": "il"}
# Hyphens splitting a keyword ("Skip-ping", "ap-proval"): joined when the result is a keyword.
_SPLIT_WORD = re.compile(r"\b[A-Za-z]+(?:[-.*][A-Za-z]+)+\b")
# Stems that say a token is worth rewriting; the gate keeps "RF123" or "10am" as they are.
_STEMS = re.compile(
    r"^(?:skip|bypass|approv|verif|authent|authori|ignor|overrid|waiv|exempt|disabl|limit|refund|discount"
    r"|access|admin|password|review|safety|instruct|requir|need|check|identit|permission|sign|polic|rule"
    r"|secur|confirm|escalat|option|mandator|necess|filter|restrict|guideline|credential|privilege|receipt"
    r"|unlimit|allow|grant|turn|cap|audit|without|not|no)",
)
_ABBREVIATIONS = [
    (re.compile(r"\bw/\s?o(?:ut)?\b|\bw\.o\.", re.I), "without"),
    (re.compile(r"\breq(?:'d|d|\.|uired)?(?=\W|$)", re.I), "required"),
    (re.compile(r"\bverif\b\.?", re.I), "verification"),
    (re.compile(r"\bauth\b", re.I), "authentication"),
    (re.compile(r"\bappr(?:ov)?'?d\b|\bok(?:'d|ayed|ed)\b", re.I), "approved"),
    (re.compile(r"\bmgr\b", re.I), "manager"),
    (re.compile(r"\bn/a\b", re.I), "not applicable"),
    (re.compile(r"\bb4\b", re.I), "before"),
    (re.compile(r"\bpl[sz]\b", re.I), "please"),
    (re.compile(r"\bu\b", re.I), "you"),
    (re.compile(r"\bur\b", re.I), "your"),
    (re.compile(r"\bany more\b", re.I), "anymore"),
    (re.compile(r"\s&\s"), " and "),
]
_CONTRACTIONS = [
    (re.compile(r"\b(ca|wo|sha)n'?t\b", re.I), None),
    (
        re.compile(
            r"\b(do|does|did|is|are|was|were|has|have|had|need|must|should|would|could|may)n'?t\b", re.I
        ),
        None,
    ),
    (re.compile(r"\bain'?t\b", re.I), "is not"),
    (re.compile(r"\bcannot\b", re.I), "can not"),
    (re.compile(r"\b(it|there|that|what|here)'s\b", re.I), r"\1 is"),
    (re.compile(r"\b(you|we|they)'re\b", re.I), r"\1 are"),
    (re.compile(r"\bi'm\b", re.I), "I am"),
    (re.compile(r"\b(i|you|we|they)'d like\b", re.I), r"\1 would like"),
    (re.compile(r"\blet's\b", re.I), "let us"),
]
_NEGATED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}


def _contract(match: re.Match[str]) -> str:
    head = match.group(1)
    return f"{_NEGATED_AUX.get(head.lower(), head)} not"


def _unleet(match: re.Match[str]) -> str:
    token = match.group(0)
    if token.isalpha() or not any(c in _LEET for c in token):
        return token
    choices = [_LEET.get(c, c) if c in _LEET else c for c in token]
    words = ["".join(letters) for letters in islice(product(*choices), 64)]
    for word in words:
        if is_keyword(word) or word.lower() in _LEET_WORDS:
            return word
    for word in words:
        if _STEMS.match(word.lower()):
            return word
    return token


def _join_split_word(match: re.Match[str]) -> str:
    word = re.sub(r"[-.*]", "", match.group(0))
    return word if is_keyword(word) else match.group(0)


# Cyrillic and Greek letters that look Latin, inside a word that also has Latin letters (a Cyrillic "a"
# in "approval").
_HOMOGLYPHS = str.maketrans(
    "аеорсхуіјѕԁһкмтвнАЕОРСХУІЈЅКМТВНοαρτκινμεΑΒΕΗΙΚΜΝΟΡΤΧΥΖ",
    "aeopcxyijsdhkmtbhAEOPCXYIJSKMTBHoaptkivmeABEHIKMNOPTXYZ",
)
_HOMOGLYPH_TOKEN = re.compile(r"\b(?=\w*[A-Za-z])(?=\w*[\u0370-\u03ff\u0400-\u04ff])\w+\b")
_ALPHA_TOKEN = re.compile(r"\b[A-Za-z]{7,}\b")
# Misspellings one edit away from a keyword ("aproval", "verfication") are read as the keyword.
_SPELLED = (
    "approval", "approvals", "approved", "verification", "verified", "identification", "authentication",
    "authorization", "authorisation", "password", "passwords", "required", "requirement", "necessary",
    "mandatory", "optional", "override", "security", "restrictions", "instructions", "guidelines",
    "unlimited", "exempted", "skipped", "bypassed", "disabled", "ignored",
)  # fmt: skip
_REAL_NEIGHBOURS = frozenset({"identify", "notional", "requited", "approves", "requires", "overrode"})


def _one_edit(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance of exactly one (a letter added, dropped, changed or swapped)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1])
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1 :] == shorter[i:]


@lru_cache(maxsize=8192)
def _spelt(low: str) -> str | None:
    if low in _REAL_NEIGHBOURS or is_keyword(low):
        return None
    return next((k for k in _SPELLED if _one_edit(low, k)), None)


process_caches.register_lru(_spelt)


def _correct_spelling(match: re.Match[str]) -> str:
    return _spelt(match.group(0).lower()) or match.group(0)


def _join_split_words(text: str) -> str:
    """ "sk ip", "appro val", "with out": two pieces that are no keyword alone but one together."""
    words = text.split(" ")
    out: list[str] = []
    i = 0
    while i < len(words):
        if (
            i + 1 < len(words)
            and words[i].isalpha()
            and words[i + 1].isalpha()
            and len(words[i]) + len(words[i + 1]) >= 4
        ):
            joined = words[i] + words[i + 1]
            if (
                is_keyword(joined)
                and not is_keyword(words[i])
                and not is_keyword(words[i + 1])
                and not is_keyword(f"{words[i]} {words[i + 1]}".lower())
            ):
                out.append(joined)
                i += 2
                continue
        out.append(words[i])
        i += 1
    return " ".join(out)


# A statement is read by the rule check and twice for its answer style in one write: once each.
@lru_cache(maxsize=256)
def normalise(text: str) -> str:
    """The text as the detector reads it: obfuscations undone, contractions spelt out, case kept."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_QUOTES)
    text = _DASHES.sub(" - ", text)
    if re.search(r"\b\w \w \w\b", text) and "  " in text:
        # "n o  a p p r o v a l": letters one space apart, words two.
        text = "  ".join(re.sub(r"(?<=\b\w) (?=\w\b)", "", chunk) for chunk in re.split(r"\s{2,}", text))
    text = _SPACED.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group(0)), text)
    text = re.sub(r"(?<=[A-Za-z])_(?=[A-Za-z])", " ", text)
    text = _HOMOGLYPH_TOKEN.sub(lambda m: m.group(0).translate(_HOMOGLYPHS), text)
    text = _LEET_TOKEN.sub(_unleet, text)
    text = _SPLIT_WORD.sub(_join_split_word, text)
    text = _join_split_words(text)
    text = _ALPHA_TOKEN.sub(_correct_spelling, text)
    for pattern, replacement in _ABBREVIATIONS:
        text = pattern.sub(replacement, text)
    for pattern, spelt in _CONTRACTIONS:
        text = pattern.sub(spelt if spelt is not None else _contract, text)
    # Lines stay apart: each line of a list is read as its own statement.
    return re.sub(r"\s*\n\s*", "\n", re.sub(r"[^\S\n]+", " ", text)).strip()


process_caches.register_lru(normalise)
