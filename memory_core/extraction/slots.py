"""Slot inference for statements that arrive without a key (REST and mem0 adds, imports), so that
"The user works at Fabrikam." supersedes "The user works at Contoso." whatever the entry point.

`infer_slot` reads the statement with the offline extractor's own rules (`rules.read_statement`),
so a fact gets the key the extractor would have given it: "The user is allergic to peanuts.",
"Allergic to peanuts", "I'm allergic to peanuts" and "用户对花生过敏" all give
health.allergy.peanut. It accepts third-person statements ("The user …", "User …"), mem0-style
fragments without a subject ("Works at Fabrikam", "Name is Alex", "Is vegetarian"), first-person
ones and Chinese ones.

It is conservative, because a wrong key makes one fact supersede another (data loss):
- no slot unless exactly one fact with a key is read: "The user works at Contoso and lives in
  Lyon." has two, "The user's passport expires in March 2027." none, and a dated event never has one;
- someone else's fact gets no slot of the user's: a relative the user names gets a key scoped to
  them ("My sister lives in Rome" → family.sister.home_city, "The user's son is allergic to
  peanuts" → family.son.health.allergy.peanut); friends, colleagues and named strangers ("Alice is
  allergic to peanuts", "Tom works at Fabrikam") get None;
- hedges ("might move to Paris"), plain denials ("The user is not allergic to peanuts"),
  questions, one-off requests and rules get None; an ended fact ("no longer allergic to
  peanuts") keeps its slot and so supersedes the fact. A possible allergy ("might be allergic to
  latex") keeps the allergy slot (safety first).

The slot keys themselves (`Slot`, the key families, the work facets, the words that say a value
changed) are pure text and live in `memory_core.reading.slots`; `Slot` is still importable here.

Import rule: this module imports only `rules` (and through it `schema` and `guards`) and the
reading floor, never anything that imports `memory_core.pipeline`, which imports this module.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from typing import Any

from django.utils import timezone

from memory_core import process_caches
from memory_core.extraction.rules import read_statement
from memory_core.language import is_chinese
from memory_core.reading.slots import (
    EMPLOYER_KEYS,
    NAMES_WORKPLACE,
    ROLE_KEYS,
    SAYS_CHANGE,
    Slot,
    slot_family,
)


@lru_cache(maxsize=64)
def _stated(statement: str, today: date) -> tuple[dict[str, Any], ...]:
    """The facts a statement states itself (not in passing), read once for both questions the
    write pipeline asks of it (`infer_slot`, then `states_safety`); callers never mutate them."""
    return tuple(fact for fact in read_statement(statement, today) if not fact.get("incidental"))


process_caches.register_lru(_stated)


def states_safety(statement: str) -> bool:
    """Whether a statement without a single slot still states a safety fact ("I have type 1
    diabetes and take insulin", "I live in Lyon and I'm allergic to peanuts"): it is pinned, so
    always recalled, even though no one key can stand for it. Denials and ended facts are not
    pinned facts."""
    if not isinstance(statement, str) or not statement.strip():
        return False
    return any(fact.get("pinned") for fact in _stated(statement, timezone.localdate()))


def safety_frames(statement: str) -> tuple[bool, bool]:
    """What the reader's safety frames say of a statement: (it states a health fact of the user's
    own, it states only denied or ended ones: "我对海鲜不过敏", "I'm no longer allergic to
    cats"). Both are precise where they fire (about 0.3 % of ordinary sentences for the first), and
    silent on most wordings: the judgement's safety model decides the rest (`screening.classify`)."""
    if not isinstance(statement, str) or not statement.strip():
        return False, False
    facts = [f for f in _stated(statement, timezone.localdate()) if f.get("category") == "safety"]
    # The health frames (allergy, intolerance, condition, medication) are the precise ones; a
    # "diet.avoid" frame also reads dislikes ("I don't drink coffee") and is left to the model.
    own = any(f.get("pinned") and str(f.get("key", "")).startswith("health.") for f in facts)
    return own, bool(facts) and not any(f.get("pinned") for f in facts)


# Facts the Chinese reader gives one statement as, where the English reader gives one: "在阿里巴巴做
# 数据分析师" is an employer and a job, "works at Alibaba as a data analyst" one job; so the same
# statement takes the same slot in either language (a job, superseded by the next job).
_ONE_SLOT = {frozenset({"employer", "job"}): "job"}


def _one_fact(facts: tuple[dict[str, Any], ...], chinese: bool) -> dict[str, Any] | None:
    """The one fact with a key a statement states, or (Chinese) the one `_ONE_SLOT` reads its facts as."""
    keys = {fact.get("key", "") for fact in facts}
    if "" in keys or not keys:
        return None
    if len(keys) == 1:
        return facts[0]
    if not chinese:
        return None
    scopes = {key.rpartition(".")[0] for key in keys}
    slot = _ONE_SLOT.get(frozenset(key.rpartition(".")[2] for key in keys))
    if slot is None or len(scopes) != 1 or len(facts) != len(keys):
        return None
    return next(fact for fact in facts if fact["key"].rpartition(".")[2] == slot)


def infer_slot(statement: str) -> Slot | None:
    """The key slot an already written statement fills, or None when there is no stable one."""
    if not isinstance(statement, str) or not statement.strip():
        return None
    fact = _one_fact(_stated(statement, timezone.localdate()), is_chinese(statement))
    if fact is None:
        return None
    return Slot(
        key=fact["key"],
        category=fact["category"],
        type="episodic" if fact.get("type") == "episodic" else "semantic",
        pinned=bool(fact.get("pinned")),
        importance=float(fact.get("importance", 0.5)),
    )


def work_facets(key: str, content: str) -> tuple[bool, bool] | None:
    """(names an employer, names a role) of a work statement; None for other keys."""
    base = key.partition("@")[0]
    if base not in EMPLOYER_KEYS and base not in ROLE_KEYS:
        return None
    keys = set()
    readings = []
    if isinstance(content, str) and content.strip():
        for fact in _stated(content, timezone.localdate()):
            keys.add(str(fact.get("key", "")).partition("@")[0])
            readings.append(str(fact.get("content", "")))
    role = bool(keys & ROLE_KEYS) or (not keys and base in ROLE_KEYS)
    employer = bool(keys & EMPLOYER_KEYS) or (not keys and base in EMPLOYER_KEYS)
    if role and not employer:
        employer = any(NAMES_WORKPLACE.search(text) for text in readings or [content])
    return employer, role


def replaces_in_slot(new_key: str, new_content: str, old_key: str, old_content: str) -> bool:
    """Whether a new statement replaces a current one of its related keys: within one family always;
    across the work facets, a statement naming an employer replaces any that names one, and a role
    held somewhere replaces a bare role (a bare role never replaces an employer)."""
    if old_key in slot_family(new_key):
        return True
    new, old = work_facets(new_key, new_content), work_facets(old_key, old_content)
    if new is None or old is None:
        return False
    (new_employer, new_role), (old_employer, old_role) = new, old
    if new_employer:
        return old_employer or (new_role and old_role)
    return old_role and not old_employer


def says_change(statement: str) -> bool:
    """Whether a statement says its value changed or when it began: a corrected value said again
    with such words is news ("I moved back to Berlin last month"); without them, it is the old value
    mentioned in passing and does not undo the user's correction (`reconciliation.reconcile`)."""
    if not isinstance(statement, str) or not statement.strip():
        return False
    if SAYS_CHANGE.search(statement):
        return True
    return any(fact.get("valid_from") for fact in _stated(statement, timezone.localdate()))


def slot_reading(statement: str) -> str:
    """The reader's wording of the one slot fact a statement states ("I'm based in Lyon" and "The
    user lives in Lyon." read alike), or "" when it reads none."""
    if not isinstance(statement, str) or not statement.strip():
        return ""
    fact = _one_fact(_stated(statement, timezone.localdate()), is_chinese(statement))
    return str(fact.get("content", "")) if fact else ""
