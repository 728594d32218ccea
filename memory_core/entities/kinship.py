"""Kinship and social words (English and Chinese) and the predicate each one names.

Used both to read statements (`rules`) and queries (`recall`): "sister", "姐姐" → `sibling`.
"""

from __future__ import annotations

from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.reading.words import ZH_PETS, ZH_RELATIONS

# word → (predicate, canonical label). The label is what the relation records and what a query's
# word is matched with, so "mum", "mom" and "妈妈" all find the mother.
_EN: dict[str, tuple[str, str]] = {}
_GROUPS: dict[str, str] = {
    Predicate.SPOUSE: "wife husband spouse",
    Predicate.PARTNER: "partner girlfriend boyfriend fiance fiancee fiancé fiancée",
    Predicate.PARENT: "mother mom mum mommy mama father dad daddy papa parent",
    Predicate.CHILD: "son daughter child kid baby",
    Predicate.SIBLING: "sister brother sibling",
    Predicate.RELATIVE: (
        "grandmother grandma granny grandfather grandpa granddad aunt uncle cousin niece nephew "
        "grandson granddaughter stepson stepdaughter stepmother stepfather mother-in-law father-in-law "
        "sister-in-law brother-in-law"
    ),
    Predicate.FRIEND: "friend roommate flatmate neighbour neighbor",
    Predicate.COLLEAGUE: "colleague coworker co-worker teammate",
    Predicate.MANAGER: "boss manager supervisor",
    Predicate.PET: "dog puppy cat kitten parrot rabbit bunny hamster horse bird turtle pet",
}
_CANONICAL = {
    "mom": "mother", "mum": "mother", "mommy": "mother", "mama": "mother", "dad": "father",
    "daddy": "father", "papa": "father", "kid": "child", "baby": "child", "grandma": "grandmother",
    "granny": "grandmother", "grandpa": "grandfather", "granddad": "grandfather", "fiancee": "fiance",
    "fiancé": "fiance", "fiancée": "fiance", "puppy": "dog", "kitten": "cat", "bunny": "rabbit",
    "co-worker": "coworker", "neighbor": "neighbour",
}  # fmt: skip
for _predicate, _words in _GROUPS.items():
    for _word in _words.split():
        _EN[_word] = (_predicate, _CANONICAL.get(_word, _word))
# Plurals name the same relation ("my kids", "her sisters").
_PLURALS = {"children"}
for _word, _meaning in list(_EN.items()):
    if _word + "s" not in _EN:
        _EN[_word + "s"] = _meaning
        _PLURALS.add(_word + "s")
_EN["children"] = _EN["child"]

# The Chinese words the offline extractor already reads (`ZH_RELATIONS`, `ZH_PETS`: word → English
# label), each taking the predicate of its label; then the social words only the graph needs.
_ZH: dict[str, tuple[str, str]] = {
    word: _EN[label.replace("_", "-")]
    for word, label in {**ZH_RELATIONS, **ZH_PETS}.items()
    if label.replace("_", "-") in _EN
}
_ZH.update({
    "先生": (Predicate.SPOUSE, "husband"),
    "叔叔": (Predicate.RELATIVE, "uncle"), "舅舅": (Predicate.RELATIVE, "uncle"),
    "阿姨": (Predicate.RELATIVE, "aunt"), "姑姑": (Predicate.RELATIVE, "aunt"),
    "表哥": (Predicate.RELATIVE, "cousin"), "表姐": (Predicate.RELATIVE, "cousin"),
    "好朋友": (Predicate.FRIEND, "friend"), "朋友": (Predicate.FRIEND, "friend"),
    "室友": (Predicate.FRIEND, "roommate"), "邻居": (Predicate.FRIEND, "neighbour"),
    "同事": (Predicate.COLLEAGUE, "colleague"),
    "老板": (Predicate.MANAGER, "boss"), "上司": (Predicate.MANAGER, "boss"),
    "领导": (Predicate.MANAGER, "boss"), "经理": (Predicate.MANAGER, "manager"),
    "宠物": (Predicate.PET, "pet"),
})  # fmt: skip

KIN_WORDS: dict[str, tuple[str, str]] = {**_EN, **_ZH}
EN_KIN_WORDS = tuple(sorted(_EN, key=len, reverse=True))
ZH_KIN_WORDS = tuple(sorted(_ZH, key=len, reverse=True))

# Words of a query that ask about a relation without naming a kin: "where does … live", "工作".
QUERY_PREDICATE_WORDS: dict[str, str] = {
    "live": Predicate.LIVES_IN, "lives": Predicate.LIVES_IN, "living": Predicate.LIVES_IN,
    "moved": Predicate.LIVES_IN, "住": Predicate.LIVES_IN, "住在": Predicate.LIVES_IN,
    "work": Predicate.WORKS_AT, "works": Predicate.WORKS_AT, "job": Predicate.ROLE,
    "employer": Predicate.WORKS_AT, "company": Predicate.WORKS_AT, "do": Predicate.ROLE,
    "工作": Predicate.WORKS_AT, "公司": Predicate.WORKS_AT, "职业": Predicate.ROLE,
    "married": Predicate.SPOUSE,
}  # fmt: skip


def kin(word: str) -> tuple[str, str] | None:
    """(predicate, label) of a kinship or social word, or None."""
    return KIN_WORDS.get(word.lower())


def label_said(word: str) -> str:
    """The English label an entity said by kin `word` is known by ("" for no kin word): plural for
    a plural ("my kids" are "children"), so that a question about one ("Melanie's friend") does not
    take a group ("Melanie's friends") for that one person, while one about the group finds it."""
    found = KIN_WORDS.get(word.lower())
    if found is None:
        return ""
    label = found[1]
    if word.lower() not in _PLURALS:
        return label
    return "children" if label == "child" else label + "s"


def is_plural(word: str) -> bool:
    """Whether kin `word` names several ("kids", "friends")."""
    return word.lower() in _PLURALS


def names_a_group(aliases: list[str]) -> bool:
    """Whether an entity known by these aliases is a group ("my friends"): every kin word among
    them is a plural. A group is never taken for one of its members, nor one member for it."""
    said = [alias for alias in aliases if alias in KIN_WORDS]
    return bool(said) and all(alias in _PLURALS for alias in said)


def singular_label(word: str) -> str:
    """The singular English label of kin `word` ("kids" -> "child"), or ""."""
    found = KIN_WORDS.get(word.lower())
    return found[1] if found else ""


def kind_of(predicate: str) -> str:
    """The kind of entity the object of a kinship predicate is."""
    return EntityKind.PET if predicate == Predicate.PET else EntityKind.PERSON
