"""Kinship and social words (English and Chinese) and the predicate each one names.

Used both to read statements (`rules`) and queries (`recall`): "sister", "姐姐" → `sibling`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.reading.words import GRANDPARENTS_SAID_OTHERWISE, ZH_PETS, ZH_RELATIONS

# word → (predicate, canonical label). The label is what the relation records and what a query's
# word is matched with, so "mum", "mom" and "妈妈" all find the mother.
_EN: dict[str, tuple[str, str]] = {}
_GROUPS: dict[str, str] = {
    Predicate.SPOUSE: "wife husband spouse",
    Predicate.PARTNER: "partner girlfriend boyfriend fiance fiancee fiancé fiancée",
    # "amma", "appa", "ammi", "abbu": as Indian and Pakistani English speak of a mother and a father.
    Predicate.PARENT: "mother mom mum mommy mummy mam mama amma ammi father dad daddy papa appa abbu parent",
    # "my little boy", "Ana's girl", "our lad": a child, said after whose (a plural is not read:
    # "my girls", "the lads" are as often friends).
    Predicate.CHILD: "son daughter child kid baby boy girl lad lass toddler newborn",
    Predicate.SIBLING: "sister brother sibling",
    Predicate.RELATIVE: (
        "grandmother grandma granny gran nan nana nanna grandfather grandpa granddad grandad gramps "
        "aunt uncle cousin niece nephew "
        "grandson granddaughter grandchild grandparent stepson stepdaughter stepchild stepkid stepmother "
        "stepfather stepmom stepmum stepdad stepbrother stepsister step-son step-daughter step-mother "
        "step-father half-brother half-sister mother-in-law father-in-law sister-in-law brother-in-law "
        "son-in-law daughter-in-law godmother godfather godparent godson goddaughter godchild"
    ),
    Predicate.FRIEND: "friend roommate flatmate neighbour neighbor",
    Predicate.COLLEAGUE: "colleague coworker co-worker teammate mentor",
    Predicate.MANAGER: "boss manager supervisor team-lead team-leader line-manager",
    Predicate.PET: "dog puppy cat kitten parrot rabbit bunny hamster horse bird turtle pet",
}
_CANONICAL = {
    "mom": "mother", "mum": "mother", "mommy": "mother", "mummy": "mother", "mam": "mother", "mama": "mother",
    "amma": "mother", "ammi": "mother", "appa": "father", "abbu": "father", "dad": "father",
    "daddy": "father", "papa": "father", "kid": "child", "baby": "child", "grandma": "grandmother",
    "granny": "grandmother", "gran": "grandmother", "nan": "grandmother", "nana": "grandmother",
    "nanna": "grandmother", "grandpa": "grandfather", "granddad": "grandfather",
    "grandad": "grandfather", "gramps": "grandfather", "fiancee": "fiance",
    "fiancé": "fiance", "fiancée": "fiance", "puppy": "dog", "kitten": "cat", "bunny": "rabbit",
    "boy": "son", "lad": "son", "girl": "daughter", "lass": "daughter", "toddler": "child",
    "newborn": "child", "co-worker": "coworker", "neighbor": "neighbour", "stepkid": "stepchild",
    "stepmom": "stepmother",
    "stepmum": "stepmother", "stepdad": "stepfather", "step-son": "stepson",
    "step-daughter": "stepdaughter", "step-mother": "stepmother", "step-father": "stepfather",
    "team-lead": "manager", "team-leader": "manager", "line-manager": "manager",
}  # fmt: skip
for _predicate, _words in _GROUPS.items():
    for _word in _words.split():
        _EN[_word] = (_predicate, _CANONICAL.get(_word, _word))
        if "-" in _word and not _word.startswith(("co-", "step-")) and "in-law" not in _word:
            # "team lead", "half brother": said with a space as often as with the hyphen.
            _EN[_word.replace("-", " ")] = _EN[_word]
# "my Babcia", "Nonna", "Ah Gong": grandparents said in other languages and Englishes.
for _word, _label in GRANDPARENTS_SAID_OTHERWISE.items():
    _EN[_word.replace("_", " ")] = (Predicate.RELATIVE, _label)
# Plurals name the same relation ("my kids", "her sisters").
_PLURALS = {"children"}
_NO_PLURAL = frozenset({"boy", "girl", "lad", "lass"})
for _word, _meaning in list(_EN.items()):
    if _word + "s" not in _EN and _word not in _NO_PLURAL:
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
    # Work: a team's lead is the manager one has; a master (师傅) teaches a trade.
    "组长": (Predicate.MANAGER, "manager"), "主管": (Predicate.MANAGER, "manager"),
    "领班": (Predicate.MANAGER, "manager"), "科长": (Predicate.MANAGER, "manager"),
    "部长": (Predicate.MANAGER, "manager"), "处长": (Predicate.MANAGER, "manager"),
    "顶头上司": (Predicate.MANAGER, "boss"), "直属领导": (Predicate.MANAGER, "boss"),
    "直属上司": (Predicate.MANAGER, "boss"), "师傅": (Predicate.COLLEAGUE, "mentor"),
    "师父": (Predicate.COLLEAGUE, "mentor"), "导师": (Predicate.COLLEAGUE, "mentor"),
    # In-laws, step- and god- kin: the names one knows them by (what they are is `PATHS`).
    "公公": (Predicate.RELATIVE, "father-in-law"), "丈人": (Predicate.RELATIVE, "father-in-law"),
    "老丈人": (Predicate.RELATIVE, "father-in-law"), "姐夫": (Predicate.RELATIVE, "brother-in-law"),
    "妹夫": (Predicate.RELATIVE, "brother-in-law"), "小舅子": (Predicate.RELATIVE, "brother-in-law"),
    "大舅子": (Predicate.RELATIVE, "brother-in-law"), "小叔子": (Predicate.RELATIVE, "brother-in-law"),
    "大伯子": (Predicate.RELATIVE, "brother-in-law"), "连襟": (Predicate.RELATIVE, "brother-in-law"),
    "嫂子": (Predicate.RELATIVE, "sister-in-law"), "弟媳": (Predicate.RELATIVE, "sister-in-law"),
    "小姨子": (Predicate.RELATIVE, "sister-in-law"), "大姨子": (Predicate.RELATIVE, "sister-in-law"),
    "小姑子": (Predicate.RELATIVE, "sister-in-law"), "大姑子": (Predicate.RELATIVE, "sister-in-law"),
    "妯娌": (Predicate.RELATIVE, "sister-in-law"), "女婿": (Predicate.RELATIVE, "son-in-law"),
    "儿媳": (Predicate.RELATIVE, "daughter-in-law"), "儿媳妇": (Predicate.RELATIVE, "daughter-in-law"),
    "继子": (Predicate.RELATIVE, "stepson"), "继女": (Predicate.RELATIVE, "stepdaughter"),
    "继母": (Predicate.RELATIVE, "stepmother"), "后妈": (Predicate.RELATIVE, "stepmother"),
    "继父": (Predicate.RELATIVE, "stepfather"), "后爸": (Predicate.RELATIVE, "stepfather"),
    "干妈": (Predicate.RELATIVE, "godmother"), "干爹": (Predicate.RELATIVE, "godfather"),
    "干女儿": (Predicate.RELATIVE, "goddaughter"), "干儿子": (Predicate.RELATIVE, "godson"),
    "孙子": (Predicate.RELATIVE, "grandson"), "孙女": (Predicate.RELATIVE, "granddaughter"),
    "外孙": (Predicate.RELATIVE, "grandson"), "外孙女": (Predicate.RELATIVE, "granddaughter"),
    "侄子": (Predicate.RELATIVE, "nephew"), "侄女": (Predicate.RELATIVE, "niece"),
    "外甥": (Predicate.RELATIVE, "nephew"), "外甥女": (Predicate.RELATIVE, "niece"),
    "表妹": (Predicate.RELATIVE, "cousin"), "表弟": (Predicate.RELATIVE, "cousin"),
    "堂哥": (Predicate.RELATIVE, "cousin"), "堂姐": (Predicate.RELATIVE, "cousin"),
    "堂弟": (Predicate.RELATIVE, "cousin"), "堂妹": (Predicate.RELATIVE, "cousin"),
    # Children by their order of birth ("我大女儿", "小儿子"; 老大, 老二 only after 家: `zh_forms`).
    "大儿子": (Predicate.CHILD, "son"), "小儿子": (Predicate.CHILD, "son"),
    "二儿子": (Predicate.CHILD, "son"), "长子": (Predicate.CHILD, "son"), "次子": (Predicate.CHILD, "son"),
    "幼子": (Predicate.CHILD, "son"), "大女儿": (Predicate.CHILD, "daughter"),
    "小女儿": (Predicate.CHILD, "daughter"), "二女儿": (Predicate.CHILD, "daughter"),
    "长女": (Predicate.CHILD, "daughter"), "次女": (Predicate.CHILD, "daughter"),
    "大闺女": (Predicate.CHILD, "daughter"), "小闺女": (Predicate.CHILD, "daughter"),
    "小宝贝": (Predicate.CHILD, "child"),  # "我家小宝贝叫糖糖" (宝贝 alone is as often a sweetheart)
    # Cantonese: 大仔, 细仔 (the elder, the younger son), 大女, 细女; 嫲嫲, 阿嫲 (father's mother).
    "大仔": (Predicate.CHILD, "son"), "细仔": (Predicate.CHILD, "son"),
    "大女": (Predicate.CHILD, "daughter"), "细女": (Predicate.CHILD, "daughter"),
    "嫲嫲": (Predicate.RELATIVE, "grandmother"), "阿嫲": (Predicate.RELATIVE, "grandmother"),
    "妈咪": (Predicate.PARENT, "mother"), "爹地": (Predicate.PARENT, "father"),
    "爸妈": (Predicate.PARENT, "parents"), "父母": (Predicate.PARENT, "parents"),
    # Taiwanese 阿公, 阿嬷 (阿嬤): grandfather, grandmother.
    "阿公": (Predicate.RELATIVE, "grandfather"), "阿嬷": (Predicate.RELATIVE, "grandmother"),
    # Cantonese 阿爷 (阿爺, father's father), 阿妈 as said in Hong Kong of a grandmother is left out
    # (it is a mother in Mandarin); 外婆's Cantonese 婆婆 is a mother-in-law in Mandarin, left as is.
    "阿爷": (Predicate.RELATIVE, "grandfather"),
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


# A boss asked about by a verb ("who did I answer to", "who was I reporting to", "working under",
# "in charge of me"): the question's kin word is "boss". Not "who reports to me": those are the
# ones one manages.
BOSS_ASKED = re.compile(
    r"(?i)\b(?:(?:report|answer)(?:s|ed|ing)?\s+(?:directly\s+)?to|work(?:s|ed|ing)?\s+(?:directly\s+)?under)\b"
    r"(?!\s+(?:me|us|him|her|them)\b)|\bin\s+charge\s+of\s+(?:me|us)\b"
)


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


# --- Kin said through others ----------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One hop of a kin word said through others: to whom the entity has `predicate` (its inverse
    too: a parent is whoever has one as a child), known by one of `labels` ("father") — or, when
    none of its kin words is gendered, by none of the others of its kind ("mother") — and, `ended`,
    whose relation had ended by then (an ex-husband)."""

    predicate: str
    labels: frozenset[str] = frozenset()
    ended: bool = False


def _steps(text: str) -> tuple[Step, ...]:
    """ "spouse parent:father" → (spouse, parent known as father)."""
    steps = []
    for part in text.split():
        predicate, _, labels = part.partition(":")
        steps.append(Step(predicate, frozenset(labels.split(",")) if labels else frozenset()))
    return tuple(steps)


# The gendered labels of one kind: a step that asks for one passes over who is known by another.
OTHER_GENDER = {
    "father": "mother", "mother": "father", "son": "daughter", "daughter": "son",
    "brother": "sister", "sister": "brother", "husband": "wife", "wife": "husband",
    "boyfriend": "girlfriend", "girlfriend": "boyfriend",
}  # fmt: skip

# A kin word that composes others: "father-in-law" is a spouse's father, "stepson" a spouse's son,
# "姐夫" a sister's husband, "连襟" the husband of a wife's sister. A question's kin word that
# names someone through these relations finds them even when nobody called them by that word
# (recall's seeds); the alternatives of an English word cover both ways it is used.
_PATHS_SAID: dict[str, tuple[str, ...]] = {
    "father-in-law": ("spouse parent:father",), "mother-in-law": ("spouse parent:mother",),
    "parents-in-law": ("spouse parent",), "in-laws": ("spouse parent",),
    "brother-in-law": ("spouse sibling:brother", "sibling:sister spouse", "spouse sibling:sister spouse"),
    "sister-in-law": ("spouse sibling:sister", "sibling:brother spouse", "spouse sibling:brother spouse"),
    "son-in-law": ("child:daughter spouse",), "daughter-in-law": ("child:son spouse",),
    "stepson": ("spouse child:son", "partner child:son"),
    "stepdaughter": ("spouse child:daughter", "partner child:daughter"),
    "stepchild": ("spouse child", "partner child"), "stepchildren": ("spouse child", "partner child"),
    "stepkids": ("spouse child", "partner child"),
    "stepmother": ("parent:father spouse",), "stepfather": ("parent:mother spouse",),
    "stepbrother": ("parent spouse child:son",), "stepsister": ("parent spouse child:daughter",),
    "half-brother": ("parent child:son",), "half-sister": ("parent child:daughter",),
    "grandmother": ("parent parent:mother",), "grandfather": ("parent parent:father",),
    "grandparent": ("parent parent",), "grandparents": ("parent parent",),
    "grandson": ("child child:son",), "granddaughter": ("child child:daughter",),
    "grandchild": ("child child",), "grandchildren": ("child child",), "grandkids": ("child child",),
    "uncle": ("parent sibling:brother", "parent sibling:sister spouse"),
    "aunt": ("parent sibling:sister", "parent sibling:brother spouse"),
    "nephew": ("sibling child:son",), "niece": ("sibling child:daughter",),
    "cousin": ("parent sibling child",), "cousins": ("parent sibling child",),
    # Chinese says which side: 婆婆 is a husband's mother, 岳母 a wife's, 外甥 a sister's son.
    "婆婆": ("spouse parent:mother",), "公公": ("spouse parent:father",),
    "岳母": ("spouse parent:mother",), "丈母娘": ("spouse parent:mother",),
    "岳父": ("spouse parent:father",), "丈人": ("spouse parent:father",), "老丈人": ("spouse parent:father",),
    "姐夫": ("sibling:sister spouse",), "妹夫": ("sibling:sister spouse",),
    "嫂子": ("sibling:brother spouse",), "弟媳": ("sibling:brother spouse",),
    "小舅子": ("spouse sibling:brother",), "大舅子": ("spouse sibling:brother",),
    "小叔子": ("spouse sibling:brother",), "大伯子": ("spouse sibling:brother",),
    "小姨子": ("spouse sibling:sister",), "大姨子": ("spouse sibling:sister",),
    "小姑子": ("spouse sibling:sister",), "大姑子": ("spouse sibling:sister",),
    "连襟": ("spouse sibling:sister spouse",), "妯娌": ("spouse sibling:brother spouse",),
    "女婿": ("child:daughter spouse",), "儿媳": ("child:son spouse",), "儿媳妇": ("child:son spouse",),
    "继子": ("spouse child:son",), "继女": ("spouse child:daughter",),
    "继母": ("parent:father spouse",), "后妈": ("parent:father spouse",),
    "继父": ("parent:mother spouse",), "后爸": ("parent:mother spouse",),
    "爷爷": ("parent:father parent:father",), "奶奶": ("parent:father parent:mother",),
    "外公": ("parent:mother parent:father",), "外婆": ("parent:mother parent:mother",),
    "孙子": ("child:son child:son",), "孙女": ("child:son child:daughter",),
    "外孙": ("child:daughter child:son",), "外孙女": ("child:daughter child:daughter",),
    "侄子": ("sibling:brother child:son",), "侄女": ("sibling:brother child:daughter",),
    "外甥": ("sibling:sister child:son",), "外甥女": ("sibling:sister child:daughter",),
    "叔叔": ("parent:father sibling:brother",), "姑姑": ("parent:father sibling:sister",),
    "舅舅": ("parent:mother sibling:brother",), "阿姨": ("parent:mother sibling:sister",),
    "表哥": ("parent sibling child:son",), "表弟": ("parent sibling child:son",),
    "表姐": ("parent sibling child:daughter",), "表妹": ("parent sibling child:daughter",),
    "堂哥": ("parent:father sibling:brother child:son",),
    "堂弟": ("parent:father sibling:brother child:son",),
    "堂姐": ("parent:father sibling:brother child:daughter",),
    "堂妹": ("parent:father sibling:brother child:daughter",),
}  # fmt: skip
PATHS: dict[str, tuple[tuple[Step, ...], ...]] = {
    word: tuple(_steps(path) for path in paths) for word, paths in _PATHS_SAID.items()
}
for _word in list(PATHS):
    if "-" in _word and "in-law" not in _word:
        PATHS[_word.replace("-", " ")] = PATHS[_word]
PATHS["step-son"], PATHS["step-daughter"] = PATHS["stepson"], PATHS["stepdaughter"]
PATHS["stepmom"] = PATHS["stepmum"] = PATHS["stepmother"]
PATHS["stepdad"] = PATHS["stepfather"]

# A former relation: "ex-wife", "my ex", "former boss", 前夫, 前女友 — whoever the relation ended with.
_EX_PREFIXES = ("ex-", "ex ", "former ", "previous ")
# A spouse or partner of the past: "late wife" (a death ends no marriage in the graph, but the word
# marks the past), "first husband" (the earlier one). Without one whose relation ended, it is the
# one held (recall's `QueryTerms.otherwise`).
PAST_PREFIXES = ("late ", "first ")
_PAST_PREDICATES = frozenset({Predicate.SPOUSE, Predicate.PARTNER})
_ZH_EX: dict[str, tuple[str, ...]] = {
    "前夫": (Predicate.SPOUSE,), "前妻": (Predicate.SPOUSE,),
    "前任": (Predicate.SPOUSE, Predicate.PARTNER), "前男友": (Predicate.PARTNER,),
    "前女友": (Predicate.PARTNER,),
}  # fmt: skip


def former(word: str) -> tuple[tuple[Step, ...], ...]:
    """The paths of a former relation's word ("ex-husband", "ex", "former boss", "前夫", "前老板"),
    or () for any other word: one ended step of the kin word's predicate."""
    word = word.lower()
    if word in ("ex", "exes"):
        return ((Step(Predicate.SPOUSE, ended=True),), (Step(Predicate.PARTNER, ended=True),))
    if word in _ZH_EX:
        return tuple((Step(predicate, ended=True),) for predicate in _ZH_EX[word])
    rest = next((word[len(p) :] for p in _EX_PREFIXES + PAST_PREFIXES if word.startswith(p)), None)
    if rest is None and word.startswith("前") and word[1:] in _ZH:
        rest = word[1:]
    found = KIN_WORDS.get(rest) if rest else None
    if found is None or (word.startswith(PAST_PREFIXES) and found[0] not in _PAST_PREDICATES):
        return ()
    labels = frozenset({found[1]} & OTHER_GENDER.keys())
    predicates = (Predicate.SPOUSE, Predicate.PARTNER) if found[0] == Predicate.PARTNER else (found[0],)
    return tuple((Step(predicate, labels, ended=True),) for predicate in predicates)


def paths_of(word: str) -> tuple[tuple[Step, ...], ...]:
    """How kin `word` names someone through others (`PATHS`, `former`); () for a plain kin word."""
    word = word.lower()
    found = PATHS.get(word)
    if found is not None:
        return found
    return former(word) if word.startswith(("ex", "former ", "previous ", "前", *PAST_PREFIXES)) else ()


# Words of a former relation said in Chinese, for a query's substrings (longest first).
ZH_COMPOSED = tuple(
    sorted(
        {w for w in PATHS if "\u4e00" <= w[0] <= "\u9fff"} | set(_ZH_EX) | {"前" + w for w in _ZH},
        key=len,
        reverse=True,
    )
)
