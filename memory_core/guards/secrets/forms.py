"""Values that are secrets by their form alone, wherever they stand: well-known token prefixes,
private key blocks, a password inside a URL, IBANs, PRC resident ids and US SSNs that pass their
checksums, card numbers that pass Luhn, and long strings that read as generated."""

from __future__ import annotations

import itertools
import math
import re

from .checksums import iban_ok, luhn_ok, prc_id_ok, ssn_ok
from .lexicon import (
    BEARER,
    EMAIL_PAIR,
    FILE_OR_HOST,
    HASH_CONTEXT,
    IBAN_LENGTHS,
    IBAN_START,
    LOGIN_PAIR,
    PRC_ID,
    PREFIXED,
    PRIVATE_KEY,
    SPELLED,
    SSN,
    STRIP_LEFT,
    STRIP_RIGHT,
    TOKEN,
    URL_PASSWORD,
    UUID,
)
from .text import digit_chains, owned, spelled_digits


def _random_looking(token: str) -> bool:
    """Long strings that read like generated secrets: hex of 32+, or mixed-case base62/64 that
    switches character class often (words, file names and ids do not)."""
    if len(token) < 20 or not re.fullmatch(r"[A-Za-z0-9+/=_\-.~]+", token) or FILE_OR_HOST.search(token):
        return False
    counts = [token.count(c) for c in set(token)]
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts)
    if re.fullmatch(r"[0-9a-fA-F]+", token):
        mixed = re.search(r"\d", token) and re.search(r"[a-f]", token, re.I)
        return len(token) >= 32 and entropy >= 3.0 and bool(mixed)
    classes = ["l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "o" for c in token]
    if not {"l", "u", "d"} <= set(classes) or classes.count("d") > 0.6 * len(token):
        return False
    switches = sum(a != b for a, b in itertools.pairwise(classes))
    return switches >= 0.3 * len(token) and entropy >= 3.5


def iban_spans(text: str) -> list[tuple[int, int, bool]]:
    """IBAN-shaped spans (country code, length per country, spaces allowed), with mod-97 result."""
    spans = []
    for match in IBAN_START.finditer(text):
        length = IBAN_LENGTHS.get(match.group(1).upper())
        if length is None:
            continue
        chars: list[str] = []
        pos = match.start()
        while pos < len(text) and len(chars) < length:
            if text[pos].isascii() and text[pos].isalnum():
                chars.append(text[pos].upper())
            elif not (text[pos] == " " and pos + 1 < len(text) and text[pos + 1].isalnum()):
                break
            pos += 1
        if len(chars) == length and not (pos < len(text) and text[pos].isascii() and text[pos].isalnum()):
            spans.append((match.start(), pos, iban_ok("".join(chars))))
    return spans


def form_hits(text: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every value in `text` that its form alone makes a secret."""
    hits = _pattern_hits(text) + _checksum_hits(text)
    for s_start, s_end in sentences:
        sentence = text[s_start:s_end]
        hits += _card_hits(text, s_start, sentence) + _random_hits(s_start, sentence)
    return hits


def _pattern_hits(text: str) -> list[tuple[int, int, str]]:
    """Token prefixes and private key blocks, and the password or token inside a URL, an
    "email / password" pair, a login pasted as "what it opens: name / password" or a Bearer
    header."""
    hits: list[tuple[int, int, str]] = []
    for pattern, kind in ((PREFIXED, "api key or token"), (PRIVATE_KEY, "api key or token")):
        hits += [(m.start(), m.end(), kind) for m in pattern.finditer(text)]
    inner = ((URL_PASSWORD, "password"), (EMAIL_PAIR, "password"), (BEARER, "api key or token"))
    for pattern, kind in inner:
        hits += [(m.start("v"), m.end("v"), kind) for m in pattern.finditer(text)]
    logins = (m for m in LOGIN_PAIR.finditer(text) if password_like(m["v"]))
    hits += [(m.start("v"), m.end("v"), "password") for m in logins]
    return hits


def password_like(value: str) -> bool:
    """A value that reads as a password rather than a word: a digit or a symbol in it, words run
    together in mixed case ("TallPines"), or twelve lower-case letters or more, longer than most
    single words ("stretchandbreathe"; "downstairs" is a word)."""
    value = value.rstrip(".!?)")
    if re.search(r"[\d\W_]", value) or re.search(r"[a-z][A-Z]", value):
        return True
    return len(value) >= 12 and value.islower()


def _checksum_hits(text: str) -> list[tuple[int, int, str]]:
    """IBANs, PRC resident ids and dashed SSNs whose checksums or rules hold."""
    hits = [(start, end, "iban") for start, end, ok in iban_spans(text) if ok]
    hits += [(m.start(), m.end(), "national id") for m in PRC_ID.finditer(text) if prc_id_ok(m.group())]
    for m in SSN.finditer(text):
        if ssn_ok(m["a"], m["g"], m["s"]) and not owned(text, m.start()):
            hits.append((m.start(), m.end(), "national id"))
    return hits


def _card_hits(text: str, s_start: int, sentence: str) -> list[tuple[int, int, str]]:
    """Digit runs of card length that pass Luhn, written as digits or spelled out, unless an
    identifier owns them."""
    hits = []
    runs = [(start, end, re.sub(r"\D", "", sentence[start:end])) for start, end, _ in digit_chains(sentence)]
    runs += [(m.start(), m.end(), spelled_digits(m.group())) for m in SPELLED.finditer(sentence)]
    for start, end, digits in runs:
        if 13 <= len(digits) <= 19 and luhn_ok(digits) and not owned(text, s_start + start):
            hits.append((s_start + start, s_start + end, "card number"))
    return hits


def _random_hits(s_start: int, sentence: str) -> list[tuple[int, int, str]]:
    """Generated-looking strings; not UUIDs, nor hex in a sentence about commits or hashes."""
    hashes_here = bool(HASH_CONTEXT.search(sentence))
    hits = []
    for m in TOKEN.finditer(sentence):
        # Quotes and brackets around the token are not part of it, on either side.
        raw = m.group()
        left = raw.lstrip(STRIP_LEFT)
        token = left.rstrip(STRIP_RIGHT)
        start = s_start + m.start() + len(raw) - len(left)
        if _random_looking(token) and not UUID.match(token):
            is_hex = bool(re.fullmatch(r"[0-9a-fA-F]+", token))
            if not (is_hex and hashes_here):
                hits.append((start, start + len(token), "api key or token"))
    return hits
