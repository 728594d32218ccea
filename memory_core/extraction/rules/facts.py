"""What the offline extractor's rules produce and read: whose fact (`Who`), a fact's fields
(`_fact`, `_safety`), a clause and its sentence context, and the negation of a predicate."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from memory_core.reading.normalise import conjugate, lower_first, name_slug
from memory_core.reading.words import (
    PARTNERS,
    PETS,
    PRONOUN_OBJECTS,
    RELATIONS,
    ZH_PETS,
    ZH_RELATIONS,
    Fact,
)


@dataclass(frozen=True)
class Who:
    """Whose fact a clause states: the user, or a relative (scoped keys)."""

    label: str = "The user"  # how statements name them
    zh: str = "用户"
    key: str = ""  # key prefix: "" for the user, "family.son", "family.daughter.mia", "pet.dog.rex"
    relation: str = ""  # the canonical relation ("mother"), empty for the user
    word: str = ""  # the relation as said ("mom", "老婆")
    name: str = ""

    @property
    def user(self) -> bool:
        return not self.key

    def scoped(self, key: str) -> str:
        return f"{self.key}.{key}" if self.key and key else key


USER = Who()


def _relative(word: str, name: str = "", *, zh: str = "") -> Who:
    word_lower = word.lower().replace("\u00e9", "e")
    if word_lower in PETS or word in ZH_PETS:
        animal = PETS.get(word_lower) or ZH_PETS[word]
        key = f"pet.{animal}.{name_slug(name)}" if name else f"pet.{animal}"
        relation = animal
    else:
        relation = RELATIONS.get(word_lower) or ZH_RELATIONS[word]
        key = (
            f"family.{relation}"
            if relation in PARTNERS or not name
            else f"family.{relation}.{name_slug(name)}"
        )
    label = f"The user's {word.lower()}" + (f" {name}" if name else "")
    return Who(
        label=label, zh=f"用户的{zh or word}", key=key, relation=relation, word=word.lower(), name=name
    )


def _fact(
    who: Who,
    key: str,
    content: str,
    category: str,
    *,
    importance: float = 0.7,
    type_: str = "semantic",
    pinned: bool = False,
    confidence: float = 0.9,
    valid_from: str | None = None,
    incidental: bool = False,
) -> Fact:
    if not who.user and category == "profile":
        category = "relationship"
    fields: Fact = {
        "type": type_,
        "category": category,
        "content": content,
        "key": who.scoped(key),
        "importance": importance,
        "confidence": confidence,
        "pinned": pinned,
        # Not a Candidate field: a name said in passing ("my daughter Mia starts school …") is its
        # own statement, but never the slot of the sentence that mentions it.
        "incidental": incidental,
    }
    if valid_from:
        fields["valid_from"] = valid_from
    return fields


def _safety(
    who: Who, key: str, content: str, *, negation: str = "", confidence: float = 0.9, incidental: bool = False
) -> Fact:
    """A safety fact: pinned; when ended ("no longer allergic") it keeps the slot, so it supersedes
    the fact it ends, but is not pinned itself."""
    return _fact(
        who, _unless_denied(negation, key), content, "safety", importance=0.8 if negation else 0.95,
        pinned=not negation, confidence=confidence, incidental=incidental,
    )  # fmt: skip


def _unless_denied(negation: str, key: str) -> str:
    """No slot for a plain denial ("I'm not allergic to penicillin"): it may be about a mistake or
    someone else, so it is kept beside the fact, never in its place; "no longer" ends the fact."""
    return "" if negation == "not" else key


@dataclass
class _Clause:
    """One clause as read: who it is about and its predicate in the third person."""

    raw: str  # the clause as written (normalised spelling)
    who: Who | None
    predicate: str  # "is allergic to nuts"; "" when no subject was found
    lead: str = ""  # words before the subject ("From now on", "My doctor says")
    first_person: bool = False  # the subject was "I" / "we"
    possessive: bool = False  # "my …" / "the user's …"
    fragment: bool = False
    replaces: bool = False  # re-reads the previous clause with this one appended ("hiking and cooking")


@dataclass
class _Context:
    """What one sentence's clauses pass on to the next."""

    today: date
    sentence: str = ""
    antecedent: str = ""  # the noun a later "it" may stand for ("Penicillin gives me hives, …")
    frame: tuple[Who, str, str] | None = None  # (who, predicate prefix, kind) for list continuations


_ENDED_WORDS = re.compile(r"(?i)\b(?:anymore|any\s+more|no\s+more|not\s+any\s+longer|outgrew|outgrown)\b")


# (pattern, replacement, kind), compiled once: every clause's predicate goes through them.
_NEGATIONS = tuple(
    (re.compile(pattern, re.I), replacement, kind)
    for pattern, replacement, kind in (
        (r"^used\s+to\s+be\s+", "is ", "ended"),
        (r"^used\s+to\s+have\s+", "has ", "ended"),
        (r"^used\s+to\s+take\s+", "takes ", "ended"),
        (r"^stopped\s+being\s+", "is ", "ended"),
        (r"^(?:stopped|quit)\s+taking\s+", "takes ", "ended"),
        (r"^(?:came|went|got)\s+off\s+", "is on ", "ended"),
        (r"^is\s+(?:now\s+)?off\s+", "is on ", "ended"),
        (r"^is\s+no\s+longer\s+", "is ", "ended"),
        (r"^no\s+longer\s+(\w+)", r"\1", "ended"),
        (r"^does\s+not\s+(\w+)", r"\1", "not"),
        (r"^is\s+not\s+(?:even\s+)?", "is ", "not"),
        (r"^has\s+never\s+been\s+", "is ", "not"),
        (r"^was\s+never\s+", "is ", "not"),
        (r"^outgrew\s+(?:their|the\s+user's|his|her)\s+", "has ", "ended"),
    )
)


def _negation(predicate: str) -> tuple[str, str]:
    """("ended" | "not" | "", the predicate without its negation)."""
    p = predicate
    for pattern, replacement, kind in _NEGATIONS:
        if pattern.match(p):
            p = pattern.sub(replacement, p, count=1)
            if kind == "not" and _ENDED_WORDS.search(predicate):
                kind = "ended"
            return kind, _third_person_verb(p)
    return "", predicate


def _third_person_verb(predicate: str) -> str:
    """ "take metformin" (after "does not") -> "takes metformin"."""
    head, _, rest = predicate.partition(" ")
    if head.lower() in ("is", "has", "was") or head.lower().endswith("s"):
        return predicate
    return f"{conjugate(head)} {rest}".strip()


def _resolve(item: str, ctx: _Context) -> str:
    if item.lower() in PRONOUN_OBJECTS and ctx.antecedent:
        return lower_first(ctx.antecedent)
    return item
