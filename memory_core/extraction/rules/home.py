"""English predicate rules for home: where the user lives, moved to, left, or is from."""

from __future__ import annotations

import re

from memory_core.extraction.rules.facts import Who, _Context, _fact, _negation
from memory_core.reading.dates import find_date
from memory_core.reading.words import ADV, PLACE, Fact

_LIVES = re.compile(
    rf"^(?i:{ADV}(?:lives|resides|is\s+{ADV}living|is\s+staying|has\s+lived|has\s+been\s+living|"
    rf"is\s+{ADV}based|is\s+located|is\s+settled)\s+(?P<prep>in|out\s+of|near|outside(?:\s+of)?|just\s+outside(?:\s+of)?|"
    rf"close\s+to|in\s+the\s+suburbs\s+of)\s+)(?P<place>(?:the\s+)?{PLACE})"
)
_MOVED = re.compile(
    rf"^(?i:{ADV}(?:has\s+)?{ADV}(?:moved|relocated)(?:\s+(?:back|house|over))?\s+(?:back\s+)?(?:to|into)\s+"
    rf"(?:the\s+)?)(?P<place>{PLACE})"
)
# "relocated from Berlin to Munich" is a home; "moved from Contoso to Fabrikam" may be a job change.
_RELOCATED_FROM = re.compile(
    rf"^(?i:{ADV}(?:has\s+)?{ADV}relocated\s+from\s+(?:the\s+)?){PLACE}(?i:\s+to\s+(?:the\s+)?)(?P<place>{PLACE})"
)
_HOME_ENDED = re.compile(
    rf"^(?i:{ADV}(?:moved\s+away\s+from|moved\s+out\s+of|left)\s+(?:the\s+)?)(?P<place>{PLACE})"
)
_HOMETOWN = re.compile(
    rf"^(?i:{ADV}(?P<verb>grew\s+up|was\s+raised|was\s+born|is\s+{ADV}from|comes\s+from|hails\s+from)\s+"
    rf"(?:in\s+)?)(?P<place>(?:the\s+)?{PLACE})"
)


def _home(who: Who, predicate: str, ctx: _Context) -> list[Fact]:
    negation, p = _negation(predicate)
    match = _MOVED.match(predicate) or _RELOCATED_FROM.match(predicate)
    if match:
        place = match.group("place").rstrip(".")
        when = find_date(predicate[match.end() :], ctx.today) or find_date(ctx.sentence, ctx.today)
        if when:
            moved = "in" if when.precision == "month" else "on"
            text = when.phrase().split(" ", 1)[1]
            content = f"{who.label} lives in {place} (moved there {moved} {text})."
            return [_fact(who, "home_city", content, "profile", valid_from=when.day.isoformat())]
        return [_fact(who, "home_city", f"{who.label} moved to {place} and lives there now.", "profile")]
    match = _LIVES.match(p)
    if match:
        place = match.group("place").rstrip(".")
        prep = re.sub(r"\s+", " ", match.group("prep").lower()).replace("out of", "in")
        if negation == "not":
            return [_fact(who, "", f"{who.label} does not live {prep} {place}.", "profile")]
        if negation:
            return [_fact(who, "home_city", f"{who.label} no longer lives {prep} {place}.", "profile")]
        return [_fact(who, "home_city", f"{who.label} lives {prep} {place}.", "profile")]
    match = _HOME_ENDED.match(predicate)
    if match and re.match(rf"(?i)^{ADV}moved", predicate):
        place = match.group("place").rstrip(".")
        return [_fact(who, "home_city", f"{who.label} no longer lives in {place}.", "profile")]
    match = _HOMETOWN.match(predicate)
    if match:
        place = match.group("place").rstrip(".")
        verb = re.sub(r"\s+", " ", match.group("verb").lower())
        verb = "is from" if verb.startswith("is") or verb.endswith(" from") else verb
        connector = "" if verb == "is from" else " in"
        return [_fact(who, "hometown", f"{who.label} {verb}{connector} {place}.", "profile")]
    return []
