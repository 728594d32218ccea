"""Secrets: what may never become a memory, in any text derived from the user's words.
Pure functions over text, so they are cheap to call on every write."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

REDACTED = "[REDACTED]"

_SECRET_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "password",
        re.compile(
            r"\b(?:password|passwd|pwd|passphrase|passcode|pin(?: code)?)\b"
            r"(?:\s+(?:is|was|=|:)|\s*[:=])\s*\S+",
            re.I,
        ),
    ),
    (
        "api key or token",
        re.compile(
            r"\b(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?"
            r"|(?:auth|bearer|access|refresh)?[ _-]?token)\b"
            r"(?:\s+(?:is|was|=|:)|\s*[:=])\s*\S{6,}",
            re.I,
        ),
    ),
    (
        "api key or token",
        re.compile(
            r"\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}"
            r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})\b"
        ),
    ),
    (
        "one-time code",
        re.compile(
            r"\b(?:otp|one[- ]time (?:pass)?(?:code|password)|verification code|security code|2fa code"
            r"|auth(?:entication)? code"
            r"|sms code|(?:the|my) code)\b\D{0,20}\d{4,8}\b",
            re.I,
        ),
    ),
]
_CARD_CANDIDATE = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")


def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


@dataclass(frozen=True)
class SecretScan:
    kinds: tuple[str, ...]
    redacted: str
    values: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        return bool(self.kinds)


def scan_secrets(text: str) -> SecretScan:
    """Find passwords, keys, tokens, one-time codes and card numbers; return them redacted."""
    kinds: list[str] = []
    values: list[str] = []
    redacted = text
    for kind, pattern in _SECRET_PATTERNS:
        for match in pattern.finditer(redacted):
            kinds.append(kind)
            values.append(match.group().split()[-1])
        redacted = pattern.sub(REDACTED, redacted)
    for match in _CARD_CANDIDATE.finditer(redacted):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits):
            kinds.append("card number")
            values.append(match.group())
            redacted = redacted.replace(match.group(), REDACTED)
    return SecretScan(
        kinds=tuple(dict.fromkeys(kinds)), redacted=redacted, values=tuple(dict.fromkeys(values))
    )


def redact(text: str) -> str:
    return scan_secrets(text).redacted


def contains_values(text: str, values: Iterable[str]) -> bool:
    folded = text.casefold()
    return any(value and value.casefold() in folded for value in values)


def redact_values(text: str, values: Iterable[str]) -> str:
    for value in values:
        if value:
            text = re.sub(re.escape(value), REDACTED, text, flags=re.I)
    return text
