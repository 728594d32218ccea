"""What may never become a memory (secrets) and what must be looked at by an operator (rules that
weaken a policy). Pure functions over text, so they are cheap to call on every write."""

from __future__ import annotations

import re
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

    @property
    def found(self) -> bool:
        return bool(self.kinds)


def scan_secrets(text: str) -> SecretScan:
    """Find passwords, keys, tokens, one-time codes and card numbers; return them redacted."""
    kinds: list[str] = []
    redacted = text
    for kind, pattern in _SECRET_PATTERNS:
        if pattern.search(redacted):
            kinds.append(kind)
            redacted = pattern.sub(REDACTED, redacted)
    for match in _CARD_CANDIDATE.finditer(redacted):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _luhn_ok(digits):
            kinds.append("card number")
            redacted = redacted.replace(match.group(), REDACTED)
    return SecretScan(kinds=tuple(dict.fromkeys(kinds)), redacted=redacted)


_POLICY_WEAKENING = [
    re.compile(r"\bno longer (?:need|needs|require|requires|has to|have to|must)\b", re.I),
    re.compile(
        r"\b(?:don'?t|do not|never|no need to|needn'?t)\s+(?:need to\s+)?"
        r"(?:ask|check|verify|require|get|wait)"
        r"\b.{0,30}\b(?:approv|confirm|verif|author|consent|review|id\b|identity)",
        re.I,
    ),
    re.compile(
        r"\b(?:skip|bypass|ignore|disable|override|turn off)\b.{0,20}"
        r"\b(?:approv|verif|check|review|polic|rule"
        r"|safety|limit|guardrail|instruction)",
        re.I,
    ),
    re.compile(
        r"\bwithout (?:any )?(?:approval|verification|authori[sz]ation|confirmation|review|checks?)\b", re.I
    ),
    re.compile(r"\b(?:always|automatically) (?:approve|grant|accept|refund)\b", re.I),
    re.compile(r"\bignore (?:all |any )?(?:previous|prior|earlier|above) (?:instructions|rules)\b", re.I),
    re.compile(
        r"\b(?:approval|verification|review)s? (?:is|are) (?:no longer|not) (?:needed|required|necessary)\b",
        re.I,
    ),
]


# A lead-in that does not change what follows ("Remember: …", "Please note that …").
_RULE_LEAD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|also|note|please|remember|keep in mind|don'?t forget|do not forget)\b"
    r"(?:\s+that\b)?\s*[:,\u2014-]?\s*)+",
    re.I,
)
# An instruction to the assistant: it starts with an imperative.
_RULE_IMPERATIVE = re.compile(
    r"^(?:always|never|from now on|henceforth|going forward|don'?t|do not|you should|you must|"
    r"you (?:can|may|need to|no longer need)|stop|only|make sure|no need to|there is no need|"
    r"skip|bypass|ignore|disable|override|turn off|approve|grant|accept|refund|feel free to)\b",
    re.I,
)
# A statement about a process or its controls (not about the user's own life).
_RULE_PROCESS = re.compile(
    r"\bno longer (?:needs?|requires?|has to|have to|must)\s+(?:to\s+)?(?:be\s+)?(?:\w+\s+){0,2}?"
    r"(?:approv|verif|authori[sz]|confirm|review|check|sign[- ]?off|consent|id\b|identity|escalat)"
    r"|\b(?:refunds?|tickets?|approvals?|verifications?|checks|polic(?:y|ies)|rules?|procedures?|sops?"
    r"|guardrails?|instructions|authori[sz]ations?|escalations?|kyc)\b",
    re.I,
)


def reads_as_rule(text: str) -> bool:
    """Whether a statement is an instruction to the assistant or a rule about a process ("always
    refund…", "refunds no longer need approval"), rather than a fact about the user's life ("the
    user no longer needs glasses")."""
    body = _RULE_LEAD.sub("", text.strip(), count=1)
    return bool(_RULE_IMPERATIVE.match(body) or _RULE_PROCESS.search(body))


def weakens_policy(text: str, *, type: str | None = None) -> bool:
    """True for rules that would relax a policy ("refunds no longer need approval").

    Only a procedure (`type == "procedural"`) or a statement that reads as a rule (see
    `reads_as_rule`) can weaken a policy; "the user no longer has to work weekends" is a fact.
    """
    if not any(pattern.search(text) for pattern in _POLICY_WEAKENING):
        return False
    return type == "procedural" or reads_as_rule(text)


def strip_nul(text: str) -> str:
    """Text without NUL characters, which PostgreSQL text columns reject."""
    return text.replace("\x00", "") if text else text


def normalise(text: str) -> str:
    """Comparable form of a statement: case, spacing and final punctuation do not matter."""
    return re.sub(r"\s+", " ", text).strip().rstrip(".!").casefold()


_NEGATION = re.compile(
    r"\b(?:not|no|never|nor|neither|none|nobody|nothing|nowhere|cannot|without)\b|n['\u2019]t\b", re.I
)


def negated(text: str) -> bool:
    """Whether a statement carries a negation ("is not allergic"), which embeddings barely see."""
    return bool(_NEGATION.search(text))
