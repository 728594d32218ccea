"""Slot keys without reading: the slot a statement fills (`Slot`), the key families that name one
slot ("employer", "workplace", ...), the work facets (employer and role) that replace each other, and
the words that say a value changed. Pure text; the reader-backed inference that fills a `Slot` from
a statement is `memory_core.extraction.slots`."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    key: str
    category: str
    type: str = "semantic"  # "semantic" or "episodic" (an order's or a ticket's state)
    pinned: bool = False
    importance: float = 0.5


# Keys that name one slot: a statement in any of them supersedes the current value of the others.
# The rule reader gives the first of each; the others are what an extraction model or a client may
# call the same slot ("workplace" for "employer"). A role and an employer are two slots: "works as a
# nurse" does not replace "works at Contoso" (a statement naming both is the employer's).
SLOT_FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"employer", "workplace", "company", "current_employer"}),
    frozenset({"job", "job_title", "occupation", "current_job"}),
    frozenset({"home_city", "current_city", "city_of_residence", "residence", "lives_in", "location"}),
)


def slot_family(key: str) -> tuple[str, ...]:
    """Every key of `key`'s slot family (the speaker suffix "@Ana" kept), or just `key`."""
    base, at, who = key.partition("@")
    for family in SLOT_FAMILIES:
        if base in family:
            return tuple(sorted(f"{name}{at}{who}" for name in family))
    return (key,)


# Where the user works and what they do there are two facets of one thing: "I just started a new
# job at B" ends "I work at A as an analyst" (a role at A is over when A is), but "I'm a nurse"
# says nothing of the employer and leaves it alone.
EMPLOYER_KEYS, ROLE_KEYS = SLOT_FAMILIES[0], SLOT_FAMILIES[1]
# The reader words a role held somewhere as "works as X at Y" / "在Y工作".
NAMES_WORKPLACE = re.compile(r"\bat\s+\S|\bfor\s+[A-Z]|在.+(?:工作|上班)")


def related_slot_keys(key: str) -> tuple[str, ...]:
    """The keys whose current entries a statement under `key` may replace: its family, and for the
    work facets (employer, role) both families (`replaced_work_entries` decides which)."""
    base, at, who = key.partition("@")
    if base in EMPLOYER_KEYS or base in ROLE_KEYS:
        return tuple(sorted(f"{name}{at}{who}" for name in EMPLOYER_KEYS | ROLE_KEYS))
    return slot_family(key)


# A statement that says the value changed ("moved back", "now", "搬回", "现在"), or when.
SAYS_CHANGE = re.compile(
    r"(?i)\b(?:moved|moving|relocated|relocating|back|again|now|no\s+longer|any\s*more|started|"
    r"starting|joined|joining|switched|changed|new|since|quit|left|these\s+days|nowadays)\b"
    r"|搬|回到|回去|又|现在|如今|目前|已经|换|入职|跳槽|离职|开始|刚|最近|新"
)
