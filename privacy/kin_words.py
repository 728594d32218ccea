"""How the people pages say a kinship word and an unnamed person in the reader's language.

A relation records the kin word's English label ("姐姐" and "sister" record "sister"), and an
entity known only by a kin word is named after the word said, in its language ("my husband",
"Ana's husband", "我的老公", "安娜的老公": `entities.resolve.placeholder_name`; rows stored before
that was so may read "my 老公"); both are stored as they are (the API returns them). On the pages
they are said in the page's language: "你的姐妹" rather than "你的sister", "Your husband" and
"你的丈夫" for "我的老公"; a word the user said in the page's own language stays theirs.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy

from memory_core.entities.kinship import KIN_WORDS
from memory_core.language import is_chinese

# The canonical labels of `entities.kinship` (what "mum", "妈妈" and "mother" all record).
_LABELS: dict[str, Any] = {
    "mother": pgettext_lazy("kin", "mother"),
    "father": pgettext_lazy("kin", "father"),
    "parent": pgettext_lazy("kin", "parent"),
    "wife": pgettext_lazy("kin", "wife"),
    "husband": pgettext_lazy("kin", "husband"),
    "spouse": pgettext_lazy("kin", "spouse"),
    "partner": pgettext_lazy("kin", "partner"),
    "girlfriend": pgettext_lazy("kin", "girlfriend"),
    "boyfriend": pgettext_lazy("kin", "boyfriend"),
    "fiance": pgettext_lazy("kin", "fiancé(e)"),
    "son": pgettext_lazy("kin", "son"),
    "daughter": pgettext_lazy("kin", "daughter"),
    "child": pgettext_lazy("kin", "child"),
    "sister": pgettext_lazy("kin", "sister"),
    "brother": pgettext_lazy("kin", "brother"),
    "sibling": pgettext_lazy("kin", "sibling"),
    "grandmother": pgettext_lazy("kin", "grandmother"),
    "grandfather": pgettext_lazy("kin", "grandfather"),
    "aunt": pgettext_lazy("kin", "aunt"),
    "uncle": pgettext_lazy("kin", "uncle"),
    "cousin": pgettext_lazy("kin", "cousin"),
    "niece": pgettext_lazy("kin", "niece"),
    "nephew": pgettext_lazy("kin", "nephew"),
    "grandson": pgettext_lazy("kin", "grandson"),
    "granddaughter": pgettext_lazy("kin", "granddaughter"),
    "stepson": pgettext_lazy("kin", "stepson"),
    "stepdaughter": pgettext_lazy("kin", "stepdaughter"),
    "stepmother": pgettext_lazy("kin", "stepmother"),
    "stepfather": pgettext_lazy("kin", "stepfather"),
    "mother-in-law": pgettext_lazy("kin", "mother-in-law"),
    "father-in-law": pgettext_lazy("kin", "father-in-law"),
    "sister-in-law": pgettext_lazy("kin", "sister-in-law"),
    "brother-in-law": pgettext_lazy("kin", "brother-in-law"),
    "friend": pgettext_lazy("kin", "friend"),
    "roommate": pgettext_lazy("kin", "roommate"),
    "flatmate": pgettext_lazy("kin", "flatmate"),
    "neighbour": pgettext_lazy("kin", "neighbour"),
    "colleague": pgettext_lazy("kin", "colleague"),
    "coworker": pgettext_lazy("kin", "coworker"),
    "teammate": pgettext_lazy("kin", "teammate"),
    "boss": pgettext_lazy("kin", "boss"),
    "manager": pgettext_lazy("kin", "manager"),
    "supervisor": pgettext_lazy("kin", "supervisor"),
    "dog": pgettext_lazy("kin", "dog"),
    "cat": pgettext_lazy("kin", "cat"),
    "parrot": pgettext_lazy("kin", "parrot"),
    "rabbit": pgettext_lazy("kin", "rabbit"),
    "hamster": pgettext_lazy("kin", "hamster"),
    "horse": pgettext_lazy("kin", "horse"),
    "bird": pgettext_lazy("kin", "bird"),
    "turtle": pgettext_lazy("kin", "turtle"),
    "pet": pgettext_lazy("kin", "pet"),
}
# A group named by a plural kin word ("my kids", "my parents") is said as a group, not as one of it.
_PLURAL_LABELS: dict[str, Any] = {
    "kids": pgettext_lazy("kin", "children"),
    "children": pgettext_lazy("kin", "children"),
    "parents": pgettext_lazy("kin", "parents"),
    "sons": pgettext_lazy("kin", "sons"),
    "daughters": pgettext_lazy("kin", "daughters"),
    "sisters": pgettext_lazy("kin", "sisters"),
    "brothers": pgettext_lazy("kin", "brothers"),
}
# The names `entities.resolve` gives an entity known only by a kin word, in English and Chinese.
_MINE = re.compile(r"my (?P<kin>.+)|我的(?P<zh>.+)")
_THEIRS = re.compile(r"(?P<owner>.+)'s (?P<kin>.+)|(?P<zh_owner>.+)的(?P<zh>.+)")


def _chinese_page() -> bool:
    return (translation.get_language() or "").startswith("zh")


def kin_word(word: str) -> str:
    """A kinship word as the page says it: the user's own word when it is in the page's language
    (or is no kin word we know), else the same relation in the page's language."""
    found = KIN_WORDS.get(word.strip().lower())
    if found is None or is_chinese(word) == _chinese_page():
        return word
    label = _LABELS.get(found[1])
    return str(label) if label is not None else word


def _relation_word(word: str) -> str:
    """The page's word for the relation a kin word names: what the relation itself records ("老公"
    and "husband" record "husband"), so a person's name and their relation to the user agree."""
    plural = _PLURAL_LABELS.get(word.strip().lower())
    if plural is not None:
        return str(plural)
    found = KIN_WORDS.get(word.strip().lower())
    label = _LABELS.get(found[1]) if found is not None else None
    return str(label) if label is not None else word


def _unnamed(name: str) -> str:
    """An unnamed entity's stored name ("我的老公", "my sister's husband") said in the page's
    language; the owner part of "X's …" is such a name in turn, or a real one (kept). Said in
    running text ("your husband"): a template capitalises it where it starts a line (`capfirst`)."""
    mine = _MINE.fullmatch(name)
    word = (mine["kin"] or mine["zh"]) if mine else ""
    if mine and word.strip().lower() in KIN_WORDS:
        return _("your %(words)s") % {"words": _relation_word(word)}
    if match := _THEIRS.fullmatch(name):  # "my sister's husband": the owner's part first
        owner = _unnamed(match["owner"] or match["zh_owner"])
        words = _relation_word(match["kin"] or match["zh"])
        return _("%(name)s’s %(words)s") % {"name": owner, "words": words}  # noqa: RUF001
    if mine:
        return _("your %(words)s") % {"words": _relation_word(word)}
    return name


def person_name(entity: Any) -> str:
    """An entity's name; one known only by a kin word ("我的老公") is said in the page's language."""
    name = str(entity.name)
    return name if entity.named else _unnamed(name)


def aliases_said(aliases: list[str]) -> str:
    """What an entity is called ("Called: …"): its names as they are, its kin words as the page
    says them ("husband" and "老公" are "丈夫、老公" on a Chinese page, "husband" on an English one)."""
    said = dict.fromkeys(kin_word(alias) for alias in aliases)
    return pgettext("between the names of one person", ", ").join(said)
