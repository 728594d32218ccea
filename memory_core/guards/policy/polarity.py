"""Which controls an English sentence relaxes: every nearby predicate-control pair and its polarity."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property

from .lexicon import (
    BENEFIT_RE,
    BENEFITS,
    GENERIC,
    GENERIC_RE,
    GRANT,
    GUARD_RE,
    GUARDS,
    LOWER,
    NEGATOR,
    PREDICATE_RE,
    PREDICATES,
    PROHIBIT_PREFIX,
    RAISE,
    RELAX,
    REQUIRE,
    is_keyword,
)

# "refund limit" is a control; "data limit" or "credit card limit" is part of the user's life.
_SERVICE_LIMIT = re.compile(
    r"(?:refund|spending|spend|withdrawal|transfer|transaction|per-transaction|discount|credit|daily"
    r"|weekly|monthly|payout|purchase|order|rate|approval|expense|return|usage|account|the|a|any|no|this"
    r"|that|its|their|our|your|every|each|new|current|usual|same|lift|raise|remove|double|exempt|override|on"
    r"|from|over|above|to|beyond|unlimited|spending|withdrawal|discount)$"
)
# A negation left dangling at the end ("approval needed not", "needed, approval is not, for...").
_DANGLING = re.compile(r"\b(?:is|are|be|was)?\s?not\s*(?:,|$)")
_PROHIBIT_AFTER = re.compile(
    r"\b(?:is|are|be|remains?)\s(?:strictly\s|still\s)?(?:not (?:allowed|permitted|ok|okay|acceptable|fine)"
    r"|forbidden|prohibited|banned|unacceptable|never (?:allowed|ok|okay|acceptable))\b|\bis a violation\b"
)
_CARVE_OUT = re.compile(r"\b(?:except|unless|other than|apart from|but not|excluding|save for)\b")
_BROAD = re.compile(
    r"\b(?:all|any|every|everyone|everybody|anyone|anybody|whoever|whatever|automatically|auto-?\w*|always"
    r"|by default|no questions asked|unconditionally|regardless|no matter|on (?:request|demand)|upon request"
    r"|whenever|blanket|instantly|freely|who asks?|if they ask|everything|anything"
    r"|without (?:asking|checking|question\w*|verifying|hesitation)|whole|entire|at will"
    r"|as (?:they|you|he|she|agents?) (?:see fit|like|wish|want|please)|at (?:their|your|his|her|the agent's)"
    r" (?:own )?discretion)\b"
)
_ONLY = re.compile(r"\bonly\b")
_EMBEDDED_QUESTION = re.compile(
    r"\b(?:ask(?:s|ed|ing)?|wonder\w*|know|unsure|not sure|curious|question\w*|inquir\w*|enquir\w*)"
    r"(?:\s(?:me|us|you|them|him|her))?\s(?:whether|if)\b"
)
_DESIRE = re.compile(
    r"\b(?:want|wants|wanted|would like|wish|wishes|hopes?|hoping|tried|tries|trying|attempted|plans?"
    r"|planning|intends?) to\s(?:\w+\s)?$"
)


@dataclass
class Sentence:
    """A sentence as the pairing reads it: its words, located by their starts."""

    text: str  # lower case, normalised
    starts: list[int]
    cased: str  # the same text with its case, where lower-casing kept the length

    @classmethod
    def of(cls, text: str, cased: str = "") -> Sentence:
        starts = [m.start() for m in re.finditer(r"[a-z0-9$%@]+(?:['-][a-z0-9$%]+)*", text)]
        return cls(text, starts, cased if len(cased) == len(text) else text)

    @cached_property
    def words(self) -> list[str]:
        return [self.text[i:].split(" ", 1)[0].strip(",.:;!?") for i in self.starts]

    def token(self, pos: int) -> int:
        return max(0, bisect_right(self.starts, pos) - 1)

    def spans(self, pattern: re.Pattern[str], names: list[str]) -> list[tuple[int, int, str, int]]:
        """(first token, last token, name, char start) of every match, named by its alternative."""
        found = []
        for m in pattern.finditer(self.text):
            if m.end() == m.start():
                continue
            index = int((m.lastgroup or "x0")[1:])
            found.append((self.token(m.start()), self.token(m.end() - 1), names[index], m.start()))
        return found


def _controls(s: Sentence, *, instruction: bool) -> list[tuple[int, int, str, str]]:
    """(first token, last token, control, kind) with kind guard / benefit."""
    found = [
        (a, b, n, "guard")
        for a, b, n, pos in s.spans(GUARD_RE, [n for n, _ in GUARDS])
        if n != "limit"
        or s.text[pos:].startswith(("unlimited", "uncapped", "limitless"))
        or _limit_of_service(s.text[:pos])
    ]
    # "ID" is an identity document; a lower-case "id" is one only next to a word that says so
    # ("no id needed", "id check"), not in "an unknown id is dropped".
    found = [c for c in found if c[2] != "verification" or not _lower_case_id(s, c[0], c[1])]
    found += [(a, b, n, "benefit") for a, b, n, _ in s.spans(BENEFIT_RE, [n for n, _ in BENEFITS])]
    if not any(kind == "benefit" for *_, kind in found):
        # "Approve everything automatically": the approval itself is what is given away.
        found += [
            (s.token(m.start()), s.token(m.start()), "approval", "benefit")
            for m in _APPROVE_VERB.finditer(s.text)
        ]
    # "verification team", "password manager": the control word only names something else.
    words = s.words
    found = [c for c in found if not _NOT_A_CONTROL.match(" ".join(words[c[1] + 1 : c[1] + 2]))]
    for a, b, _, pos in s.spans(GENERIC_RE, [n for n, _ in GENERIC]):
        if any(x <= b and y >= a for x, y, _, _ in found):
            continue
        # "refund policy" is a refund control; a bare rule noun counts only in an instruction.
        modifier = [(n, kind) for (x, y, n, kind) in found if y == a - 1 and kind != "generic"]
        if modifier:
            found.append((a - 1, b, modifier[0][0], "guard"))
        elif instruction or re.search(
            r"\b(?:your|previous|prior|earlier|above|any|all)\s(?:\w+\s)?$", s.text[max(0, pos - 30) : pos]
        ):
            found.append((a, b, "instructions" if "your" in s.text.split(" ") else "policy", "generic"))
    return found


_APPROVE_VERB = re.compile(r"\b(?:auto-?)?approv(?:e|es|ing)\b")
_NOT_A_CONTROL = re.compile(
    r"(?:team|department|dept|emails?|meetings?|desk|managers?|app|letters?|ratings?|rates?|dates?|officers?"
    r"|specialists?|experts?|jobs?|roles?|course|training|books?|articles?|consultants?|compan(?:y|ies)"
    r"|vendors?|providers?|tools?|software|classes|lessons?)$"
)


def _lower_case_id(s: Sentence, first: int, last: int) -> bool:
    """Whether a one-word "id"/"ids" mention is a lower-case identifier rather than an ID document."""
    if first != last or s.words[first] not in ("id", "ids"):
        return False
    if s.cased[s.starts[first] : s.starts[first] + 2] == "ID":
        return False
    before = " ".join(s.words[max(0, first - 1) : first])
    after = " ".join(s.words[last + 1 : last + 2])
    return not (_ID_AFTER.fullmatch(after) or _ID_BEFORE.fullmatch(before))


_ID_AFTER = re.compile(r"checks?|verification|cards?|documents?|required|needed|necessary")
_ID_BEFORE = re.compile(
    r"photo|valid|government|show|present|their|your|his|her|my|customer's|caller's|no|any|checking|check"
    r"|verify|verifying|require|requiring|for|without"
)


def _limit_of_service(before: str) -> bool:
    word = re.search(r"([a-z0-9$%'-]*)\s*$", before)
    return (
        not word
        or not word.group(1)
        or word.group(1) in ("-", "do", "not")
        or bool(_SERVICE_LIMIT.match(word.group(1)))
    )


_NEED_TO = re.compile(r"(?:needs?|needed|ha(?:ve|s|d)|required|necessary|obliged)(?: not)? to (\w+)")
# Verbs through which a requirement still reaches its control: "need to show ID", "have to pass review".
_MEANS_TO = frozenset({
    "show", "present", "provide", "produce", "give", "pass", "go", "undergo", "complete", "clear", "answer",
    "enter", "use", "get", "obtain", "have", "carry", "bring", "submit", "sign", "fill", "wait", "ask", "be",
    "do", "follow", "obey", "comply",
})  # fmt: skip
# "get a second approval for refunds": the refunds are not what is got.
_WEAK_GRANT = re.compile(r"(?:get|gets|getting|ha(?:ve|s)|receiv\w+|see|view|read)\b")
_AFTER_PREPOSITION = re.compile(r"\b(?:for|on|of|about|over|with|from|to|in)\s(?:\S+\s)?$")
_NOUN_OR_VERB = re.compile(r"(?:review|audit|check|screen|sign)(?:s|ed)?\b")
_VERB_BEFORE = re.compile(
    r"(?:^|\b(?:to|not|never|always|must|should|can|could|will|would|may|might|please|and|or|also|then|just"
    r"|we|you|they|i|agents?|staff|managers?|still|only|do|does|did|first|stop\w*|start\w*|keep|kept|quit"
    r"|ceas\w*|bother|avoid|no longer))\s?$"
)
_GRANT_VERB_CONTEXT = re.compile(
    r"(?:^|\b(?:always|automatically|auto|just|to|will|can|may|should|please|and|then|now|also|simply))\s?$"
)


def _grants(s: Sentence, p: _Predicate, c_first: int, c_kind: str) -> bool:
    """Whether a grant word really grants this control: "refund" and "for" are seldom verbs."""
    pos = s.starts[p.first]
    if p.word.startswith("refund") and not (
        _GRANT_VERB_CONTEXT.search(s.text, max(0, pos - 30), pos) and (pos > 0 or p.word == "refund")
    ):
        return False
    if p.word == "for":
        return c_kind == "benefit" and c_first < p.first and p.first - c_first <= 3
    # "Check the window before approving any refund": a condition, not a grant.
    if _CONDITION_BEFORE.search(s.text, max(0, pos - 30), pos):
        return False
    # A guard is only given away by accepting anything as proof: "accept any photo ID".
    return c_kind == "benefit" or p.word.startswith("accept")


_CONDITION_BEFORE = re.compile(r"\b(?:before|after|when|until|unless|prior to|without)\s$")


def _negations(s: Sentence) -> list[tuple[int, int]]:
    return [(s.token(m.start()), s.token(m.end() - 1)) for m in NEGATOR.finditer(s.text)]


@dataclass(frozen=True)
class _Predicate:
    first: int
    last: int
    kind: str
    word: str
    need_to_other: bool  # "needs to renew her passport": the need is for renewing, not for a control
    lacks: bool  # "has no id": lacking a document is not waiving a check
    weak_grant: bool  # "get", "have": they grant only their object
    after_only: bool  # "only managers can approve"
    not_right_after: bool  # "you need not get", "approval required not"
    determiner: bool  # "no approval", "no more sign-off": the control follows


@dataclass(frozen=True)
class _Scope:
    """What the whole sentence says about negation, read once."""

    negations: list[tuple[int, int]]
    prefix: tuple[int, int] | None  # "never ...", "do not ...": negates the sentence
    prohibited_from: int | None  # "... are not allowed"
    carve_from: int | None  # "... except for gold members"
    dangling_at: int | None  # "approval needed not"


def _predicates(s: Sentence) -> list[_Predicate]:
    spans = s.spans(PREDICATE_RE, [k for k, _ in PREDICATES])
    question = _EMBEDDED_QUESTION.search(s.text)
    suppressed_from = s.token(question.start()) if question else len(s.starts)
    found = []
    for first, last, kind, pos in spans:
        text, before = s.text, max(0, pos - 40)
        if first >= suppressed_from:
            continue  # "the user asked whether verification can be skipped"
        if kind == REQUIRE and _NOUN_OR_VERB.match(text, pos) and not _VERB_BEFORE.search(text, before, pos):
            continue  # "the fraud review", "code reviews": a noun, not someone reviewing
        # "no longer" / "no" stand for a predicate only when none follows: "no longer need" is the need's.
        if _STANDALONE_NO.match(text, pos) and any(
            last < q_first <= last + 3 and q_kind != GRANT for q_first, _, q_kind, _ in spans
        ):
            continue
        if _DESIRE.search(text, before, pos) and not _YOU_TO.search(text, before, pos):
            continue  # "the user wants to skip verification": a wish, not a rule
        need_to = _NEED_TO.match(text, pos) if kind == REQUIRE else None
        found.append(
            _Predicate(
                first=first,
                last=last,
                kind=kind,
                word=text[pos:].split(" ", 1)[0],
                need_to_other=bool(
                    need_to and need_to.group(1) not in _MEANS_TO and not is_keyword(need_to.group(1))
                ),
                lacks=text.startswith("no ", pos) and bool(_LACKS.search(text, before, pos)),
                weak_grant=bool(_WEAK_GRANT.match(text, pos)),
                after_only=bool(_ONLY.search(text, 0, pos)),
                not_right_after=bool(_NOT_RIGHT_AFTER.match(text, pos)),
                determiner=bool(_DETERMINER_NO.match(text, pos))
                and text[max(0, pos - 2) : pos] not in (": ", "= ", "- "),
            )
        )
    return found


_DETERMINER_NO = re.compile(r"no(?: more)?\b(?! longer)")
_STANDALONE_NO = re.compile(r"no\b(?: longer| more)?(?! longer any)")
_YOU_TO = re.compile(r"\byou to\s(?:\w+\s)?$")
_LACKS = re.compile(r"\b(?:has|have|had|with)\s$")
_NOT_RIGHT_AFTER = re.compile(r"\S*\s(?:not|never)\b")


def _scope(s: Sentence) -> _Scope:
    prefix = PROHIBIT_PREFIX.match(s.text)
    after = _PROHIBIT_AFTER.search(s.text)
    carve = _CARVE_OUT.search(s.text)
    dangling = _DANGLING.search(s.text)
    return _Scope(
        negations=_negations(s),
        prefix=(0, s.token(prefix.end() - 1)) if prefix else None,
        prohibited_from=s.token(after.start()) if after else None,
        carve_from=s.token(carve.start()) if carve else None,
        dangling_at=s.token(dangling.end() - 1) if dangling else None,
    )


def _base_polarity(s: Sentence, p: _Predicate, control: tuple[int, int, str, str], broad: bool) -> int:
    """+1 when the predicate keeps the control in force, -1 when it relaxes it, 0 when unrelated."""
    c_first, _, name, c_kind = control
    if p.kind == GRANT:
        if not broad or p.after_only or not _grants(s, p, c_first, c_kind):
            return 0
        if p.weak_grant and _AFTER_PREPOSITION.search(
            s.text, max(0, s.starts[c_first] - 30), s.starts[c_first]
        ):
            return 0  # "get a second approval for refunds": the refunds are not what is got
        return -1
    if c_kind == "benefit":
        return 0
    if p.kind == RAISE:
        return -1 if name == "limit" and c_kind == "guard" else 0
    if p.kind == LOWER:
        # Lowering a limit tightens it; cutting any other control loosens it.
        return (1 if name == "limit" else -1) if c_kind == "guard" else 0
    # A bare rule noun is only relaxed by setting it aside: "ignore the rules".
    if c_kind == "generic" and p.kind != RELAX:
        return 0
    return 1 if p.kind == REQUIRE else -1


def _flips(p: _Predicate, c_first: int, c_last: int, scope: _Scope) -> int:
    """How many negations reach the pair: each one turns "in force" into "relaxed" and back."""
    lo, hi = min(p.first, c_first), max(p.last, c_last)
    window_lo = max(0, lo - 4)
    flips, prefix_counted, inside = 0, False, False
    for n_first, n_last in scope.negations:
        if (n_first <= p.last and n_last >= p.first) or (n_first <= c_last and n_last >= c_first):
            continue  # the predicate or the control itself ("without", "no more")
        if n_first >= window_lo and n_first <= hi:
            inside = True
        if p.kind == GRANT and n_first > p.first:
            continue  # "refund any order, no questions asked"
        if n_last >= window_lo and n_first <= hi:
            flips += 1
            prefix_counted = prefix_counted or bool(scope.prefix and n_first <= scope.prefix[1])
    if scope.prefix and not prefix_counted and scope.prefix[1] < lo:
        flips += 1
    right_after = p.kind != GRANT and p.not_right_after and p.last + 1 > hi
    flips += right_after
    if not right_after and scope.dangling_at is not None and scope.dangling_at > hi and not inside:
        flips += 1
    if scope.prohibited_from is not None and scope.prohibited_from > hi:
        flips += 1
    return flips


def relaxed_controls(s: Sentence, *, instruction: bool) -> list[tuple[int, int, str, str, str]]:
    """(rank, token, control, predicate kind, predicate word) of every control the sentence relaxes; a
    bare rule noun ranks after a named control."""
    controls = sorted(_controls(s, instruction=instruction))
    if not controls:
        return []
    starts = [c[0] for c in controls]
    scope = _scope(s)
    broad = bool(_BROAD.search(s.text))
    relaxed: list[tuple[int, int, str, str, str]] = []
    for p in _predicates(s):
        # Only controls within reach: a control span is a few tokens long, the reach eight.
        for control in controls[bisect_left(starts, p.first - 16) : bisect_right(starts, p.last + 9)]:
            if _paired(p, control) and _polarity(s, p, control, scope, broad) == -1:
                c_first, _, name, c_kind = control
                rank = 1 if c_kind == "generic" else 0
                relaxed.append((rank, min(p.first, c_first), name, p.kind, p.word))
    return sorted(relaxed)


def _paired(p: _Predicate, control: tuple[int, int, str, str]) -> bool:
    """Whether the predicate reaches the control at all."""
    c_first, c_last, name, c_kind = control
    gap = max(c_first - p.last, p.first - c_last, 0)
    if gap > (3 if c_kind == "generic" else 8) or (p.lacks and name in ("verification", "authentication")):
        return False
    if p.need_to_other and c_first > p.last:
        return False
    # "no approval", "no more sign-off"; not "approvals are required, no exceptions"
    return not p.determiner or 0 < c_first - p.last <= 3


def _polarity(
    s: Sentence, p: _Predicate, control: tuple[int, int, str, str], scope: _Scope, broad: bool
) -> int:
    """The pair's polarity once negations and carve-outs are read: -1 when the control is relaxed."""
    polarity = _base_polarity(s, p, control, broad)
    if not polarity:
        return 0
    c_first, c_last, _, _ = control
    flips = _flips(p, c_first, c_last, scope)
    if flips % 2:
        return -polarity
    carved = scope.carve_from is not None and scope.carve_from > max(p.last, c_last)
    if polarity == 1 and not flips and p.kind == REQUIRE and carved:
        return -1  # "refunds need approval, except for gold members"
    return polarity
