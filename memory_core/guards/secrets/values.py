"""Known secret values in text derived from the user's words (a rewrite, an excerpt, a title, a
reply): found whatever spacing, punctuation or case the rewrite gave them, digits spelled out too."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .lexicon import CJK_DIGITS, DIGIT_NAMES, FULLWIDTH
from .text import spelled_digits

REDACTED = "[REDACTED]"
_SEPARATORS = r"[\s\-\u2013—.·_/,]*"


def _char_pattern(char: str) -> str:
    if char.isdigit():  # a rewrite may spell a digit out
        zero = "|\u3007|oh" if char == "0" else ""
        return f"(?:{char}|{DIGIT_NAMES[int(char)]}|{CJK_DIGITS[int(char)]}{zero})"
    return re.escape(char)


def _value_pattern(value: str) -> re.Pattern[str] | None:
    """A pattern for `value` as a rewrite may spell it: digit-led values ("482913", an IBAN, an id)
    with any spacing or punctuation between characters and digits possibly spelled out, others
    with any whitespace and case."""
    core = value.translate(FULLWIDTH).strip().strip("\"'\u201c\u201d\u2018\u2019`")
    if len(core.rstrip("!.?,;:")) >= 4:
        core = core.rstrip("!.?,;:")
    spelled = spelled_digits(core)
    compact = spelled or re.sub(r"[\s\-\u2013—.·_/,]", "", core)
    if not compact:
        return None
    if sum(c.isdigit() for c in compact) >= max(3, len(compact) - 4) and compact.isalnum():
        body = _SEPARATORS.join(_char_pattern(c) for c in compact)
    else:
        body = r"\s+".join(re.escape(part) for part in core.split())
    if spelled and not core.isdigit():
        # Told in words ("六个八", "three sixes and a one"): as said, too, not only digit by digit.
        said = r"\s+".join(re.escape(part) for part in core.split())
        body = f"(?:{body}|{said})"
    left = r"(?<![0-9A-Za-z])" if compact[0].isalnum() else ""
    right = r"(?![0-9A-Za-z])" if compact[-1].isalnum() else ""
    return re.compile(left + body + right, re.I)


def _patterns(values: Iterable[str]) -> list[re.Pattern[str]]:
    if isinstance(values, str):
        raise TypeError("values must be a collection of strings, not one string")
    return [p for v in values if (p := _value_pattern(v)) is not None]


def redact_values(text: str, values: Iterable[str]) -> str:
    """Remove known secret values (from `scan_secrets(...).values`) from a text derived from the
    user's words, whatever spacing or punctuation the rewrite put into them."""
    norm = text.translate(FULLWIDTH)
    spans = sorted((m.start(), m.end()) for p in _patterns(values) for m in p.finditer(norm))
    out, pos = [], 0
    for start, end in spans:
        if start < pos:  # overlaps what is already removed
            continue
        out += [text[pos:start], REDACTED]
        pos = end
    return "".join(out) + text[pos:]


def contains_values(text: str, values: Iterable[str]) -> bool:
    """Whether a derived text still holds any of the known secret values."""
    norm = text.translate(FULLWIDTH)
    return any(p.search(norm) for p in _patterns(values))
