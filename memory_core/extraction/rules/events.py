"""Identifiers and events: an order or ticket named is a task state; a dated happening or a
past action naming an identifier is an event with its date resolved."""

from __future__ import annotations

import re
from datetime import date

from memory_core.extraction.rules.clauses import _we_to_i
from memory_core.extraction.rules.facts import USER, _Clause, _fact
from memory_core.reading.dates import MONTH_NAMES, When, find_date, is_past
from memory_core.reading.normalise import as_sentence, third_person
from memory_core.reading.words import ADV, ID_KINDS, IDENTIFIER, PAST_TENSE, Fact, word_set


def _identifiers(clause: _Clause) -> list[Fact]:
    text = clause.raw
    match = IDENTIFIER.search(text)
    if match is None:
        return []
    kind = ID_KINDS[match.group("kind").split()[0].lower()]
    ident = match.group("id").replace(" ", "")
    key = f"{kind}.{re.sub(r'[^a-z0-9]+', '_', ident.lower()).strip('_')}"
    before = text[: match.start()].strip()
    after = text[match.end() :].strip()
    if clause.who is not None and clause.who.user and clause.predicate and not clause.fragment:
        content = f"{clause.who.label} {clause.predicate}"
    else:
        lead = re.sub(r"(?i)^(?:(?:and|but|so|also|oh|btw|well|plus|ok|okay)\s+)*", "", before)
        if not re.fullmatch(r"(?i)(?:my|our|the\s+user's|user's|the|a)?", lead.strip()):
            return []
        phrase = text[match.start() : match.end()]
        verbless = not re.search(r"(?i)\b(?:is|was)\b|=", phrase) and (
            not after or re.match(r"(?i)^(?:for|on|at|from|to|in|with|\()\b", after)
        )
        head = text[match.start() : match.start("id")].strip(" :=(")
        head = head[0].lower() + head[1:]
        if verbless:
            tail = f" ({after.strip('()')})" if after else ""
            content = f"The user's {head} is {ident}{tail}"
        else:
            content = f"The user's {third_person(text[match.start() :], possessive='their')}"
            content = content[:11] + content[11].lower() + content[12:]
    return [_fact(USER, key, as_sentence(content), "task_state", importance=0.6, type_="episodic")]


# Past verbs that begin a state rather than an event ("I moved to …" is where the user lives).
_STATE_VERBS = word_set(
    "was were had used based married retired moved relocated grew joined started quit left became got "
    "stopped diagnosed prescribed"
)


def _past_action(clause: _Clause, today: date) -> bool:
    """A first-person past action with a date or an identifier ("Yesterday I booked flight CA1234"):
    an event, even when it names an order or a ticket."""
    if clause.who is not USER or not clause.predicate or clause.fragment:
        return False
    head = re.match(rf"(?i)^{ADV}(?P<verb>[a-z]+)", clause.predicate)
    verb = head.group("verb").lower() if head else ""
    if verb in _STATE_VERBS or not ((verb.endswith("ed") and not verb.endswith("eed")) or verb in PAST_TENSE):
        return False
    return bool(find_date(clause.raw, today) or IDENTIFIER.search(clause.raw))


_MOMENT = ("today", "this morning", "this afternoon", "this evening", "tonight")


def _not_an_event(clause: _Clause, when: When) -> bool:
    """ "I'm tired today", "I'm on vacation until Monday", "I'd rather … today": a state or a
    request of the moment, not something that happens on a date."""
    if (when.match.group("rel") or "").lower() in _MOMENT:
        return True
    predicate = clause.predicate
    if clause.who is USER and re.match(
        rf"(?i)^{ADV}(?:is|feels?|seems?)\s+(?!going\b)(?![a-z]+ing\b)", predicate
    ):
        return True
    return bool(
        re.match(
            rf"(?i)^{ADV}(?:would\s+like|wants|would\s+rather|would\s+prefer|needs|will\s+have)\b", predicate
        )
    )


_EVENT_LEAD = re.compile(r"^\W*(?:(?:also|so|and|oh|btw|well|then|anyway)\b\W*)*")


def _event(clause: _Clause, today: date, *, past_action: bool, remembered: bool) -> Fact | None:
    """A dated event ("I had knee surgery on October 3", "My daughter starts school in September"),
    or a past action naming an identifier, dated the day it was said."""
    raw = clause.raw
    if clause.fragment or (clause.who is None and not re.search(r"(?i)\b(?:my|our|I|we)\b", raw)):
        return None
    # An explicit "remember that …" of a plan is kept as said, not as an event that expires.
    if remembered and not past_action:
        return None
    when = find_date(raw, today, future=not is_past(raw))
    if when is None:
        if not (past_action and IDENTIFIER.search(raw)):
            return None
        day, text = today, f"on {today.isoformat()} {_EVENT_LEAD.sub('', raw)}"
    elif not past_action and _not_an_event(clause, when):
        return None
    else:
        day = when.day
        start, end = when.match.span()
        if _EVENT_LEAD.sub("", raw[:start]).strip():
            after_preposition = re.search(
                r"(?i)\b(?:to|until|till|before|after|by|from|since|starting)\s*$", raw[:start]
            )
            text = (
                raw[:start] + _date_replacement(when, bare=bool(after_preposition)) + raw[end:]
            )  # "… on 2026-10-03"
        else:
            text = f"{when.phrase()} {_EVENT_LEAD.sub('', raw[end:])}"  # "On 2026-11-19 the user …"
    possessive = "their" if clause.first_person else "the user's"
    content = third_person(_we_to_i(text.strip(" ,;:.!")), possessive=possessive).strip()
    if len(content.split()) < 3:
        return None
    return {
        "type": "episodic",
        "category": "event",
        "content": as_sentence(content),
        "valid_from": day.isoformat(),
        "importance": 0.6,
        "confidence": 0.9,
    }


def _date_replacement(when: When, *, bare: bool = False) -> str:
    """The date phrase as written in a statement: "on 2026-10-03", "from 2026-12-10", "in June 2027";
    only the date after a preposition of its own ("moving it to 2026-11-26")."""
    if bare:
        return (
            f" {when.day.isoformat()}"
            if when.precision == "day"
            else f" {MONTH_NAMES[when.day.month - 1]} {when.day.year}"
        )
    prep = (when.match.group("prep") or "").strip().lower()
    if when.precision == "month":
        return f" {prep if prep and prep != 'on' else 'in'} {MONTH_NAMES[when.day.month - 1]} {when.day.year}"
    return f" {prep if prep and prep != 'in' else 'on'} {when.day.isoformat()}"
