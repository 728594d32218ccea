"""English rules for people: the user's name and preferred name, relatives and their names,
marital status, birthdays, and what "my …" states (blood type, birthday, workplace)."""

from __future__ import annotations

import re

from memory_core.extraction.rules.clauses import _LEAD_WORDS
from memory_core.extraction.rules.facts import USER, Who, _Clause, _Context, _fact, _relative, _safety
from memory_core.extraction.rules.work import _MY_JOB, _is_org, _org
from memory_core.reading.dates import MONTH_NAMES, find_date
from memory_core.reading.words import ADV, NAME, NOT_NAMES, REL_ALT, TITLED_NAME, Fact

_MARITAL = re.compile(
    rf"(?i)^{ADV}(?P<verb>is|got|has\s+been|was)\s+{ADV}(?:happily\s+|recently\s+|newly\s+)?"
    r"(?P<status>married|single|divorced|engaged|widowed|separated)\b(?P<rest>.*)$"
)
_HAS_RELATIVE = re.compile(
    rf"^(?i:{ADV}has\s+(?:a|an|one|another)\s+(?:(?:little|baby|younger|older|big|twin|new)\s+)?"
    rf"(?P<rel>{REL_ALT})\s+(?:named|called)\s+)(?P<name>{NAME})"
)
_RELATIVE_LIST = re.compile(
    rf"(?i:\b(?:I|we)\s+have\s+(?:two|three|four|five|\d)\s+(?P<rel>{REL_ALT})s?\s*(?:[,:\u2014-]|named|called)\s*)"
    rf"(?P<names>{NAME}(?:\s*,\s*{NAME})*,?\s+(?i:and)\s+{NAME})"
)
_CALLED = re.compile(rf"^(?i:{ADV}is\s+called\s+)(?P<name>{NAME})(?=$|[\s.,!?])")
_GOES_BY = re.compile(
    rf"^(?i:{ADV}(?:goes\s+by|prefers\s+to\s+be\s+(?:called|addressed\s+as)|would\s+like\s+to\s+be\s+called|"
    r"likes\s+to\s+be\s+called|wants\s+to\s+be\s+called|prefers\s+being\s+called|would\s+prefer\s+to\s+be\s+called|"
    rf"asks\s+to\s+be\s+called)\s+)(?P<name>{TITLED_NAME})(?=$|[\s.,!?])"
)
# "call me Sam", "everyone calls me Jo", "address me as Dr. Lee" (not "don't call me …").
_CALL_ME = re.compile(
    rf"(?<![\w'])(?i:calls?|address|refer\s+to)\s+(?i:me|the\s+user)\s+(?:(?i:as)\s+)?(?P<name>{TITLED_NAME})"
    r"(?=$|[\s.,!?])"
)
_NOT_CALLED = re.compile(r"(?i)(?:\bnot|n't|\bnever|\bstop|\bno\s+one|\bnobody)\s+(?:\w+\s+)?$")
_NICKNAME = re.compile(
    rf"(?:^|(?i:\b(?:my|the\s+user's|user's)\s+))(?i:nick\s*name\s+is\s+)(?P<name>{TITLED_NAME})(?=$|[\s.,!?])"
)
_MY_NAME = re.compile(
    rf"(?:^|(?i:\b(?:my|the\s+user's|user's|our)\s+)|(?i:^the\s+(?=name's)))(?i:(?:full\s+|first\s+|real\s+|given\s+)?"
    rf"name(?:\s+is|'s)\s+)(?P<name>{NAME})(?=$|[\s.,!?])"
)
_IM_NAME = re.compile(rf"^I'm\s+(?P<name>{NAME})$")
_BLOOD_TYPE = re.compile(
    r"(?i)(?:^|\b(?:my|the\s+user's|user's)\s+)blood\s+(?:type|group)\s+is\s+"
    r"(?P<bt>(?:AB|A|B|O)\s*(?:positive|negative|pos|neg|\+|-))"
)
_BIRTHDAY = re.compile(r"(?i)(?:^|\b(?:my|the\s+user's|user's)\s+|^'s\s+)birthday\s+is\s+(?P<when>.+)$")
_BORN_ON = re.compile(rf"(?i)^{ADV}was\s+born\s+on\s+(?P<when>.+)$")


def _personal(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    match = _MARITAL.match(predicate)
    if match:
        status = match.group("status").lower()
        partner = re.match(rf"\s+to\s+(?P<name>{NAME})", match.group("rest"))
        status += f" to {partner.group('name')}" if partner else ""
        return [_fact(who, "marital_status", f"{who.label} is {status}.", "relationship", importance=0.6,
                      incidental=match.group("verb").lower() == "got")]  # fmt: skip
    match = _BORN_ON.match(predicate)
    if match:
        return _birthday(who, match.group("when"), ctx, born=True)
    if who.user:
        match = _CALLED.match(predicate)
        if match and match.group("name").split()[0].lower() not in NOT_NAMES:
            return [
                _fact(who, "name", f"The user's name is {match.group('name')}.", "profile", importance=0.8)
            ]
        match = _GOES_BY.match(predicate)
        if match and match.group("name").split()[0].lower() not in NOT_NAMES:
            content = f"The user prefers to be called {match.group('name')}."
            return [_fact(who, "preferred_name", content, "profile", importance=0.8)]
    return []


def _birthday(who: Who, text: str, ctx: _Context, *, born: bool = False) -> list[Fact]:
    when = find_date(text, ctx.today, future=True)
    if when is None or when.precision != "day":
        return []
    groups = when.match.groupdict()
    has_year = bool(groups.get("md_year") or groups.get("dm_year") or groups.get("iso"))
    if born and has_year:
        content = f"{who.label} was born on {when.day.isoformat()}."
    else:
        content = f"{who.label}'s birthday is {MONTH_NAMES[when.day.month - 1]} {when.day.day}."
    return [_fact(who, "birthday", content, "profile", importance=0.6)]


def _relative_names(who: Who, predicate: str) -> list[Fact]:
    """ "'s name is Mei", "is called Leo", "is Mei" after "my wife"."""
    match = re.match(
        rf"^(?:(?:'s|s)\s+name\s+is|(?i:is\s+(?:called|named)|called|named|is))\s+(?P<name>{NAME})"
        r"(?=$|[.,;!?)]|\s+(?:and|but|who|she|he|it)\b)",
        predicate,
    )
    if not match or match.group("name").split()[0].lower() in NOT_NAMES:
        return []
    return [_name_fact(who, match.group("name"))]


def _name_fact(who: Who, name: str, *, incidental: bool = False) -> Fact:
    """ "The user's daughter is named Mia." under family.daughter.mia (a partner: family.wife)."""
    key = _relative(who.word, name).key
    content = f"The user's {who.word} is named {name}."
    return _fact(USER, key, content, "relationship", importance=0.6, incidental=incidental)


def _names(clause: _Clause, ctx: _Context) -> list[Fact]:
    """The user's name and preferred name; a relative's name said in passing."""
    raw = clause.raw
    found: list[Fact] = []
    my_name = _MY_NAME.search(raw) if clause.possessive or not clause.predicate else None
    if my_name and _is_name(my_name.group("name")):
        found.append(
            _fact(USER, "name", f"The user's name is {my_name.group('name')}.", "profile", importance=0.8)
        )
    call_me = _CALL_ME.search(raw) or _NICKNAME.search(raw)
    if call_me and _is_name(call_me.group("name")) and not _NOT_CALLED.search(raw[: call_me.start()]):
        content = f"The user prefers to be called {call_me.group('name')}."
        found.append(_fact(USER, "preferred_name", content, "profile", importance=0.8))
    bare = _GREETING_TAIL.sub("", _LEAD_WORDS.sub("", raw).strip(" ,.!"))
    im_name = _IM_NAME.match(bare)
    if im_name and not found and _is_name(im_name.group("name")):
        found.append(
            _fact(USER, "name", f"The user's name is {im_name.group('name')}.", "profile", importance=0.8)
        )
    who = clause.who
    if who is not None and who.name:
        found.append(_name_fact(who, who.name, incidental=True))
    match = _HAS_RELATIVE.match(clause.predicate) if who is USER else None
    if match:
        found.append(_name_fact(_relative(match.group("rel")), match.group("name")))
        ctx.frame = (USER, "has ", "have")  # "… and a dog named Rex"
    return found


def _is_name(name: str) -> bool:
    """A name, not a nationality or a state ("Italian-American", "Ready")."""
    return not any(part.lower() in NOT_NAMES for part in re.split(r"[\s-]+", name))


_GREETING_TAIL = re.compile(r"(?i)\s+(?:by\s+the\s+way|btw|here|again|lol|haha)$")


def _possessions(raw: str, ctx: _Context) -> list[Fact]:
    """ "My blood type is …", "my birthday is …", "my new job is at …"."""
    match = _BLOOD_TYPE.search(raw)
    if match:
        blood = re.sub(r"\s+", " ", match.group("bt"))
        return [_safety(USER, "health.blood_type", f"The user's blood type is {blood}.")]
    match = _BIRTHDAY.search(raw)
    if match:
        return _birthday(USER, match.group("when"), ctx)
    match = _MY_JOB.search(raw)
    if match and _is_org(match.group("org")):
        return [_fact(USER, "employer", f"The user works at {_org(match.group('org'))}.", "profile")]
    return []


def _birthday_of(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    match = re.match(r"^(?:'s|s)\s+birthday\s+is\s+(?P<when>.+)$", predicate, re.I)
    return _birthday(who, match.group("when"), ctx) if match else []
