"""The people the user looks after at work or in a club, said as such: "One of my players, Jayden,
has asthma", "I teach Year 6 and one of my pupils, Ayaan, …", "Regular customer, Mr Lindqvist, is
coeliac", "我们班有个学生叫乐乐". Recorded as a relation of the user's (`Predicate.OTHER`, labelled
with the role: "pupil", "player", "patient"), so that whose condition a later "Jayden forgot his
inhaler again" tells is read as someone else's (`people_known`), not as the user's child's.

Only a name said right beside the role word is read ("my pupil Ayaan", "Ayaan, one of my pupils");
"my kids" is the user's children, not a class.
"""

from __future__ import annotations

import re

from memory_core.entities.rules import _NAME, SELF, Reading, Ref, Triple, _is_name, _strip_openers
from memory_core.entities.rules_zh import _ZH_AFTER_NAME, _ZH_NAME, _ZH_NAME_CHAR, _ZH_STOP, _ZH_SURNAMES
from memory_core.entities.vocabulary import Predicate
from memory_core.entities.zh_forms import as_mandarin, as_written

# Role word → the label recorded.
_EN_ROLES = {
    "pupil": "pupil", "student": "pupil", "learner": "pupil", "tutee": "pupil", "mentee": "pupil",
    "player": "player", "swimmer": "player", "gymnast": "player", "runner": "player", "scout": "player",
    "camper": "player", "patient": "patient", "resident": "patient", "client": "client",
    "customer": "client", "regular": "client", "service user": "client",
}  # fmt: skip
_ROLE = r"(?P<role>" + "|".join(sorted(_EN_ROLES, key=len, reverse=True)) + r")s?"
# After the name: a mark, or what a sentence about a person says next ("my pupil Ayaan has…"), not
# a noun the name was a word of ("my student Finance application", "our customer Service team").
_NAME_ENDS = (
    r"(?=\s*(?:[,.;:!?)]|$)|\s+(?:is|has|had|was|who|and|said|says|told|gets|got|can|can't|cannot|will|"
    r"needs?|uses?|takes?|keeps?|forgot|left)\b|'s\b)"
)
_EN_SERVED = re.compile(
    # "one of my players, Jayden", "my pupil Ayaan has…", "a new student of mine, Priya": whose they
    # are said ("I'm a student, Mum says…", "As a patient, Dad…" say no one's)
    rf"(?i:\b(?:one\s+of\s+(?:my|our)|my|our)\s+(?:(?:new|regular|young|little|older)\s+)?){_ROLE}"
    rf"(?:\s+(?i:this\s+(?:year|term|season)))?\s*,?\s+(?P<name>{_NAME}){_NAME_ENDS}"
    # "Ayaan, one of my pupils,", "Mr Okafor, a patient of mine"
    rf"|(?P<name2>{_NAME}),\s+(?i:one\s+of\s+(?:my|our)|my|our|an?(?=\s+\w+\s+of\s+mine))\s+"
    rf"(?:(?i:new|regular)\s+)?{_ROLE.replace('role', 'role2')}\b"
    # "Regular customer, Mr Lindqvist, …" at a sentence's start
    rf"|(?:^|(?<=[.!?]\s))(?i:(?:regular\s+)?(?P<role3>customer|client|patient|resident))\s*,\s+"
    rf"(?P<name3>{_NAME}),"
)
_ZH_ROLES = {
    "学生": "pupil", "学员": "pupil", "小朋友": "pupil", "队员": "player", "球员": "player",
    "病人": "patient", "患者": "patient", "住户": "patient", "客户": "client", "顾客": "client",
    "熟客": "client",
}  # fmt: skip
_ZH_ROLE = "|".join(sorted(_ZH_ROLES, key=len, reverse=True))
_ZH_MINE = "|".join(sorted(set(_ZH_ROLES) - {"小朋友"}, key=len, reverse=True))
# A name said without 叫 must look like one: a surname and one or two more, 阿/老 and one or two, a
# doubled character ("我的病人王伯"; not "我的顾客都很好", "我的学生证丢了").
_ZH_LOOKS_NAMED = (
    rf"(?:[{_ZH_SURNAMES}]{_ZH_NAME_CHAR}{{1,2}}?|[阿老]{_ZH_NAME_CHAR}{{1,2}}?|(?P<zr>{_ZH_NAME_CHAR})(?P=zr))"
    rf"(?=今天|昨天|明天|最近|刚|又|上周|下周|这周|[{_ZH_STOP}]|{_ZH_AFTER_NAME})"
)
# Where the user works with people who are not theirs: a class, a team, a ward, a shop (longest first).
ZH_WORK_PLACES = "班上|班里|队里|队上|科室|科里|病房|组里|店里|班"
_ZH_SERVED = re.compile(
    # "我们班有个学生叫乐乐", "我班上有个小朋友叫…", "队里有个队员叫阿杰": a class, a team, a ward, a
    # shop of the user's; or "我的病人王伯" ("我的小朋友" may be the user's own child: only in a class)
    rf"(?:(?:我们|我)(?:{ZH_WORK_PLACES})(?:的|有个|有一个|有位|有一位)(?P<zrole>{_ZH_ROLE})"
    rf"|(?:我们|我)的(?P<zrole2>{_ZH_MINE}))"
    rf"(?:(?:叫做|名叫|叫)\s?(?P<zname>{_ZH_NAME})|\s?(?P<zname2>{_ZH_LOOKS_NAMED}))"
)


def read_served(text: str, reading: Reading, *, chinese: bool = False) -> None:
    """Add to `reading` the people the user says they serve at work or in a club."""
    plain = text.replace("\u2019", "'")
    for match in _EN_SERVED.finditer(plain):
        name = match.group("name") or match.group("name2") or match.group("name3")
        role = (match.group("role") or match.group("role2") or match.group("role3")).lower()
        name = _strip_openers(name)
        if _is_name(name):
            _serves(reading, Ref(name=name), _EN_ROLES[role])
    if not chinese:
        return
    folded = as_mandarin(text)
    for match in _ZH_SERVED.finditer(folded):
        name = as_written(match.group("zname") or match.group("zname2"), folded, text)
        _serves(reading, Ref(name=name), _ZH_ROLES[match.group("zrole") or match.group("zrole2")])


def _serves(reading: Reading, person: Ref, label: str) -> None:
    if any(ref.name == person.name and ref.kin for ref in reading.refs):
        return  # "my son Jayden": the user's kin, whatever else is said of him
    reading.add(Triple(SELF, Predicate.OTHER, label, object=person))


SERVED_LABELS = frozenset(_EN_ROLES.values()) | frozenset(_ZH_ROLES.values())
