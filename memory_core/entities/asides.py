"""Names given in an aside, as people give them: "Irene — that's mum — is partially sighted",
"Tom, my boss, said…", "Dad (everyone calls him Rocky) has heart failure", "我爸姓周, 小区里都叫他
老周", and children listed with their ages ("our two, Noah (7) and Lily (4)"). Each gives the user's
kin a name (`rules` reads the plainer forms: "my mum Irene", "my mum is called Irene").
"""

from __future__ import annotations

import re

from memory_core.entities.kinship import ZH_KIN_WORDS, kin, kind_of
from memory_core.entities.rules import _ADJ, _KIN, _NAME, Reading, Ref, _is_name, _strip_openers
from memory_core.entities.rules_zh import _ZH_KIN, _ZH_NAME
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.entities.zh_forms import as_mandarin, as_written

_DASH = r"(?:\u2014|\u2013|--|-)"
# "Irene — that's mum —", "Irene (my mum)", "Tom, my boss, said": a name, then who they are to the
# user between two marks.
_NAME_THEN_KIN = re.compile(
    rf"(?P<name>{_NAME})\s*(?P<open>\(|{_DASH}|,)\s*(?i:that's\s+|that\s+is\s+|she's\s+|he's\s+|aka\s+)?"
    rf"(?:(?i:my|our)\s+)?{_ADJ}(?P<kin>{_KIN})\s*(?:\)|{_DASH}|,)"
)
# "Dad (everyone calls him Rocky)", "my dad, who everyone calls Rocky,": the name others call them.
_CALLED_BY_ALL = re.compile(
    rf"(?:\b(?i:my|our)\s+{_ADJ})?(?P<kin>{_KIN})\s*(?:\(|,)\s*(?i:who(?:m)?\s+)?"
    r"(?i:everyone|everybody|we\s+all|people|the\s+kids|they\s+all|we|most\s+people)\s+calls?\s+"
    rf"(?:(?i:him|her)\s+)?(?P<name>{_NAME})"
)
# "我爸姓周, 小区里都叫他老周": what people call the user's kin.
_ZH_CALLED_BY_ALL = re.compile(
    rf"(?:我们|我)的?(?P<zkin>{_ZH_KIN})[^\u3002\uff01\uff1f.!?]{{0,14}}?(?:都|大家|别人|人人)*叫(?:他|她)"
    rf"(?P<zname>{_ZH_NAME})"
)
# "our two, Noah (7) and Lily (4)", "my two, Ava and Leo": children listed after how many.
_AGE = re.compile(r"\s*\((?:aged?\s+)?\d{1,2}\)")
_CHILDREN_COUNTED = re.compile(
    rf"\b(?i:my|our)\s+(?i:two|three|four|five)\b,?\s+(?P<names>{_NAME}(?:,\s*{_NAME})*,?\s+and\s+{_NAME})\b"
)
# The kin words an aside may name by themselves ("that's mum"): people, not a pet.
_PEOPLE = frozenset(
    p for p in Predicate if p not in (Predicate.PET, Predicate.WORKS_AT, Predicate.LIVES_IN, Predicate.ROLE)
)


def read_asides(text: str, reading: Reading, *, chinese: bool = False) -> None:
    """Add to `reading` the user's kin named in an aside (English, and Chinese when `chinese`)."""
    plain = text.replace("\u2019", "'")
    for match in [*_NAME_THEN_KIN.finditer(plain), *_CALLED_BY_ALL.finditer(plain)]:
        _named(reading, _strip_openers(match.group("name")), match.group("kin").lower())
    for match in _CHILDREN_COUNTED.finditer(_AGE.sub("", plain)):
        for name in re.split(r",\s*|,?\s+and\s+", match.group("names")):
            _named(reading, _strip_openers(name.strip()), "child")
    if chinese:
        folded = as_mandarin(text, ZH_KIN_WORDS)
        for match in _ZH_CALLED_BY_ALL.finditer(folded):
            _named(reading, as_written(match.group("zname"), folded, text), match.group("zkin"))


def _named(reading: Reading, name: str, word: str) -> None:
    found = kin(word)
    if not name or not _is_name(name) or found is None or found[0] not in _PEOPLE:
        return
    kind = kind_of(found[0])
    if kind != EntityKind.PERSON:
        return
    # The same kin said without a name in this statement is this person.
    reading.refs = [r for r in reading.refs if not (r.kin == word and r.of is None and not r.name)]
    unnamed = Ref(kin=word, kind=EntityKind.PERSON)
    reading.triples = [t for t in reading.triples if t.object != unnamed]
    reading.add_ref(Ref(name=name, kin=word))
