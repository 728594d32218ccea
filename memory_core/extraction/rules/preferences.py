"""English preference rules: a standing taste is kept, a one-off request ("I'd like X today") is not."""

from __future__ import annotations

import re

from memory_core.extraction.rules.clauses import _LEAD_WORDS
from memory_core.extraction.rules.facts import Who, _Clause, _Context, _fact
from memory_core.reading.normalise import NO_TOPIC_START, clean_object, slug, third_person
from memory_core.reading.words import ADV, Fact

_PREFERENCE = re.compile(
    rf"(?i)^{ADV}(?P<verb>prefers|likes|loves|enjoys|hates|dislikes|detests|adores|does\s+not\s+like|"
    r"do\s+not\s+like|cannot\s+stand|can\s+not\s+stand|is\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?fan\s+of|"
    r"is\s+not\s+(?:a\s+|much\s+of\s+a\s+)?(?:big\s+|huge\s+)?fan\s+of|does\s+not\s+enjoy|"
    r"would\s+like|wants|would\s+prefer|would\s+rather|will\s+have|will\s+take|needs|is\s+into|"
    r"is\s+not\s+into|favou?rs)\s+(?P<what>.+)$"
)
_PREFERENCE_VERBS = {
    "prefers": "prefers",
    "likes": "likes",
    "loves": "loves",
    "enjoys": "enjoys",
    "hates": "hates",
    "dislikes": "dislikes",
    "detests": "detests",
    "adores": "adores",
    "does not like": "does not like",
    "do not like": "does not like",
    "cannot stand": "cannot stand",
    "can not stand": "cannot stand",
    "does not enjoy": "does not enjoy",
    "is into": "is into",
    "is not into": "is not into",
    "favors": "favours",
    "favours": "favours",
}
_REQUEST_VERBS = ("would like", "wants", "would prefer", "would rather", "will have", "will take", "needs")
_STANDING = re.compile(
    r"(?i)\b(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|in\s+general|generally|always|"
    r"usually|every\s+time|whenever|by\s+default|as\s+a\s+rule|normally|typically)\b"
)
_ONE_OFF = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|this\s+time|this\s+once|just\s+once|right\s+now|for\s+now|"
    r"(?:this|that)\s+(?:one|morning|afternoon|evening|week|weekend|trip|order|round|meal|visit|year|month)|"
    r"the\s+\w+\s+one|for\s+(?:this|today|tonight|the\s+trip|my\s+trip)|tonight's|today's|next\s+time|"
    r"instead|in\s+\w+\s+this\s+time)\b|\bnow\s*$"
)
_STANDING_TAIL = re.compile(
    r"(?i)(?:\s+(?:in\s+general|generally|usually|from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|"
    r"by\s+default|normally|typically|always|every\s+time))+$"
)


def _preferences(who: Who, predicate: str, ctx: _Context, lead: str) -> list[Fact]:
    if not who.user:
        return []
    match = _PREFERENCE.match(predicate)
    if not match:
        return []
    verb = re.sub(r"\s+", " ", match.group("verb").lower())
    what = clean_object(match.group("what"))
    whole = f"{lead} {predicate}"
    if re.match(
        r"(?i)^(?:to\s+be\s+(?:called|named|addressed)|not\s+to\s+(?:say|answer|share|tell|discuss|comment))\b",
        what,
    ):
        return []
    standing = bool(_STANDING.search(whole))
    if _ONE_OFF.search(whole) or _ONE_OFF.search(what):
        return []
    if verb in _REQUEST_VERBS:
        if not standing:
            return []
        phrase = "always wants" if re.search(r"(?i)\balways\s+wants\b", predicate) else "prefers"
    elif verb.startswith("is") and "fan of" in verb:
        phrase = re.sub(r"\s+", " ", verb)
    else:
        phrase = _PREFERENCE_VERBS.get(verb, verb)
    what = _STANDING_TAIL.sub("", what).strip()
    what = (
        re.sub(r"(?i)^to\s+", "", what) if verb in _REQUEST_VERBS and what.lower().startswith("to ") else what
    )
    first = what.split()[0].lower() if what else ""
    topic = slug(what, words=3)
    if not topic or first in NO_TOPIC_START:
        return []
    statement = f"{who.label} {phrase} {third_person(what, possessive='their')}."
    ctx.frame = (who, predicate[: len(predicate) - len(match.group("what"))], "preference")
    return [_fact(who, f"preference.{topic}", statement, "preference", importance=0.5)]


_REQUEST_LEAD = re.compile(
    r"(?i)^(?:please|can\s+(?:i|you|we)|could\s+(?:i|you|we)|would\s+you|will\s+you|let's|let\s+me|i'd\s+like|"
    r"i\s+would\s+like|i\s+want|i'll\s+have|i\s+need|give\s+me|get\s+me|book|make|send|show|tell|find|remind)\b"
)


def _is_request(clause: _Clause) -> bool:
    """ "Please …", "Can you …", "I'd like …": asked now, not a fact to keep."""
    raw = _LEAD_WORDS.sub("", clause.raw)
    return bool(_REQUEST_LEAD.match(raw)) and not _STANDING.search(raw)
