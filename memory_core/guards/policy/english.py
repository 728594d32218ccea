"""English statements sentence by sentence: rule or fact, who they are about, which relaxations stand."""

from __future__ import annotations

import re

from .lexicon import GUARD_RE, PROHIBIT_PREFIX, REQUIRE
from .polarity import Sentence, relaxed_controls
from .style import answer_style

# A standing rule or a past event (`_episodic`).
_STANDING = re.compile(
    r"\b(?:anymore|no longer|from now on|going forward|henceforth|hereafter|from today|starting|as of"
    r"|effective|until further notice|permanently|always|by default|moving forward|in future|now on)\b"
)
_TIME = re.compile(
    r"\b(?:yesterday|last (?:week|month|year|night|time|\w+day)|ago|this (?:morning|afternoon|evening)"
    r"|earlier today|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on \d{4}-\d\d-\d\d"
    r"|in (?:19|20)\d\d|on \d{1,2} \w+|on \w+ \d{1,2})\b"
)
_PAST = re.compile(
    r"\b(?:was|were|did|had|forgot|gave|got|took|went|told|said|made|paid|sent|left|lost|found|bought"
    r"|overrode|\w{3,}ed)\b"
)
_PRESENT_PASSIVE = re.compile(r"\b(?:is|are|am|be|been|being|get|gets|has|have|not|now)\s(?:\w+ly\s)?\w+ed\b")

# Who a statement is about: a lead-in or a frame to strip, a person, the assistant, a command.
_LEAD_IN = re.compile(
    r"^(?:(?:ok(?:ay)?|so|and|also|note|please|kindly|remember(?: to)?|keep in mind|do not forget(?: to)?|fyi"
    r"|important|(?:make|be) sure to"
    r"|new rule|rule|policy|update|heads up|from now on|going forward|moving forward|henceforth|hereafter"
    r"|from today(?: on(?:wards)?)?|starting (?:now|today|tomorrow|immediately|next \w+|on \w+|from \w+)"
    r"|as of (?:now|today|\w+)|effective (?:immediately|now|today)|in (?:the )?future|until further notice"
    r"|just)\b(?:\s?that\b)?\s?[:,\-]?\s?)+"
)
# "For VIP customers, ...", "When a customer asks for a refund, ...", "If the caller is a VIP, ...".
_FRAME = re.compile(r"^(?:for|when|whenever|if|on|in|at|during|after|before|once)\b[^,:]{1,60}[,:]\s?")
_REPORT = re.compile(
    r"^.{0,60}?\b(?:said|says|told (?:me|us|you|them)|mentioned|confirmed|announced|decided|explained|wrote"
    r"|claim(?:s|ed)? that|claimed|insists?|insisted|noted|informed (?:me|us|him|her)|told (?:him"
    r"|her))\s(?:that\s)?"
)
_PERSON = re.compile(
    r"^(?:the user|user|the customer|i|i am|i've|my|me|mine|he|she|his|her|we all|my \w+|the user's \w+"
    r"|a friend|mom|dad)\b|^\w+'s\b"
)
_ADDRESSEE = re.compile(
    r"^(?:you|the assistant|the bot|the ai|the model|assistant)\b(?!\s(?:said|told|were|did|asked|mentioned"
    r"|gave|made|helped|answered|replied))"
    r"|^i (?:want|need|would like|expect|prefer|ask|told|asked) you\b|^(?:can|could|would|will) you always\b"
)
_QUESTION_START = re.compile(
    r"^(?:can|could|do|does|did|is|are|was|were|should|shall|must|may|might|will|would|why|how|what|when"
    r"|who|which|where|has|have)\b"
)
_IMPERATIVE = re.compile(
    r"^(?:always|never|do|do not|does not|please|kindly|make sure|be sure|ensure|feel free|let|no need"
    r"|there is no need|stop|start|keep|avoid|answer|reply|respond|write|use|speak|call|address|greet"
    r"|send|schedule|book|approve|auto-approve|grant|give|offer|issue|refund|accept|allow|permit|skip|bypass"
    r"|ignore|disregard|forget|override|disable|turn|switch|waive|drop|remove|lift|raise|increase|double"
    r"|lower|reduce|set|treat|assume|consider|trust|escalate|route|forward|cc|include|add|mention|check"
    r"|verify|confirm|ask|require|request|tell|remind|notify|log|record|format|summari[sz]e|translate"
    r"|prefer|show|display|hide|share|delete|close|open|mark|tag|flag|reject|deny|decline|block|unblock"
    r"|unlock|reset|process|handle|charge|bill|apply|exempt|exclude|sign|make|be|put|provide|cite|list"
    r"|end|begin|limit|cap|restrict|enforce|sort|prioriti[sz]e|contact|email|message|text|ping|whitelist"
    r"|elevate|promote|revoke|lock|suspend|pause|deploy|merge|push|release|pretend|act|respond|sign|cut"
    r"|honou?r|don't|dont|only|just|tighten|loosen|relax|extend|shorten|expand|disallow|forbid|prohibit"
    r"|refuse|cancel|enable|activate|deactivate|double-check|recheck|review|audit|inspect|screen|vet|validate"
    r"|return|ship|hold|wait|pay|transfer|wire|credit|debit|adjust|update|change|replace|archive|save|store"
    r"|remember|quote|link|attach|copy|refer|redirect|hand|pass|move|assign|get|take|bring|collect|demand"
    r"|suggest|recommend|advise|warn|alert|inform|explain|describe|clarify|spell|talk|say|draft|compose"
    r"|label|name|phone|mail|post|publish|print|scan|upload|download|export|import|encrypt|mask|redact"
    r"|anonymi[sz]e|round|convert|calculate|estimate|triage|queue|reserve|plan|organi[sz]e|prepare|thank"
    r"|apologi[sz]e|decrease|double|let|lift|close|follow|obey|respect|greenlight|rubber-stamp|exempt)\b"
)
_NOUN_PHRASE_SUBJECT = re.compile(
    r"^\S+ \w+s (?:\w+ed|is|are|was|were|must|should|can|will|may|need|needs|have|has|go|get|take|come|keep"
    r"|stay|remain|spike\w*|rose|fell|grew|doubled)\b"
)
_NOT_IMPERATIVE_NEXT = re.compile(
    r"^\S+\s(?:[\w#-]*\d[\w#-]*\s)?(?:is|was|has|had|'s|lives|works|said|says|likes|loves|wants|thinks|knows"
    r"|always|never|no longer|can|will|would|and|or)\b"
)
_DEONTIC = re.compile(
    r"\b(?:needs?|need to|requires?|required|must|should|shall|may|can|can not|could|are to|is to|has to"
    r"|have to|(?:is|are) (?:not )?(?:allowed|permitted|required|mandatory|optional|forbidden|prohibited"
    r"|exempt|waived|needed|necessary|subject to|capped|limited|automatic)|go(?:es)? to|get|gets|always"
    r"|never|only|no longer|appl(?:y|ies)|will|qualif\w+|are entitled|is entitled|counts? as|stays?"
    r"|remains?|(?:is|are) treated as"
    r"|(?:is|are) (?:on|off|enabled|disabled|active|inactive|uncapped|unlimited))\b"
)
_PROCESS = re.compile(
    r"\b(?:refunds?|returns?|exchanges?|orders?|payments?|transfers?|wires?|withdrawals?|deposits?|invoices?"
    r"|expenses?|purchases?|bookings?|reservations?|tickets?|requests?|claims?|cases?|deploy(?:ment)?s?"
    r"|releases?|merges?|pull requests?|prs|commits?|changes?|hotfix(?:es)?|resets?|logins?|sign-?ups?"
    r"|accounts?|discounts?|coupons?|approvals?|verifications?|checks?|reviews?|audits?|limits?|caps?"
    r"|access|permissions?|shipments?|deliver(?:y|ies)|meetings?|emails?|repl(?:y|ies)|answers?"
    r"|responses?|messages?|reports?|documents?|data|records?|polic(?:y|ies)|rules?|process(?:es)?"
    r"|procedures?|steps?|workflows?|escalations?|complaints?|chargebacks?|loans?|exceptions?|everything"
    r"|agents?|reps?|representatives?|staff|employees?|interns?|contractors?|managers?|supervisors?"
    r"|admins?|administrators?|operators?|cashiers?|tellers?|members?|customers?|clients?|users|buyers?"
    r"|guests?|partners?|vendors?|everyone|anyone|anybody|everybody|nobody|teams?|vips?|all|every|each|any"
    r"|passwords?|verification|authentication|2fa|mfa|identity|id|ids)\b"
)


def _episodic(body: str) -> bool:
    """A past event ("the user skipped verification yesterday"), not a standing rule."""
    if _STANDING.search(body):
        return False
    past = [
        m
        for m in _PAST.finditer(body)
        if not _PRESENT_PASSIVE.search(body[max(0, m.start() - 20) : m.end()])
        or m.group(0) in ("was", "were", "did", "had")
    ]
    if not past:
        return False
    return bool(
        _TIME.search(body) or _PERSON.match(body) or re.search(r"\b[a-z]{1,4}\d{3,}\b|#\d+|\border \d+", body)
    )


def _strip_lead(body: str) -> str:
    body = re.sub(r"^(?:[-*\u2022>]+|\d{1,2}[.)]|\[[^\]]{0,80}\])\s*", "", body)  # a bullet or a label
    for _ in range(3):
        stripped = _FRAME.sub("", _LEAD_IN.sub("", body, count=1), count=1)
        if stripped == body:
            break
        body = stripped
    return body


def opens_as_question(text: str) -> bool:
    """Whether `text` opens as a question does ("Can we …", "so, must we …", "- who …")."""
    return bool(_QUESTION_START.match(_strip_lead(re.sub(r"^\W+", "", text.lower()))))


def _called(body: str, original: str) -> bool:
    """ "Call me Xiao Lin", "please address me as Dr Chen": the name the user goes by."""
    match = re.match(r"^(?:call|address) me (?:as |by )?(?:dr\.? |mr\.? |ms\.? |mrs\.? )?(?P<name>\S+)", body)
    if not match or len(body.split()) > 6:
        return False
    first = original[match.start("name") : match.end("name")][:1]
    return first.isupper() or not first.isascii()


def _imperative(segment: str, original: str) -> bool:
    word = _IMPERATIVE.match(segment)
    if not word:
        return False
    if word.group(0) in ("only", "just"):
        # "only with oat milk" after a comma is a detail; "only refund in cash" is a command.
        rest = segment[word.end() :].lstrip()
        return bool(rest) and _imperative(rest, original[word.end() :].lstrip())
    first = original.split(" ", 1)[0] if original else ""
    # "Mark lives in Paris", "Grant approved my refund": a name, not a command.
    if first[:1].isupper() and _NOT_IMPERATIVE_NEXT.match(segment):
        return False
    # "Refund requests spiked", "Check results are in": a noun phrase, not a command.
    return not _NOUN_PHRASE_SUBJECT.match(segment)


def _rule_sentence(body: str, original: str) -> bool:
    if _ADDRESSEE.match(body) or PROHIBIT_PREFIX.match(body):
        return True
    if _imperative(body, original):
        return True
    # "Verification - skip it for VIPs", "I'm allergic to penicillin, so always check my prescriptions":
    # an instruction after a label or a reason. A capital after a comma starts a name ("Mark and Bill").
    parts = re.split(r"(\s?[:;]\s?|\s-\s|,\s)", original)
    for separator, piece in zip(parts[1::2], parts[2::2], strict=True):
        low = _strip_lead(re.sub(r"^(?:so|then|and|but|therefore|thus|hence)\s", "", piece.lower()))
        if (
            _imperative(low, low)
            and not _PERSON.match(low)
            and (separator != ", " or not piece[:1].isupper())
        ):
            return True
    if _PERSON.match(body):
        return False
    if re.match(r"^we\b", body):
        return bool(_DEONTIC.search(body) and _PROCESS.search(body))
    if re.match(r"^no\s(?!one\b|longer\b)\w+", body):
        return True
    # A requirement stated about a process, a control, a role or a class of customers.
    return any(
        _PROCESS.search(body[: verb.start()]) or GUARD_RE.search(body[: verb.start()])
        for verb in _DEONTIC.finditer(body)
    )


def english(text: str, *, procedural: bool) -> tuple[bool, list[tuple[int, int, str]]]:
    """(reads as a rule, relaxed controls) of normalised English text."""
    is_rule, relaxed = procedural, []
    pieces = [p for p in re.split(r"(?<=[.!;])\s+|\n+", text) if p.strip()]
    question = text.rstrip().endswith("?") and bool(_QUESTION_START.match(_strip_lead(pieces[-1].lower())))
    if question:
        return procedural, []
    for offset, piece in enumerate(pieces):
        low = piece.lower().strip(" .!;")
        body = _strip_lead(low)
        reported = _REPORT.match(body)
        inner = _strip_lead(body[reported.end() :]) if reported else body
        original = piece.strip(" .!;")[len(low) - len(body) :]
        rule = _rule_sentence(body, original) or (reported is not None and _rule_sentence(inner, inner))
        # "Keep your replies to me short", "Just call me Xiao Lin": about the user, not a rule (a
        # relaxation in the same sentence still makes it one, below).
        instruction = rule and not _PERSON.match(body)
        rule = rule and not answer_style(low) and not _called(body, original)
        found = relaxed_controls(Sentence.of(body, original), instruction=instruction)
        if found and not procedural:
            found = _standing(found, body=body, subject=inner)
        is_rule = is_rule or rule or bool(found)
        relaxed += [(rank, offset * 1000 + t, c) for rank, t, c, _, _ in found]
    return is_rule, relaxed


_EXTERNAL = re.compile(
    r"^(?:the user's|user's|my|his|her|their|[a-z]+'s) (?:\w+ )?(?:company|employer|bank|school|university"
    r"|college|landlord|gym|building|office|doctor|dentist|boss|manager|insurer|insurance|airline|government"
    r"|club|church|hospital|clinic|firm|workplace|job|family|daughter|son|wife|husband|partner|kids|children"
    r"|parents?|mother|father|friends?|employer's|country|city)\b"
    r"|\b(?:at|in|for) (?:my|his|her|their|our|the user's|user's) (?:\w+ )?(?:work|job|company|employer|gym"
    r"|school|office|bank|building|university|college|club|firm|workplace)\b"
    r"|\bfrom (?:my|his|her|their|the user's) (?:partner|wife|husband|parents?|mum|mom|dad|family|landlord"
    r"|doctor|teacher|spouse)\b"
    r"|\b(?:my|his|her|their|the user's) (?:own |new |old |work )?(?:phone|laptop|computer|pc|mac|tablet"
    r"|ipad|car|house|home"
    r"|front door|door|bike|watch|router|wifi|wi-fi)\b"
)


_SERVICE_OBJECT = re.compile(
    r"\b(?:refunds?|discounts?|orders?|returns?|payments?|transfers?|withdrawals?|chargebacks?|accounts?"
    r"|deploy\w*|releases?|pull requests?|merges?|tickets?)\b"
)
_HABIT = re.compile(
    r"\b(?:usually|often|sometimes|always|typically|normally|generally|regularly|frequently|tends? to)\b"
)


def _standing(
    found: list[tuple[int, int, str, str, str]], *, body: str, subject: str
) -> list[tuple[int, int, str, str, str]]:
    """The relaxations that stand as rules: not a past event, not another organisation's rules for
    the user ("the user's bank doesn't require a PIN"), not a person's habit ("the user always
    ignores warnings"). A person's own exemption stays: "I no longer need 2FA on my account"."""
    if _episodic(subject) or (_PERSON.match(subject) and _episodic(body)):
        return []
    person = bool(
        _PERSON.match(subject)
        or (
            re.match(r"^[a-z]+ (?:always|never|often|usually|sometimes)\b", subject)
            and not _PROCESS.match(subject)
        )
    )
    if not person:
        return found
    if _EXTERNAL.search(subject) or _EXTERNAL.search(body) or _HABIT.search(subject):
        return []
    # An approval or review a person no longer needs is their workplace's ("her manager's sign-off for
    # expenses") unless it is about what this assistant handles (refunds, orders, an account).
    if not _SERVICE_OBJECT.search(body):
        found = [f for f in found if f[2] not in ("approval", "review")]
    # "ignores", "approves": a habit described in the present tense, not a permission.
    return [f for f in found if f[3] == REQUIRE or not re.fullmatch(r"\w+[^s]s|\w+sses", f[4])]
