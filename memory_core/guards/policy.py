"""Rules and instructions: what only an operator may activate, and which of them would weaken a
policy (and so are flagged). Pure functions over text, so they are cheap to call on every write."""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True)
class PolicyCheck:
    is_rule: bool
    weakens: bool
    control: str = ""
    reason: str = ""


def policy_check(text: str, *, type: str | None = None) -> PolicyCheck:
    """Whether `text` is a rule (only an operator may activate it) and whether it relaxes a control."""
    weakens = weakens_policy(text, type=type)
    body = _RULE_LEAD.sub("", text.strip(), count=1)
    is_rule = weakens or type == "procedural" or bool(_RULE_IMPERATIVE.match(body))
    reason = "This rule would weaken a policy; an operator must review it." if weakens else ""
    return PolicyCheck(is_rule=is_rule, weakens=weakens, reason=reason)
