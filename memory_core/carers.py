"""Rules told to whoever looks after someone for the user: a babysitter, a grandparent, a helper, a
teacher, a coach, the holiday club's staff. A rule telling one of them how to care for a named person
("whenever you babysit him", "Ustadh, Yusuf is on Epilim for his epilepsy, so please…", "Kak Siti 注意…
阿嬷每天早上打 insulin") is about someone in the user's care, however unsure the safety model is of
whose condition it rests on: the model reads "Yusuf is on Epilim" alone as anyone's.

The carer may be named after the condition ("…, so whenever you babysit him") or addressed before it
(an address of a few words, then a colon or a comma).
"""

from __future__ import annotations

import re

from memory_core.judgement.clauses import CLAUSE_END
from memory_core.reading.words import GRANDPARENTS_SAID_OTHERWISE, alternation

# Grandparents as English says them and as families say them in other languages (`reading.words`):
# a grandparent who minds the children is told the rules as any carer is.
_GRANDPARENTS = alternation(
    ["grandma", "grandpa", "granny", "grandad", "granddad", "gran", "nana", "nan"]
    + [re.escape(word).replace("_", r"\s+") for word in GRANDPARENTS_SAID_OTHERWISE]
)
# Where a child is minded: its staff are the child's carers for the day ("the holiday club staff").
_CHILD_SETTING = (
    r"(?:holiday|after[\s-]?school|breakfast|nursery|cr[eè]che|day\s*care|pre-?school|kindergarten|kindy"
    r"|sunday\s+school|madras(?:a|ah)|swim(?:ming)?|camp|club|school|tuition|scout|brownies|cubs|beavers)"
)
_NAME = r"[a-z][a-z-]*"  # a name after a title (ASCII: "Kak Mei怀孕" is no address to Kak Mei怀孕)
# Who minds a child or a parent, whether named after a rule's condition or addressed before it; after
# it ("…, so whenever you babysit him", "…, 阿姨做饭时…") also a teacher or one by title (a coach or a
# tutor told of a player is as often the club's).
_MINDERS = (
    rf"babysit\w*|nann(?:y|ies)|childminders?|au\s+pairs?|carers?|caregivers?|sitters?|coach|{_GRANDPARENTS}"
)
_EN_CARER = rf"{_MINDERS}|teachers?|(?:miss|mrs?)\s+{_NAME}"
# A teacher by title and name: as an address it is greeted, or the rule goes on with whom it is about
# ("Ms Chen, Rory has separation anxiety"); "Mr Tan, seat 3 on Thursdays, is allergic…" is its subject.
_TITLED = rf"(?:miss|mrs?|ms)\.?\s+{_NAME}"
_GREETED = re.compile(rf"(?i)^\W*(?:hi|hey|hello|dear|morning|to)\W+{_TITLED}\W*$")
_ABOUT_SOMEONE = re.compile(
    r"[A-Z][a-z]+(?:'s\b|\s+(?:is|has|was|gets|needs|can|can't|will|won't|takes|uses|must|should|isn't|doesn't)\b)"
)
_ZH_CARER = (
    r"阿姨|保姆|月嫂|奶奶|爷爷|爺爺|姥姥|姥爷|姥爺|外婆|外公|婆婆|老师|老師|教练|教練|托管|工人姐姐"
    r"|护工|護工|看护|看護|钟点工|鐘點工"
)
CARER = re.compile(rf"(?i)\b(?:{_EN_CARER})\b|{_ZH_CARER}")
# Whom a rule may be addressed to besides: words that name a carer only as an address, and one of
# them ("Coach," is a parent's; "Coaches:" the club's, of its players; "helper" and "instructor" are
# as often staff at work): "Kak" and "Aunty" before a name, a helper or a minder in Malaysia and
# Singapore; "Ustadh", "Cikgu", a teacher; the staff of where a child is minded.
_EN_ADDRESSED = (
    rf"{_MINDERS}|teacher|helper|maid|instructor|tutor|ustaz\w*|ustadh\w*|cikgu|sensei"
    rf"|(?:kak(?:ak)?|aunt(?:ie|y)|cikgu|teacher|coach)\s+{_NAME}"
    rf"|(?:{_CHILD_SETTING}\s+)+(?:staff|team|leaders?|volunteers?)"
)
_ZH_ADDRESSED = rf"{_ZH_CARER}|工人|家政|帮佣|幫傭|姐姐仔"

# An address before the rule: a few words naming the carer, maybe after "to", "dear", "hi" and
# before a word asking for their attention ("To the holiday club staff:", "Ustadh,", "Kak Siti 注意：",  # noqa: RUF003
# "阿姨你好，", "Dear Miss Patel,").  # noqa: RUF003
_ADDRESS = re.compile(
    rf"(?i)^\W*(?:(?:to|for|dear|hi|hey|hello|attn|note\s+for|message\s+for)\W+)?(?:(?:the|all|our|my)\s+)?"
    rf"(?:[a-z]+\s+){{0,2}}?(?:{_EN_ADDRESSED})"
    r"(?:\s*(?:你好|您好|注意|留意|please\s+note|note))?\W*$"
    rf"|^\W*(?:给|給|致)?\s*(?:{_ZH_ADDRESSED}|(?:{_EN_ADDRESSED})\s*)(?:你好|您好|注意|留意|请注意|請注意|须知|須知)?\W*$"
)


def an_address(lead: str) -> bool:
    """Whether a leading clause is only an address to a carer ("看護你好", "To the nursery staff"): no
    condition is stated in it."""
    return bool(_GREETED.match(lead) or _ADDRESS.match(lead))


def addressed_to_a_carer(content: str) -> bool:
    """Whether `content` opens with an address to a carer (`_ADDRESS`), before a clause end."""
    cut = next((m for m in CLAUSE_END.finditer(content) if 0 < m.start() < len(content) - 1), None)
    if cut is None:
        return False
    lead = content[: cut.start()]
    if re.fullmatch(rf"(?i)\W*{_TITLED}\W*", lead):
        return bool(_ABOUT_SOMEONE.match(content, cut.end()))
    return an_address(lead)


def names_a_carer_after(content: str) -> bool:
    """Whether a carer is named after `content`'s first clause ("…, so whenever you babysit him")."""
    cuts = [m.start() for m in CLAUSE_END.finditer(content) if 0 < m.start() < len(content) - 1]
    return bool(cuts) and bool(CARER.search(content, cuts[0]))
