"""English predicate rules for work: job, title, employer and its changes."""

from __future__ import annotations

import re

from memory_core.extraction.rules.facts import Who, _Context, _fact, _negation
from memory_core.reading.dates import find_date
from memory_core.reading.normalise import article_for, as_sentence, clean_object
from memory_core.reading.words import ADV, CONDITION_ALT, ORG, Fact

_JOB_WORDS = (
    r"engineer|developer|programmer|designer|teacher|professor|lecturer|nurse|doctor|physician|surgeon|"
    r"dentist|pharmacist|lawyer|attorney|accountant|consultant|architect|scientist|researcher|analyst|"
    r"manager|student|writer|journalist|editor|chef|cook|driver|pilot|mechanic|electrician|plumber|"
    r"farmer|artist|musician|photographer|librarian|translator|marketer|salesperson|recruiter|founder|"
    r"co-founder|entrepreneur|freelancer|intern|officer|administrator|technician|therapist|psychologist|"
    r"veterinarian|vet|economist|banker|trader|paramedic|firefighter|carpenter|tutor|coach|clerk|"
    r"cashier|waiter|waitress|barista|bartender|receptionist|secretary|assistant|director|executive|"
    r"lead|supervisor|specialist|coordinator|representative|agent|broker|auditor|actuary|statistician|"
    r"mathematician|physicist|chemist|biologist|geologist|soldier|police\s+officer|detective|judge|"
    r"paralegal|social\s+worker|caregiver|midwife|optometrist|physiotherapist|dietitian|nutritionist|"
    r"hairdresser|barber|tailor|baker|butcher|builder|welder|machinist|programmer|sysadmin|devops|"
    r"ceo|cto|cfo|coo|vp|owner|partner|contractor|postdoc|phd\s+student|resident|professor|pastor|priest"
)
_TITLE = (
    r"ceo|cto|cfo|coo|cio|cmo|vp(?:\s+of\s+[\w ]+?)?|head\s+of\s+[\w ]+?|director(?:\s+of\s+[\w ]+?)?|"
    r"(?:team\s+|tech\s+)?lead|manager|owner|founder|co-founder|president|chair"
)
_JOB_TEXT = r"[A-Za-z][\w -]{1,60}?"
_AT_ORG = rf"(?:\s+(?i:at|for|with)\s+(?:the\s+)?(?P<org>{ORG}))?"
_NEW_JOB = r"(?:a\s+|an\s+|the\s+)?(?:new\s+)?(?:job|position|role|offer|gig)"
_WORKS_AS = re.compile(
    rf"^(?i:{ADV}(?:works|is\s+working|is\s+employed|has\s+worked|is\s+now\s+working|"
    rf"(?:got|landed|took|accepted|started|has|is\s+starting|found)\s+{_NEW_JOB})\s+as\s+(?:an?\s+|the\s+)?)"
    rf"(?P<job>{_JOB_TEXT}){_AT_ORG}(?=$|[.,;!?]|\s+(?:and|but|so|since|because|now|currently|these\s+days)\b)"
)
_WORKS_AT_AS = re.compile(
    rf"^(?i:{ADV}(?:works|is\s+working|is\s+employed)\s+(?:at|for|with)\s+(?:the\s+)?)(?P<org>{ORG})"
    rf"(?i:\s+as\s+(?:an?\s+|the\s+)?)(?P<job>{_JOB_TEXT})(?=$|[.,;!?]|\s+(?:and|but|so|since|because|now)\b)"
)
_IS_JOB = re.compile(
    rf"^(?i:{ADV}is\s+{ADV}(?:an?\s+)(?P<job>(?:[\w-]+\s+){{0,3}}?(?:{_JOB_WORDS})s?)\b)"
    rf"(?!\s+(?i:of|in)\b){_AT_ORG}"
)
_IS_TITLE = re.compile(
    rf"^(?i:{ADV}is\s+{ADV}the\s+(?:new\s+)?(?P<job>{_TITLE})\s+(?:at|of|for)\s+(?:the\s+)?)(?P<org>{ORG})"
)
_STUDENT = re.compile(
    rf"^(?i:{ADV}is\s+(?:an?\s+)?(?P<job>(?:[\w-]+\s+)?student)\s+(?:at|in)\s+(?:the\s+)?)(?P<org>{ORG})"
)
_PROMOTED = re.compile(
    rf"(?i)^{ADV}(?:was|got|has\s+been|is\s+being|is\s+getting)\s+{ADV}promoted\s+to\s+(?:an?\s+|the\s+)?"
    r"(?P<job>[a-z][\w -]{1,40}?)(?=$|[.,;!?]|\s+(?:at|and|but|so|last|this|yesterday|today|on|in)\b)"
)
_BECAME = re.compile(rf"(?i)^{ADV}became\s+(?:an?\s+|the\s+)(?P<job>(?:[\w-]+\s+){{0,3}}?(?:{_JOB_WORDS}))\b")
_RETIRED = re.compile(rf"(?i)^{ADV}(?:is\s+{ADV}|has\s+|got\s+)?retired\b(?!\s+(?:from|as)\b)")
_CHANGE_AS = re.compile(
    rf"^(?i:{ADV}(?:joined|was\s+hired\s+by|has\s+been\s+hired\s+by|got\s+hired\s+(?:by|at)|started\s+at|"
    rf"is\s+starting\s+at|will\s+start\s+at|starts\s+at|is\s+joining|will\s+be\s+joining|moved\s+to|"
    rf"switched\s+to|went\s+to\s+work\s+(?:at|for))\s+(?:the\s+)?)(?P<org>{ORG})(?P<mid>[^.;!?]*?)"
    rf"(?i:\s+as\s+(?:an?\s+|the\s+)?)(?P<job>{_JOB_TEXT})(?=$|[.,;!?]|\s+(?:and|but|so|since|because)\b)"
)
_EMPLOYER = re.compile(
    rf"^(?i:{ADV}(?:works|is\s+{ADV}working|is\s+employed|has\s+been\s+working|started\s+(?:a\s+new\s+job|"
    r"a\s+job|work|working|a\s+new\s+position|a\s+position|a\s+new\s+role|a\s+role)(?:\s+with)?|got\s+(?:a\s+|the\s+)?"
    r"(?:new\s+)?(?:job|position|role|offer)(?:\s+with)?|got\s+hired|was\s+hired|has\s+been\s+hired|is\s+starting\s+"
    r"(?:a\s+new\s+job|work|a\s+job)|joined|is\s+joining|accepted\s+(?:an?\s+|the\s+)?(?:job\s+)?offer|"
    r"took\s+a\s+job|switched\s+(?:jobs\s+)?|moved\s+to\s+a\s+(?:new\s+)?job|"
    r"(?:started|starts|is\s+starting|will\s+start)(?=\s+(?:at|with)\b)(?:\s+with)?|"
    r"will\s+be\s+working|will\s+work|is\s+going\s+to\s+(?:be\s+)?work(?:ing)?)\s+(?:at|for|by|from|to)?"
    rf"\s*(?:the\s+)?)(?P<org>{ORG})"
)
_EMPLOYER_JOINED = re.compile(rf"^(?i:{ADV}(?:joined|is\s+joining)\s+(?:the\s+)?)(?P<org>{ORG})")
_EMPLOYER_ENDED = re.compile(
    rf"^(?i:{ADV}(?:quit|left\s+(?:their|the\s+user's|a|the)\s+(?:job|position|role)\s+(?:at|with)|"
    r"quit\s+(?:their|the\s+user's|a|the)\s+(?:job|position|role)\s+(?:at|with)|resigned\s+from|"
    r"was\s+laid\s+off\s+(?:from|by)|got\s+laid\s+off\s+(?:from|by)|was\s+let\s+go\s+(?:from|by)|"
    r"got\s+fired\s+from|was\s+fired\s+from|retired\s+from|stopped\s+working\s+(?:at|for))\s+(?:the\s+)?)"
    rf"(?P<org>{ORG})"
)
_MY_JOB = re.compile(
    rf"(?:^|(?i:\b(?:my|the\s+user's|user's)\s+))(?i:(?:new\s+|current\s+)?(?:job|work|workplace|employer|office)\s+"
    rf"is\s+(?:(?:at|with|for)\s+)?(?:the\s+)?)(?P<org>{ORG})"
)


def _org(text: str) -> str:
    return re.sub(r"(?i)\s+(?:now|too)$", "", text.rstrip(".")).strip()


def _is_org(text: str) -> bool:
    """A name, not a time ("started at 9am")."""
    return bool(re.search(r"[A-Z]", text)) and not re.fullmatch(r"(?i)\d+(?::\d+)?\s*(?:am|pm)?", text)


def _work(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    for rule in (_job, _job_change, _employer):
        found = rule(who, predicate, ctx)
        if found:
            return found
    return []


# "a nurse with epilepsy", "a teacher with type 1 diabetes": who the worker is, not where they work
# nor part of the role; the condition is left to the health readers and the whole-sentence keep.
# "a nurse with dementia patients" works with those who have it: the role keeps it.
_WITH_CONDITION = re.compile(
    rf"(?i)\s+with\s+(?:(?:an?|chronic|severe|mild|bad|early|late)\s+)*(?:{CONDITION_ALT})\b"
    r"(?!\s+(?:patients?|children|kids|adults|people|clients?|residents?|families|famil(?:y|ies)|sufferers"
    r"|survivors|charit(?:y|ies)|research|units?|wards?|teams?|services?|clinics?|nurses?|care|support))"
)


def _job(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    """A role, with its employer when named: "works as a nurse at Contoso", "is the CTO of Fabrikam"."""
    for pattern in (_WORKS_AT_AS, _WORKS_AS, _CHANGE_AS, _STUDENT, _IS_TITLE, _IS_JOB):
        match = pattern.match(predicate)
        if not match:
            continue
        said, org_said = match.group("job"), match.groupdict().get("org") or ""
        condition = _WITH_CONDITION.search(predicate, match.start("job"))
        if condition is not None:
            said = predicate[match.start("job") : min(match.end("job"), condition.start())]
            org_said = org_said if org_said and match.start("org") < condition.start() else ""
        job = clean_object(said)
        if not job or len(job.split()) > 6:
            continue
        org = _org(org_said)
        at = f" at {org}" if org else ""
        if pattern is _STUDENT:
            content = f"{who.label} is {article_for(job)} {job}{at}."
        elif pattern is _IS_TITLE:
            content = f"{who.label} works as the {job}{at}."
        else:
            content = f"{who.label} works as {article_for(job)} {job}{at}."
        valid_from = _dated(predicate, ctx) if pattern is _CHANGE_AS else None
        return [_fact(who, "job", content, "profile", valid_from=valid_from)]
    return []


# "works in marketing": a field, lower case (a capitalised place, "works in London", is not a job).
_WORKS_IN = re.compile(
    rf"^(?:{ADV})(?:works|is\s+working|has\s+worked)\s+in\s+(?P<field>(?:[a-z][a-z-]*)(?:\s+[a-z][a-z-]*){{0,2}}?)"
    r"(?=$|[.,;!?]|\s+(?:and|but|so|since|because|now|at|for)\b)"
)
_NOT_FIELDS = frozenset(
    {"the", "a", "an", "my", "their", "his", "her", "our", "this", "that", "town", "shifts"}
)


def _job_change(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    """Promoted, became, retired; teaches a subject or runs a business; works in a field."""
    match = _WORKS_IN.match(predicate)
    if match and match.group("field").split()[0] not in _NOT_FIELDS:
        return [_fact(who, "job", f"{who.label} works in {match.group('field')}.", "profile")]
    match = _PROMOTED.match(predicate)
    if match:
        return [_fact(who, "job", f"{who.label} was promoted to {match.group('job')}.", "profile")]
    match = _BECAME.match(predicate)
    if match:
        job = match.group("job")
        content = f"{who.label} became {article_for(job)} {job}."
        return [_fact(who, "job", content, "profile", valid_from=_dated(predicate, ctx))]
    if _RETIRED.match(predicate):
        return [_fact(who, "job", f"{who.label} is retired.", "profile")]
    match = _TEACHES.match(predicate) or _RUNS.match(predicate)
    if match:
        where = match.groupdict().get("where")
        verb = re.sub(r"\s+", " ", match.group("verb").lower())
        content = f"{who.label} {verb} {match.group('what')}" + (f" at {where.strip()}" if where else "")
        return [_fact(who, "job", as_sentence(content), "profile")]
    return []


def _employer(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    """Where the user works, started or stopped working: the `employer` slot."""
    match = _EMPLOYER_ENDED.match(predicate)
    if match:
        org = _org(match.group("org"))
        return [_fact(who, "employer", f"{who.label} no longer works at {org}.", "profile")]
    negation, p = _negation(predicate)
    match = _EMPLOYER.match(p) or _EMPLOYER_JOINED.match(p)
    if match and _is_org(match.group("org")):
        org = _org(match.group("org"))
        if negation == "not":
            return [_fact(who, "", f"{who.label} does not work at {org}.", "profile")]
        if negation:
            return [_fact(who, "employer", f"{who.label} no longer works at {org}.", "profile")]
        changed = not re.match(rf"(?i)^{ADV}(?:works|is\s+{ADV}working|is\s+employed)", p)
        valid_from = _dated(predicate, ctx) if changed else None
        return [_fact(who, "employer", f"{who.label} works at {org}.", "profile", valid_from=valid_from)]
    return []


_TEACHES = re.compile(
    rf"(?i)^{ADV}(?P<verb>teaches|tutors|lectures\s+in|coaches)\s+(?P<what>[a-z][\w -]{{1,40}}?)"
    r"(?:\s+(?:at|in|for)\s+(?P<where>[^,;.!?]+))?$"
)
_RUNS = re.compile(
    rf"(?i)^{ADV}(?P<verb>runs|owns|manages|started|founded|co-founded)\s+(?P<what>(?:a|an|their\s+own|the\s+user's\s+own)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:business|company|startup|shop|store|bakery|restaurant|cafe|caf\u00e9|bar|firm|practice|"
    r"clinic|agency|farm|salon|studio|consultancy|daycare))\b"
)


def _dated(text: str, ctx: _Context) -> str | None:
    when = find_date(text, ctx.today) or find_date(ctx.sentence, ctx.today)
    return when.day.isoformat() if when else None
