"""Whose condition a statement tells, read from the people the user has already named: "Ella has
epilepsy" is a dependant's safety fact when the user said "my daughter is called Ella" before, and
"Maya can't have dairy, she's lactose intolerant" is someone else's when Maya is their colleague.

The safety model reads one statement alone, and a bare first name tells it nothing of who that is
to the user (it read "Ella has epilepsy" as someone else's, 0.12 pinned, and Maya's intolerance as
a dependant's, 0.95). The user's entity graph (`memory_core.entities`) knows: the relations its
write path records between the user and the people they name. This reader takes the people a
statement names by their aliases and says what they are to the user, when that settles it:

- the user's children (and stepchildren): "dependant";
- partners, spouses, friends, neighbours, siblings, colleagues and managers: "other";
- parents and other relatives are left to the model (they may be in the user's care), as are
  people the graph does not know, and a statement naming people of both kinds;
- any of the user's family they said they look after ("My gran, Edith, lives with us and I look
  after her", "平时都是我照顾她": `entities.care`): "dependant".

A statement that speaks of anyone by a kinship or social word ("while Mum's in hospital", "我妈妈")
is left to the model too: the condition may be that person's, and the model reads those words; so
is a name that owns another person ("Ella's teacher", "小米的老师"). The graph is read only for a
statement the safety model reads as someone's condition (`whose_known.known_person`), once a
statement, in one query. What was said of a person before the user said who they are is judged
again when they do (`people_reread`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from django.db.models import Q

from memory_core.entities import transcript
from memory_core.entities.asides import FEMALE_KIN, MALE_KIN
from memory_core.entities.care import CARES_FOR
from memory_core.entities.kinship import KIN_WORDS, ZH_KIN_WORDS
from memory_core.entities.models import Relation
from memory_core.entities.names import given_name
from memory_core.entities.rules_zh import ZH_SURNAMES
from memory_core.entities.served import SERVED_LABELS
from memory_core.entities.vocabulary import Predicate
from memory_core.entities.zh_forms import as_mandarin
from memory_core.judgement import medicines
from memory_core.language import simplified_han
from memory_core.reading.words import word_set

DEPENDANT = "dependant"
OTHER = "other"

# What a relation makes the other person to the user, seen from the user ("the user —child→ Ella"):
# the predicate of the relation the user is the subject of.
_FROM_THE_USER: dict[str, str] = {
    Predicate.CHILD: DEPENDANT,
    Predicate.SPOUSE: OTHER,
    Predicate.PARTNER: OTHER,
    Predicate.FRIEND: OTHER,
    Predicate.SIBLING: OTHER,
    Predicate.COLLEAGUE: OTHER,
    Predicate.MANAGER: OTHER,
}
# The same seen from the other end ("Ella —parent→ the user": the user is Ella's parent).
_TO_THE_USER: dict[str, str] = {
    Predicate.PARENT: DEPENDANT,
    Predicate.SPOUSE: OTHER,
    Predicate.PARTNER: OTHER,
    Predicate.FRIEND: OTHER,
    Predicate.SIBLING: OTHER,
    Predicate.COLLEAGUE: OTHER,
    Predicate.MANAGER: OTHER,  # the user manages them
}
# Relatives the user brings up as their own children (`Relation.label`, canonical as recorded).
_STEPCHILDREN = frozenset({"stepson", "stepdaughter", "stepchild", "step-son", "step-daughter"})

# Words for a person someone else has: after a name's "'s" or "的" (or right after a Chinese name),
# the name owns that person and is not the one the statement is about.
_EN_PEOPLE_WORDS = sorted(
    {w for w in KIN_WORDS if w.isascii()}
    | {"teacher", "coach", "doctor", "nurse", "carer", "nanny", "babysitter", "classmate", "mate", "buddy"},
    key=len,
    reverse=True,
)
_ZH_PEOPLE_WORDS = sorted(
    {simplified_han(w) for w in KIN_WORDS if not w.isascii()}
    | {"老师", "医生", "同学", "教练", "保姆", "阿姨", "朋友", "同事"},
    key=len,
    reverse=True,
)
_EN_OWNS = re.compile(r"^['\u2019]s\s+(?:" + "|".join(map(re.escape, _EN_PEOPLE_WORDS)) + r")s?\b", re.I)
_ZH_OWNS = re.compile(r"^的?(?:" + "|".join(map(re.escape, _ZH_PEOPLE_WORDS)) + ")")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# The user speaking of themselves: "I", "me", "my", "我" (not "我们", "我哋": we).
_FIRST_PERSON = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|i'll|im|me|my|myself|mine)\b|我(?![们們哋])")


@dataclass(frozen=True)
class Person:
    """One person the user named, by their aliases (lower case, as the graph keeps them), and what
    they are to the user ("dependant", "other", or "" when the graph does not settle it)."""

    aliases: tuple[str, ...]
    to_the_user: str
    kin: str = ""  # what they are to the user, as the graph's relation says it ("daughter", "mother")
    # The kin words they were said by ("mum", "奶奶"), and whether the user said they look after them.
    kin_words: tuple[str, ...] = ()
    cared: bool = False


@dataclass
class PeopleKnown:
    """The people of one namespace's graph, read once, when first asked."""

    namespace_id: int
    _people: list[Person] | None = field(default=None, init=False)

    def people(self) -> list[Person]:
        if self._people is None:
            self._people = _read(self.namespace_id)
        return self._people

    def whose(self, text: str) -> str | None:
        """What the people of the graph that `text` names as its subject are to the user:
        "dependant" or "other" when all are one kind, None when it names none, people of both
        kinds, or someone the graph leaves open (a parent, a relative)."""
        if _ENDED.search(simplified_han(text)):
            return None  # "Ella's asthma is gone": whether there is a condition is the model's to say
        plain = simplified_han(" ".join(text.split()))
        named = [person for person in self.people() if _names(plain, person.aliases)]
        rest = _without_names(plain, named)
        if _mentions_people_words(rest):
            # "my brother", "Mum's", "Ella's teacher": whose it is rests on the words (a name
            # holding a kin word, "蓮姐", "阿哥", is a name), unless the words are the user's own
            # kin they look after ("奶奶叫王秀兰, 有高血压" after "一直是我在照顾她"), whom the
            # model, reading a grandmother or a mother, takes for someone else.
            cared, rest = self._cared_by_kin_word(rest)
            if not cared or _mentions_people_words(rest):
                return None
            named += cared
        found = {person.to_the_user for person in named}
        return found.pop() if len(found) == 1 and "" not in found else None

    def _cared_by_kin_word(self, plain: str) -> tuple[list[Person], str]:
        """The people in the user's care that `plain` says by the user's own kin word ("my mum",
        "Mum", "我奶奶", "奶奶" opening a clause), each word one person only, and `plain` without
        those words."""
        people = self.people()
        found: list[Person] = []
        for pattern in _OWN_KIN:
            for match in reversed(list(pattern.finditer(plain))):
                word = simplified_han(match.group("kin").lower())
                holders = [person for person in people if word in person.kin_words]
                if len(holders) != 1 or not holders[0].cared:
                    return [], plain
                found.append(holders[0])
                plain = plain[: match.start("kin")] + " " + plain[match.end("kin") :]
        return found, plain

    def kin_said_by_pronoun(self, text: str) -> str | None:
        """`text` with the user's kin in their care said by a pronoun, when it says them by a kin
        word ("Mum has been so tired" as "she has been so tired", "奶奶最近血压高" as "她最近血压
        高"); None when it says none."""
        plain = simplified_han(" ".join(text.split()))
        if not self._cared_by_kin_word(plain)[0]:
            return None
        said = kin_by_pronoun(plain)  # "my mum", "我奶奶"
        for pattern in (_EN_BARE_KIN, _ZH_CLAUSE_KIN):  # "Mum", "奶奶" opening a clause
            said = pattern.sub(lambda m: _pronoun_of(m.group("kin")), said)
        return said

    def said_by_pronoun(self, text: str) -> list[str]:
        """`text` with the one known person it names said by a pronoun ("Farzana has kidney
        disease" as "she has kidney disease", "玉兰最近老是摔" as "她最近老是摔"), for the safety
        model, which learned what is a condition from people said by pronouns and kin words and
        reads little from a name it has never seen (0.12 someone's condition, by the pronoun 0.57):
        both "she" and "he" when the graph does not say which ("child"); none when it names no one
        of the graph, or several."""
        plain = simplified_han(" ".join(text.split()))
        named = [person for person in self.people() if _names(plain, person.aliases)]
        if len(named) != 1:
            return []
        label = named[0].kin
        pronouns = [p for p, kin in (("she", FEMALE_KIN), ("he", MALE_KIN)) if label in kin] or ["she", "he"]
        return [_by_pronoun(plain, named[0].aliases, pronoun) for pronoun in pronouns]


# A condition said to be over ("Ella's asthma is gone since she turned ten", "doesn't have eczema
# any more", "小晴的水痘已经好了"): the graph says whose a condition is, not whether there is one, and
# the model read these at 0.52 someone's; such a statement is left to the model.
# (Not "can't walk any more", "can no longer swallow solids": a condition that began.)
_ENDED = re.compile(
    r"(?i)\b(?:(?:doesn't|does\s+not|don't|do\s+not|isn't|is\s+not|hasn't|has\s+not)\s+[^.!?]{0,40}?any\s*more"
    r"|no\s+longer\s+(?:has|have|needs?|takes?|uses?|gets?|allergic|diabetic|asthmatic)|(?:is|are)\s+no\s+longer"
    r"|is\s+gone|went\s+away|grew\s+out\s+of|outgr[eo]w|used\s+to\s+(?:be|have|get)"
    r"|cleared\s+up|all\s+better|fully\s+recovered|(?:is|was|got)\s+healed)\b"
    r"|已经好了|已经全好|痊愈|康复|不再有|没有了|以前有|以前对"
)


# A treatment or a medical device ("Sam's on levothyroxine", "Arjun's CGM fell off", "一一的人工耳蜗
# 外机坏了", "宥宥的類固醇藥膏"): a condition by the brief's own measure (medication that matters, a
# medical device), which the model, reading one statement about a bare name, often does not see
# (0.01 for the cochlear implant's question). `treatment_named` says a statement names one.
_DEVICES = re.compile(
    r"(?i)\b(?:cgm|dexcom|insulin(?:\s+pump)?|omnipod|pump\s+site|inhaler|nebuli[sz]er|epi-?pens?|"
    r"auto-?injector|hearing\s+aids?|cochlear\s+implant|wheelchair|walking\s+frame|zimmer\s+frame|"
    r"oxygen(?:\s+concentrator)?|cpap|pacemaker|stent|catheter|stoma|feeding\s+tube|peg\s+tube|"
    r"dialysis|chemo(?:therapy)?|meds|medication|power\s*chair|aac(?:\s+device)?|hypo\s+kit|growth\s+hormone)\b"
    r"|胰岛素|人工耳蜗|助听器|轮椅|呼吸机|制氧机|吸入器|喷剂|雾化|血糖仪|起搏器|心脏支架|导尿管|助行架|"
    r"类固醇|抗凝|降压药|降血压药|降糖药|透析|洗肾|化疗|肾透析|胃管|生长激素|激素针|针剂"
)


def treatment_named(text: str) -> bool:
    """Whether `text` names a medicine or a medical device."""
    plain = simplified_han(text)
    return bool(_DEVICES.search(plain) or medicines.named(plain))


def speaks_of_self(text: str) -> bool:
    """Whether `text` is said in the first person singular."""
    return bool(_FIRST_PERSON.search(text.replace("\u2019", "'")))


def _read(namespace_id: int) -> list[Person]:
    """Each person related to the user in the namespace, with what the relations make them."""
    rows = (
        Relation.objects.filter(namespace_id=namespace_id, object__isnull=False)
        .filter(Q(subject__is_self=True) | Q(object__is_self=True))
        .values_list(
            "predicate",
            "label",
            "subject__is_self",
            "subject_id",
            "subject__aliases",
            "object_id",
            "object__aliases",
        )
    )
    kinds: dict[str, set[str]] = {}
    aliases: dict[str, tuple[str, ...]] = {}
    kin_words: dict[str, tuple[str, ...]] = {}
    labels: dict[str, str] = {}
    cared: set[str] = set()
    served: set[str] = set()
    for predicate, label, user_first, subject_id, subject_aliases, object_id, object_aliases in rows:
        person, names = (object_id, object_aliases) if user_first else (subject_id, subject_aliases)
        named = [a for a in names or () if _is_a_name(a)]
        aliases[str(person)] = tuple(
            dict.fromkeys([*named, *(short for a in named for short in short_forms(a))])
        )
        kin_words[str(person)] = tuple(simplified_han(a.lower()) for a in names or () if not _is_a_name(a))
        if user_first and predicate == Predicate.OTHER and label == CARES_FOR:
            cared.add(str(person))
            kinds.setdefault(str(person), set())
            continue
        if user_first and predicate == Predicate.OTHER and label in SERVED_LABELS:
            served.add(str(person))  # "one of my pupils, Ayaan"
            continue
        if user_first and label and predicate != Predicate.OTHER:
            labels.setdefault(str(person), label.lower())  # seen from the user: what they are to them
        table = _FROM_THE_USER if user_first else _TO_THE_USER
        kind = table.get(predicate, "")
        if user_first and predicate == Predicate.RELATIVE and (label or "").lower() in _STEPCHILDREN:
            kind = DEPENDANT
        kinds.setdefault(str(person), set()).add(kind)
    for pupil in served:
        # A pupil, player, patient or customer is someone else's, unless the user also said they
        # are kin ("my son Jayden" and "one of my players, Jayden"): the kin word says more.
        if pupil not in kinds and pupil not in cared:
            kinds[pupil] = {OTHER}
    # A person the relations disagree on (a colleague who is also a friend is still "other"; a
    # child who is also a colleague is not settled) is what all of them say, or open; one of the
    # user's kin they say they look after ("my gran, Edith… I look after her", `entities.care`) is
    # in their care, whatever the kin word. Care said of no kin settles nothing.
    return [
        Person(
            aliases[person],
            DEPENDANT if person in cared else (found.pop() if len(found) == 1 else ""),
            labels.get(person, ""),
            kin_words[person],
            person in cared,
        )
        for person, found in kinds.items()
        if aliases[person] or person in cared
    ]


_KIN = frozenset(KIN_WORDS) | {simplified_han(w) for w in KIN_WORDS}


# The short forms a person is then said by, after a full name: the given name as the resolver reads
# it ("Tom Hargreaves" -> "Tom", "王德胜" -> "德胜": `resolve.given_name`), a romanised name told
# surname first ("Tan Ah Kow" -> "Ah Kow"), and a name said with a word of respect without it ("阿月姨"
# -> "阿月"). A statement about "Ah Kow" after "我 father-in-law 叫 Tan Ah Kow" named no one the
# graph knew.
_ROMANISED_SURNAMES = word_set(
    "tan lim lee ng ong goh chan wong teo koh chua low yeo chong lau ho sim tay foo yap chin liew leong"
    " cheng tang lai loh pang soh seah toh quek heng kwek choo khoo neo ang poh wee yong lin chen"
)
_ZH_RESPECTED = re.compile(r"(?P<name>[阿小老].)(?:姨|婆|伯|叔|嫂|公|姐|哥)")
# A two-character name, a surname and a given name of one: the given name is not said alone but with
# 阿 or a word of respect ("陳鳳" -> "阿鳳", "鳳姐", "鳳婆"), each two characters and no common word.
_ZH_ONE_CHARACTER_GIVEN = re.compile(rf"[{ZH_SURNAMES}][\u4e00-\u9fff]")
_ZH_WITH_GIVEN = ("阿{}", "{}姨", "{}婆", "{}姐", "{}哥", "{}叔", "{}伯", "{}嫂")


def short_forms(alias: str) -> list[str]:
    """The shorter names one person with `alias` is said by (see above); none for other shapes."""
    if _HAN.search(alias):
        plain = simplified_han(alias)
        if respected := _ZH_RESPECTED.fullmatch(plain):
            return [respected.group("name")]
        if _ZH_ONE_CHARACTER_GIVEN.fullmatch(plain):
            # as written: a traditional name is said in traditional characters
            return [form.format(alias[-1]) for form in _ZH_WITH_GIVEN]
    elif len(words := alias.split()) == 3 and words[0].lower() in _ROMANISED_SURNAMES:
        return [" ".join(words[1:])]
    return [given] if (given := given_name(alias)) else []


def _is_a_name(alias: str) -> bool:
    """A name, not the kinship word the person was also mentioned by ("daughter", "妈妈": "my
    colleague's daughter" is not the user's)."""
    return len(alias) >= 2 and alias.lower() not in _KIN and simplified_han(alias) not in _KIN


# The words that speak of a person of someone's circle, for `_mentions_people_words`: kinship and
# social words, not the professionals a health statement names ("the doctor says", "医生说": their
# owner decides, `_EN_OWNS`) nor a life stage ("since he was a baby", "as a kid").
_LIFE_STAGES = frozenset(
    {"baby", "babies", "kid", "kids", "child", "children", "boy", "girl", "lad", "lass", "toddler", "newborn"}
    | {"toddlers", "newborns"}
)
_PROFESSIONALS = frozenset({"teacher", "coach", "doctor", "nurse", "carer", "nanny", "babysitter"})
# Nor a pet ("Ella is allergic to cats", "小米对猫毛过敏").
_PETS = frozenset(
    w
    for word, (predicate, _) in KIN_WORDS.items()
    if predicate == Predicate.PET
    for w in (word, simplified_han(word))
)
_EN_CIRCLE = [w for w in _EN_PEOPLE_WORDS if w not in _LIFE_STAGES | _PROFESSIONALS | _PETS]
_ZH_CIRCLE = [w for w in _ZH_PEOPLE_WORDS if w not in {"老师", "医生", "教练", "保姆", "阿姨"} | _PETS]
_EN_PEOPLE = re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, _EN_CIRCLE)) + r")s?(?![\w-])", re.I)
_ZH_PEOPLE = re.compile("|".join(map(re.escape, _ZH_CIRCLE)))


def _mentions_people_words(text: str) -> bool:
    """Whether `text` speaks of anyone by a kinship or social word ("Mum", "my brother", "她老师"):
    then whose condition it tells may be that person's, and the model reads those words; the graph
    settles only a statement that names people by their names alone."""
    plain = simplified_han(text)
    # Cantonese as Mandarin too: "我個仔" is "my son" (`as_mandarin`: 个 before a kin word as 的).
    folded = as_mandarin(plain, ZH_KIN_WORDS) if _HAN.search(plain) else plain
    return bool(_EN_PEOPLE.search(plain) or _ZH_PEOPLE.search(plain) or _ZH_PEOPLE.search(folded))


def _without_names(plain: str, people: list[Person]) -> str:
    """`plain` without the Chinese names of `people` in it (the kin words a name holds are no one's)."""
    for alias in sorted(
        {a for person in people for a in person.aliases if _HAN.search(a)}, key=len, reverse=True
    ):
        plain = _han_word(alias).sub(" ", plain)
    return plain


def _names(plain: str, aliases: tuple[str, ...]) -> bool:
    """Whether `plain` (a statement, spaces collapsed, in simplified characters) names someone by
    one of `aliases` as who it is about (not as the owner of another person: "Ella's teacher")."""
    any_upper = any(c.isupper() for c in plain)
    for alias in aliases:
        if _HAN.search(alias):
            for match in _han_word(alias).finditer(plain):
                if not _ZH_OWNS.match(plain, match.end()):
                    return True
            continue
        for match in _word(alias).finditer(plain):
            # In a text written with capitals a name is capitalised ("will", "may", "grace").
            if any_upper and not match.group(0)[0].isupper():
                continue
            if not _EN_OWNS.match(plain[match.end() :]):
                return True
    return False


@cache
def _han_word(alias: str) -> re.Pattern[str]:
    """An alias with Chinese characters as said in a simplified text, in any case (aliases are kept
    in lower case: "ann姐" is "Ann姐" as said)."""
    return re.compile(re.escape(simplified_han(alias)), re.I)


@cache
def _word(alias: str, *, owned: bool = False) -> re.Pattern[str]:
    # No letter around it but a Chinese one: "Marcus嘅噴劑", "Wei Jie对海鲜过敏" name them; "Anaïs"
    # is not "Ana". Typed without the apostrophe, "maisies hypo kit" is Maisie's. With `owned`, a
    # "'s" after it is part of the match (group "s").
    plural = "" if alias.lower().endswith("s") else "(?:s(?=\\s))?"
    owner = r"(?P<s>['\u2019]s\b)?" if owned else ""
    return re.compile(
        r"(?<![^\W\u4e00-\u9fff])(?<!')" + re.escape(alias) + plural + owner + r"(?![^\W\u4e00-\u9fff])",
        re.I,
    )


# The user's kin said by its word ("my daughter", "our eldest son", "我女儿", "我個仔"), for
# `introduction_by_pronoun`.
_EN_MY_KIN = re.compile(
    r"(?i)\b(?:my|our)\s+(?:(?:little|baby|eldest|oldest|youngest|younger|older|elder|big|twin|teenage|"
    r"adult|new|late)\s+)*(?P<kin>"
    + "|".join(map(re.escape, _EN_PEOPLE_WORDS))  # longest first
    + r")\b"
)
# Read on the Mandarin fold (`as_mandarin`): traditional and Cantonese forms are its words by then.
_ZH_MY_KIN = re.compile(r"(?:我们|我家|我)(?:的|个)?(?P<kin>" + "|".join(map(re.escape, ZH_KIN_WORDS)) + ")")


# The user's own kin said by their word, for `PeopleKnown._cared_by_kin_word`: "my mum", "Mum" said
# as a name (capitalised, not someone's: "his Mum"), "我奶奶", and a Chinese kin word opening a clause
# ("奶奶叫王秀兰"; not "小明的奶奶", "他奶奶").
_EN_BARE_KIN = re.compile(
    r"(?<!\bhis\s)(?<!\bher\s)(?<!\byour\s)(?<!\btheir\s)(?<!'s\s)"
    r"\b(?P<kin>Mum|Mom|Mam|Mummy|Mommy|Dad|Daddy|Nan|Nana|Nanna|Gran|Granny|Grandma|Grandpa|Grandad|Granddad)\b"
)
_ZH_CLAUSE_KIN = re.compile(
    r"(?:^|(?<=[\uff0c,\u3002.!\uff01?\uff1f;\uff1b\s]))(?P<kin>"
    + "|".join(map(re.escape, ZH_KIN_WORDS))
    + ")"
)
_OWN_KIN = (_EN_MY_KIN, _EN_BARE_KIN, _ZH_MY_KIN, _ZH_CLAUSE_KIN)


def _pronoun_of(word: str) -> str:
    """The pronoun a kin word is said by: "she", "he" or "they"; 她 or 他 for a Chinese one."""
    found = KIN_WORDS.get(word.lower()) or KIN_WORDS.get(simplified_han(word))
    label = found[1] if found else ""
    if _HAN.search(word):
        return "她" if label in FEMALE_KIN else "他"
    return "she" if label in FEMALE_KIN else "he" if label in MALE_KIN else "they"


def introduction_by_pronoun(text: str) -> str | None:
    """`text` with the user's kin it introduces by name said by a pronoun instead ("My daughter Esme
    is 6 months" as "she is 6 months", "我儿子乐乐才三岁" as "他才三岁"), or None when it
    introduces no kin by name. The safety model pins nearly anything said of "my daughter" (its
    dependants' conditions are said so), an introduction too; read with a pronoun, only a condition
    still reads as one."""
    reading = transcript.read(text)
    names = [ref.name for ref in reading.refs if ref.name and ref.kin and ref.of is None and not ref.is_self]
    if not names:
        return None
    said = kin_by_pronoun(text)
    if said == as_mandarin(text, ZH_KIN_WORDS):
        return None
    # The name goes with its kin word: "she Mia is on the spectrum" is "she is on the spectrum".
    # (A condition said where a name could be is no name by now: `rules_zh._A_CONDITION`.)
    for name in sorted(names, key=len, reverse=True):
        if _HAN.search(name):
            said = said.replace(simplified_han(name), "")
        else:  # "she Mia is…", "he Reuben (5) has…", "她Chloe读紧中一"
            said = re.sub(
                rf"(\b(?:she|he|they)\s+|[她他]\s*){re.escape(name)}(?![A-Za-z])(?:\s*\(\d{{1,2}}\))?,?",
                r"\1",
                said,
            )
    return " ".join(said.split())


def kin_by_pronoun(text: str) -> str:
    """`text` with the user's kin said by their word ("my little girl", "我個女") said by a pronoun;
    Chinese as Mandarin."""
    said = _EN_MY_KIN.sub(lambda m: _pronoun_of(m.group("kin")), text)
    if _HAN.search(said):  # traditional and Cantonese as Mandarin ("我個女" as "我的女儿")
        said = _ZH_MY_KIN.sub(lambda m: _pronoun_of(m.group("kin")), as_mandarin(said, ZH_KIN_WORDS))
    return said


_PRONOUNS = {"she": ("she", "her", "她"), "he": ("he", "his", "他")}


def _by_pronoun(plain: str, aliases: tuple[str, ...], pronoun: str) -> str:
    """`plain` with each of `aliases` said by `pronoun` ("Ray's physio" as "his physio"), and the
    user's kin said by a kin word too ("my little girl Maisie" as "she she")."""
    subject, owner, han = _PRONOUNS[pronoun]
    plain = kin_by_pronoun(plain)
    any_upper = any(c.isupper() for c in plain)

    def said(match: re.Match[str]) -> str:
        name = match.group(0)
        if any_upper and not name[0].isupper():
            return name  # "will", "may" in a text written with capitals are no names (`_names`)
        if match.group("s") is None:
            # "maisies hypo kit": Maisie's, typed without the apostrophe
            return subject if name.lower() in aliases else owner
        # "Ella's been sick" is "she's been sick"; "Ella's inhaler" is "her inhaler"
        return f"{subject}'s" if _IS_OR_HAS.match(plain, match.end()) else owner

    for alias in sorted(aliases, key=len, reverse=True):
        if _HAN.search(alias):
            plain = _han_word(alias).sub(han, plain)
        else:
            plain = _word(alias, owned=True).sub(said, plain)
    return plain


# After a name's "'s", words that make it "is" or "has" ("Ella's been sick", "Sam's on steroids").
_IS_OR_HAS = re.compile(
    r"\s+(?:been|got|gotten|on|in|at|not|a|an|always|still|just|now|going|getting|having|taking|off|back|"
    r"home|really|very|so|too|had|allergic|diabetic|asthmatic|epileptic|pregnant|autistic|coeliac|celiac|"
    r"deaf|blind|type|due|started|stopped|finally|recovering|doing|feeling)\b",
    re.I,
)
