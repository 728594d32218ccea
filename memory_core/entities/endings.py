"""The words that end a relation ("we divorced", "I left my job at Acme", "moved out of Leeds",
离婚, 辞职, 搬走), English and Chinese, as patterns for `rules`: each names the predicates it
ends, and may name the other end (group `obj`, `org` or `place`). Without one, the subject's
current relation of that predicate ends. A leaf module: `rules` builds the patterns with its own
subject and name patterns (`english_endings`), so that both read a subject alike.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from memory_core.entities.vocabulary import EntityKind, Predicate

_PARTNERS = (Predicate.SPOUSE, Predicate.PARTNER)


class Ending(NamedTuple):
    pattern: re.Pattern[str]
    predicates: tuple[str, ...]
    kind: str  # of the other end, when the pattern names it


def english_endings(subject: str, name: str, org: str, place: str) -> list[Ending]:
    """The English patterns; `subject` must hold a group `subj` (see `rules._SUBJECT`)."""
    had = r"(?i:(?:got\s+|is\s+|am\s+|was\s+|were\s+|are\s+|have\s+|has\s+|had\s+|finally\s+|recently\s+)*)"
    job = r"(?i:(?:my|his|her|their|our)\s+(?:old\s+)?(?:job|position|role|post))"
    return [
        Ending(
            re.compile(rf"(?P<obj>{name})\s+(?i:and\s+I)\s+{had}(?i:divorced|separated)\b"), _PARTNERS[:1], ""
        ),
        Ending(
            re.compile(rf"{subject}\s+{had}(?i:divorced|separated)(?:\s+(?i:from\s+)?(?P<obj>{name}))?"),
            _PARTNERS[:1],
            EntityKind.PERSON,
        ),
        Ending(re.compile(rf"(?P<obj>{name})\s+(?i:and\s+I)\s+{had}(?i:broke|split)\s+up\b"), _PARTNERS, ""),
        Ending(
            re.compile(rf"{subject}\s+{had}(?i:broke|split)\s+up(?:\s+(?i:with)\s+(?P<obj>{name}))?"),
            _PARTNERS,
            EntityKind.PERSON,
        ),
        Ending(
            re.compile(
                rf"{subject}\s+{had}(?i:left|quit|resigned\s+from|retired\s+from|was\s+laid\s+off\s+from|"
                rf"was\s+fired\s+from|stopped\s+working\s+(?:at|for)|no\s+longer\s+works?\s+(?:at|for))\s+"
                rf"(?:{job}\s+(?i:at|with|in)\s+)?(?P<org>{org})"
            ),
            (Predicate.WORKS_AT,),
            EntityKind.ORGANISATION,
        ),
        Ending(
            re.compile(rf"{subject}\s+{had}(?i:(?:left|quit)\s+{job}|resigned|retired|was\s+laid\s+off)\b"),
            (Predicate.WORKS_AT,),
            "",
        ),
        Ending(
            re.compile(
                rf"{subject}\s+{had}(?i:moved\s+(?:out\s+of|away\s+from)|no\s+longer\s+lives?\s+in|"
                rf"(?:don't|doesn't|do\s+not|does\s+not)\s+live\s+in)\s+(?:the\s+)?(?P<place>{place})"
            ),
            (Predicate.LIVES_IN,),
            EntityKind.PLACE,
        ),
    ]


_STOP = "\uff0c\u3002,.!\uff01\uff1f?\uff1b;\uff1a:\u3001\\s"
# A name only where a word may start (not "个月我" in "上个月我离婚了", nor "年我" in "2015年我…").
_ZH_WHO = (
    r"(?P<zwho>我们?|(?<![\u4e00-\u9fffA-Za-z])(?![年月日号])(?:[A-Z][A-Za-z'-]*|[\u4e00-\u9fff]{2,3}?))"
)
_ZH_OTHER = r"(?P<obj>[A-Z][A-Za-z'-]*|[\u4e00-\u9fff]{1,4}?)"
_ZH_THING = rf"[^{_STOP}从和跟与]{{1,20}}?"
# When, said between who and what they did: "我和郑浩然2016年离婚了".
ZH_WHEN = r"(?:\d{2,4}年|去年|今年|前年|后来|终于|已经|最近|又|再|也|刚)*"

ZH_ENDINGS = [
    Ending(
        re.compile(rf"{_ZH_WHO}{ZH_WHEN}(?:和|跟|与|同){_ZH_OTHER}{ZH_WHEN}离了?婚"),
        _PARTNERS[:1],
        EntityKind.PERSON,
    ),
    Ending(re.compile(rf"{_ZH_WHO}{ZH_WHEN}离了?婚"), _PARTNERS[:1], ""),
    Ending(
        re.compile(rf"{_ZH_WHO}{ZH_WHEN}(?:和|跟|与|同){_ZH_OTHER}{ZH_WHEN}分手"),
        _PARTNERS,
        EntityKind.PERSON,
    ),
    Ending(re.compile(rf"{_ZH_WHO}{ZH_WHEN}分手"), _PARTNERS, ""),
    Ending(
        re.compile(rf"{_ZH_WHO}{ZH_WHEN}从(?P<org>{_ZH_THING})(?:辞职|离职|退休)"),
        (Predicate.WORKS_AT,),
        EntityKind.ORGANISATION,
    ),
    Ending(
        re.compile(rf"{_ZH_WHO}{ZH_WHEN}(?:辞去了?|离开了?)(?P<org>{_ZH_THING})的(?:工作|职位)"),
        (Predicate.WORKS_AT,),
        EntityKind.ORGANISATION,
    ),
    Ending(re.compile(rf"{_ZH_WHO}{ZH_WHEN}(?:辞职|离职|退休)"), (Predicate.WORKS_AT,), ""),
    Ending(
        re.compile(rf"{_ZH_WHO}{ZH_WHEN}从(?P<place>{_ZH_THING})(?:搬走|搬出|搬了出)"),
        (Predicate.LIVES_IN,),
        EntityKind.PLACE,
    ),
    Ending(
        re.compile(rf"{_ZH_WHO}{ZH_WHEN}(?:搬出了?|搬离了?)(?P<place>[^{_STOP}了]{{1,12}})"),
        (Predicate.LIVES_IN,),
        EntityKind.PLACE,
    ),
]
