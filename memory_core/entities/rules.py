"""Offline extraction of entities and relations from one statement: the shared types and the English
reading (the Chinese one is `rules_zh`).

A statement is read into `Ref`s (who or what it names: "my sister Ana", "Ana's husband Marc",
"the user", "腾讯") and `Triple`s (subject, predicate, object or value). A `Ref` that names a kin
("my sister") implies its own triple (me —sibling[sister]→ Ana). Resolution to stored entities
is `memory_core.entities.resolve`'s job; this module needs no database. A statement is read as
a whole, with its speakers, by `memory_core.entities.transcript.read`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory_core.entities.endings import Ending, english_endings
from memory_core.entities.kinship import EN_KIN_WORDS, kin, kind_of
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.reading.words import NOT_NAMES, ORG, PLACE, alternation, word_set


@dataclass(frozen=True)
class Ref:
    """A mention: the user (`is_self`), a name, and/or a kin word relative to `of` (None: the user)."""

    name: str = ""
    kin: str = ""  # the word used ("sister", "姐姐")
    of: Ref | None = None
    kind: str = EntityKind.PERSON
    is_self: bool = False
    # The workplace said with a boss's or colleague's name ("my manager at Halden is Rebecca").
    works_at: str = ""

    def __post_init__(self) -> None:
        # Every extractor's names pass here: none is stored with a quote mark or a possessive.
        if self.name:
            object.__setattr__(self, "name", clean_name(self.name))

    @property
    def owner(self) -> Ref:
        return self.of or SELF


SELF = Ref(is_self=True)

_NAME_EDGES = "\"'`\u2018\u2019\u201c\u201d\u300c\u300d\u300e\u300f\u00ab\u00bb()[]<>*_"
_NAME_TAIL = ".,;:!?\uff0c\u3002\uff01\uff1f\uff1b\uff1a\u3001"


def clean_name(name: str) -> str:
    """ "Ana's" → "Ana", "\"Rex\"." → "Rex", "Tom!" → "Tom": a name as said, without the quote
    marks, end punctuation or possessive around it."""
    text = " ".join(name.split())
    # "Globex. Thanks" ran past the sentence's end; "St. Louis" and "Dr. Ana" did not.
    text = re.split(r"(?<=[^\s.!?]{4}[.!?;])\s+", text)[0]
    while True:
        stripped = text.strip(_NAME_EDGES + _NAME_TAIL + " ")
        stripped = re.sub(r"(?i)['\u2019]s$|(?<=s)['\u2019]$", "", stripped)
        if stripped == text:
            return text
        text = stripped


@dataclass(frozen=True)
class Triple:
    subject: Ref
    predicate: str
    label: str = ""
    object: Ref | None = None
    value: str = ""
    # The statement says the relation ended ("we divorced", "I left Acme"): its window closes.
    ended: bool = False


@dataclass
class Reading:
    refs: list[Ref] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)
    # Names given by a pronoun opening the statement with no one before it to stand for ("Her name's
    # Pat."; "她叫陳美玉, …"): (name, "her" | "his" | "" for either), for the one the message
    # before named (`hooks`).
    pronoun_names: list[tuple[str, str]] = field(default_factory=list)

    def add_ref(self, ref: Ref) -> None:
        if ref.is_self or ref in self.refs:
            return
        if ref.of is not None:
            self.add_ref(ref.of)
        self.refs.append(ref)
        if ref.kin:
            found = kin(ref.kin)
            if found:
                self.add(Triple(ref.owner, found[0], found[1], object=ref))

    def add(self, triple: Triple) -> None:
        for ref in (triple.subject, triple.object):
            if ref is not None:
                self.add_ref(ref)
        if triple not in self.triples:
            self.triples.append(triple)


# --- English ----------------------------------------------------------------------------------

_NAME = r"(?:[A-Z][\w'\u00c0-\u024f-]*(?<!'s)(?:\s+[A-Z][\w'\u00c0-\u024f-]*(?<!'s)){0,2})"
_KIN = rf"(?i:{alternation(list(EN_KIN_WORDS))})"
# Any word before a kin word that says which one ("next-door neighbour", "first wife", "rowing-club
# friend", "old university flatmate"), up to three: not a word of grammar, nor a kin word's start
# ("half brother" is one word), nor a word that makes "partner" a business or tennis one.
_NOT_MODIFIERS = (
    "a|an|the|my|our|your|his|her|their|its|this|that|these|those|and|or|but|nor|of|to|in|on|at|for|with|"
    "from|by|as|is|was|are|were|be|been|being|am|has|have|had|do|does|did|not|no|who|whom|whose|which|what|"
    "when|where|why|how|i|me|we|us|you|he|him|she|it|they|them|also|then|so|if|than|just|very|really|only|"
    "even|still|too|said|told|met|saw|called|named|ex|former|previous|future|would-be"
)
_MODIFIER = (
    rf"(?!(?:{_NOT_MODIFIERS}|{alternation(list(EN_KIN_WORDS))})(?![\w-]))[a-z][a-z-]*\s+(?!(?i:partners?)\b)"
)
_LISTED = r"(?i:(?:little|baby|younger|older|big|twin|best|new|old|elder|late|favou?rite|dear|close)\s+)"
_ADJ = rf"(?:{_LISTED}|{_MODIFIER}){{0,3}}"
_MY = r"(?i:my|our|the\s+user's|user's)"
_POSSESSOR = rf"(?:{_MY}|{_NAME}'s)"
_CHAIN = rf"{_POSSESSOR}(?:\s+{_ADJ}{_KIN}'s)*"
# "my best friend from school, Dervla": whence the kin is, before the comma and their name.
_WHENCE = r"(?:\s+(?:from|at|in)\s+(?:(?i:the|my|our)\s+)?[\w'-]+(?:\s+[\w'-]+)?(?=,))?"
_NP_KIN = rf"(?P<poss>{_CHAIN})\s+{_ADJ}(?P<kin>{_KIN})(?!\w)(?:{_WHENCE},?\s+(?P<name>{_NAME}))?"
# "a man called Pieter", "a young woman named Vivienne", "a senior partner, Imogen": a person
# described before the name.
_DESCRIBED = (
    r"(?:(?i:an?|the|someone|somebody)\s+(?:[a-z][\w'-]*\s+){0,3}?(?:(?:called|named)\s+|(?<=\s)[a-z][\w'-]*,\s+)|"
    r"(?i:someone|somebody)\s+(?:called|named)\s+)?"
)
_SELF_WORDS = r"(?:I|(?i:the\s+user|user|we))"
# Sentence openers that a capitalised-word name pattern would otherwise take for a name.
_STOP_NAMES = (
    word_set(
        "i my our the a an and but so then now also yesterday today tomorrow last next this that he "
        "she they it we you his her their user when after before since while if as in on at"
    )
    | NOT_NAMES
)

_QUOTE = "[\"'\u201c\u2018]?"
# "my manager at Halden Insurance is …", "my flatmate on Cowley Road is …", "Simone's son from her
# first marriage is …": where or whence the kin is, said between the kin word and the name.
_WHERE = r"(?:\s+(?P<prep>at|from|on|in|of)\s+(?P<where>[^,.;:!?]{1,40}?))?"
_NAMED = re.compile(
    rf"{_NP_KIN}{_WHERE}(?:(?:\s+(?:there|then|now|here))?\s+(?:is|was|has\s+been|had\s+been|became)\s+"
    rf"(?:called\s+|named\s+|{_DESCRIBED})|'s\s+name\s+is\s+|\s+(?:called|named)\s+)"
    rf"{_QUOTE}(?P<name2>{_NAME})(?=$|[\s.,;!?\"'\u201d\u2019])"
)
# "Rachel remarried; her husband is Greg": a his / her after a statement that opens with one
# person's name (and names no one else before it) is that person's.
_OPENING_NAME = re.compile(rf"\s*(?P<name>{_NAME})(?!'s)\b")
_THEIR_KIN = re.compile(rf"\b(?:[Hh]er|[Hh]is)\s+(?={_ADJ}{_KIN}(?!\w))")
_WORK_KIN = frozenset({Predicate.MANAGER, Predicate.COLLEAGUE})
# "Stan is my grandad", "Stan's my grandad" (not "Tom is my son's teacher": Tom is the teacher).
_IS_MY = re.compile(rf"(?P<name2>{_NAME})(?:\s+(?:is|was)|['\u2019]s)\s+{_NP_KIN}\b(?!['\u2019]s\b)")
_SUBJECT = rf"(?P<subj>{_NP_KIN}|{_SELF_WORDS}|{_NAME})"
_WORKS = re.compile(
    rf"{_SUBJECT}\s+(?i:(?:now\s+|currently\s+|still\s+)?(?:works|work|is\s+working|am\s+working|has\s+worked|"
    rf"started\s+working|is\s+employed|am\s+employed)\s+(?:at|for|with|by)|joined)\s+(?P<org>{ORG})"
)
_LIVES = re.compile(
    rf"{_SUBJECT}\s+(?i:(?:now\s+|currently\s+|still\s+)?(?:lives|live|is\s+living|am\s+living|resides|is\s+based|"
    rf"am\s+based|(?:has\s+|have\s+)?moved|(?:has\s+|have\s+)?relocated)\s+(?:back\s+)?(?:in|to|into))\s+"
    rf"(?:the\s+)?(?P<place>{PLACE})"
)
_ROLE = re.compile(
    rf"{_SUBJECT}\s+(?i:(?P<verb>is|am|works?\s+as|is\s+working\s+as|am\s+working\s+as)\s+(?:a|an)\s+)"
    r"(?P<role>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})(?=$|[\s.,;!?])"
)
# An aside between who and the verb: "I, after years of saying never, married …", "My daughter
# Ana, Tom's and mine, married …".
_ASIDE = r"(?:,\s+[^,.;:!?]{1,60},|,(?=\s))?"
# When, said between the verb and whom: "remarried in 2020, to …", "married again last year, to …".
_WHEN_WED = r"(?:\s+(?i:again))?(?:\s+(?i:in|on|last|this|that|back\s+in)\s+(?:[\w]+\s+){0,2}?[\w]+,?)?"
_MARRIED = re.compile(
    rf"{_SUBJECT}{_ASIDE}\s+(?i:is|am|are|got|was|were|has\s+been|had\s+been|became)\s+married{_WHEN_WED}\s+"
    rf"(?i:to)\s+{_DESCRIBED}(?P<name2>{_NAME})"
)
# "I married Daniel Okafor", "Priya wed Tom", "Tom remarried in 2020, to Ana": the relation said as
# the event; a time between the verb and whom needs the "to".
_WED = re.compile(
    rf"{_SUBJECT}{_ASIDE}\s+(?i:(?:just\s+|finally\s+|later\s+|then\s+)?(?:re)?(?:married|wed))"
    rf"(?:\s+|{_WHEN_WED}\s+(?i:to)\s+){_DESCRIBED}(?P<name2>{_NAME})"
)
# "I report to Tom", "…, reporting to Anwen Price", "working under a senior partner, Imogen": a
# boss said by a verb. Without a subject before the verb, the clause is the speaker's ("In 2014
# I joined …, reporting to …").
_BOSS_VERB = (
    r"(?i:(?:report|answer)(?:s|ed|ing)?\s+(?:directly\s+)?to|work(?:s|ed|ing)?\s+(?:directly\s+)?under)"
)
_REPORTS = re.compile(
    rf"(?:{_SUBJECT}\s+(?i:(?:now|still|then|is|am|was|were|had|has|have|been)\s+)*)?{_BOSS_VERB}\s+"
    rf"{_DESCRIBED}(?P<name2>{_NAME})"
)
_FIRST_PERSON = re.compile(r"\bI\b")
# "I have a son named Kai", "We've got a little girl called Poppy", "we just had a baby boy, Theo",
# "she has a dog called Rex": someone's kin or pet said with its name.
_HAS_PET = re.compile(
    rf"{_SUBJECT}(?i:\s+(?:has|have)(?:\s+got)?|'ve\s+got|'s\s+got|\s+(?:just\s+)?had)\s+(?i:a|an)\s+{_ADJ}"
    rf"(?P<pet>{_KIN})(?:\s+(?i:named|called)\s+|,\s+)(?P<name2>{_NAME})"
)
# "my youngest is Mateo", "our eldest, Rosa, …", "my little one is called Bo": a child said by the
# order of birth, only with a name ("my oldest friend is Tom" is a friend). The order words are no
# kin words of their own, so that a question about "my oldest friend" asks for no child.
_BIRTH_ORDER = re.compile(
    rf"\b{_MY}\s+(?i:youngest|eldest|oldest|first-?born|little\s+one|middle\s+one)(?:\s+(?i:one))?"
    rf"(?:,\s+|\s+(?:is|was)\s+(?:(?:called|named)\s+)?|'s\s+name\s+is\s+|\s+(?:called|named)\s+|\s+(?=[A-Z]))"
    rf"{_QUOTE}(?P<name>{_NAME})"
    # "My eldest Connor is away", not "My oldest GitHub repo" nor "Our oldest Honda still runs".
    r"(?=$|[.,;!?\"'\u201d\u2019]|\s+(?:is|was|has|had|just|turned|turns|starts|started|goes|went|lives|moved|"
    r"gets|got|loves|hates|plays|can|can't|will|won't)\b)"
    # "Ruby is my youngest, she's ten", not "Tom is my oldest friend" nor "… my oldest mate".
    rf"|(?P<name2>{_NAME})\s+(?:is|was)\s+{_MY}\s+(?i:youngest|eldest|oldest|first-?born)"
    r"(?=\s*(?:$|[.,;!?]|(?i:one|who|he|she|they|is|was|now|at|in)\b))"
)
# Said without capitals (voice input, a quick message): "my little boy is called jack". A word after
# "called", "named" or "name is" is a name unless it is a word of grammar ("called me", "called up").
# Only "is called", not the past tense ("my sister called twice").
_CALLED_LOWER = re.compile(
    r"\b(?:(?:is|was|'s|are|were)\s+called|named|name\s+is|name's)\s+(?P<word>[a-z][a-z'-]+)\b"
)
_NOT_CALLED_NAMES = frozenset(_NOT_MODIFIERS.split("|")) | word_set(
    "up out off back over into down away around something someone anything nothing everyone"
)
_PROFESSION_ENDINGS = (
    "er",
    "or",
    "ist",
    "ian",
    "ant",
    "ent",
    "eer",
    "ot",
    "ect",
    "ive",
    "ic",
    "man",
    "woman",
)
_PROFESSIONS = word_set(
    "nurse doctor chef judge nanny dentist surgeon student professor teacher pilot lawyer "
    "engineer accountant architect barista consultant developer designer journalist librarian "
    "mechanic pharmacist physician plumber scientist therapist veterinarian vet writer actor "
    "actress analyst"
)
_NOT_ROLES = word_set(
    "lover member beginner fan user owner sucker winner loser other vegetarian vegan christian "
    "introvert extrovert perfectionist optimist pessimist"
)


def _is_name(text: str) -> bool:
    return bool(text) and text.split()[0].lower() not in _STOP_NAMES


def _strip_openers(text: str) -> str:
    """ "Yesterday Ana" → "Ana": capitalised sentence openers are not part of a name."""
    words = text.split()
    while len(words) > 1 and words[0].lower() in _STOP_NAMES:
        words = words[1:]
    return " ".join(words)


def _chain(possessor: str) -> Ref:
    """ "my sister's husband's" → Ref(kin=husband, of=Ref(kin=sister)); "Ana's" → Ref(name=Ana)."""
    ref: Ref
    mine = re.match(rf"{_MY}\s*", possessor)
    if mine:
        ref, rest = SELF, possessor[mine.end() :]
    else:
        named = re.match(rf"(?P<name>{_NAME})'s\s*", possessor)
        if named is None:
            return SELF
        ref, rest = Ref(name=_strip_openers(named.group("name"))), possessor[named.end() :]
    for word in re.findall(rf"({_KIN})'s", rest):
        found = kin(word)
        if found:
            ref = Ref(kin=word.lower(), of=None if ref.is_self else ref, kind=kind_of(found[0]))
    return ref


def _vocative(match: re.Match[str], group: str) -> bool:
    """ "Thanks for asking about my kids, Gina!": a name after a comma that ends the sentence is
    the person spoken to, not the kin's name ("my sister, Ana, is a nurse" is)."""
    if group != "name" or match.group("name") is None:
        return False
    before = match.string[match.start("kin") : match.start("name")]
    return "," in before and re.match(r"\s*(?:[!?]|$)", match.string[match.end("name") :]) is not None


def _np(match: re.Match[str], name_group: str = "name") -> Ref:
    owner = _chain(match.group("poss"))
    word = match.group("kin").lower()
    found = kin(word)
    name = match.groupdict().get(name_group) or match.groupdict().get("name") or ""
    name = name if _is_name(name) and not _vocative(match, name_group) else ""
    return Ref(
        name=name,
        kin=word,
        of=None if owner.is_self else owner,
        kind=kind_of(found[0]) if found else EntityKind.PERSON,
    )


def _subject(match: re.Match[str]) -> Ref | None:
    if match.group("kin"):
        return _np(match)
    text = match.group("subj")
    if re.fullmatch(_SELF_WORDS, text):
        return SELF
    text = _strip_openers(text)
    return Ref(name=text) if _is_name(text) else None


_ENDINGS_EN = english_endings(_SUBJECT, _NAME, ORG, PLACE)


def _is_role(verb: str, role: str) -> bool:
    last = role.split()[-1].lower()
    if last in _NOT_ROLES:
        return False
    return (
        verb.lower().startswith(("work", "is working", "am working"))
        or last in _PROFESSIONS
        or (last.endswith(_PROFESSION_ENDINGS) and len(last) > 4)
    )


def _their_kin(text: str) -> str:
    """ "Rachel remarried; her husband is Greg" → "…; Rachel's husband is Greg" when the statement
    opens with one person's name and names no one else before the pronoun."""
    opening = _OPENING_NAME.match(text)
    if opening is None or not _is_name(opening.group("name")):
        return text
    name = opening.group("name")
    pronoun = _THEIR_KIN.search(text, opening.end())
    if pronoun is None:
        return text
    between = text[opening.end() : pronoun.start()]
    if any(_is_name(other) for other in re.findall(_NAME, between)):
        return text
    return text[: pronoun.start()] + _THEIR_KIN.sub(f"{name}'s ", text[pronoun.start() :])


# A neighbour said by where they live: "Ines lives in the flat upstairs from us", "Tom lived next
# door to me", "the Okafors live across the landing from us" (the speaker's neighbour).
_LIVES_BY = re.compile(
    rf"(?P<name>{_NAME})\s+(?:lives|lived|live|has\s+lived|is\s+living|was\s+living|used\s+to\s+live)\s+"
    r"(?:in\s+the\s+(?:flat|house|apartment|unit|room|cottage|place)\s+)?(?:right\s+|just\s+)?"
    r"(?:upstairs|downstairs|next\s+door|above|below|beneath|across\s+the\s+(?:landing|hall|corridor|street|road))"
    r"(?:\s+(?:from|to))?\s+(?:us|me)\b"
)


# The speaker saying who they are to someone named: "I'm Layla's mum", "Hi, it's Layla's dad",
# "Layla's mum here" (a parent writing to a class, a club, a carer): Layla is the user's child, not
# the parent of a stranger called "Layla's mum".
_I_AM_THEIR = re.compile(
    rf"(?:\bI\s+am\s+|\b(?i:it's|it\s+is|this\s+is)\s+|^\W*(?=(?:{_NAME})'s\s+{_KIN}\s+here\b))"
    rf"(?P<name>{_NAME})'s\s+(?P<kin>{_KIN})(?!\w)"
)
# What the named person is to the user when the user is their `predicate`.
_THEIRS_TO_MINE: dict[str, str] = {
    Predicate.PARENT: "child",
    Predicate.SIBLING: "sibling",
    Predicate.SPOUSE: "spouse",
    Predicate.PARTNER: "partner",
    Predicate.FRIEND: "friend",
    Predicate.COLLEAGUE: "colleague",
}


# Children said as a list: "We have two kids, Mia and Leo", "I've got twins, Ava and Leo", "my
# daughters, Rosa and Ines", "my kids Mia, Leo and Sam": each name is the user's child (the kin
# reading above takes only the first).
# ("my girls", "the boys" are as often friends: not read.)
_CHILD_WORDS = r"(?i:kids|children|sons|daughters|twins|triplets)"
_CHILDREN_LISTED = re.compile(
    rf"(?:\b(?i:my|our)\s+(?:{_ADJ})?|\b(?:I|[Ww]e)(?:\s+(?i:have\s+got|have|had)|'ve\s+got)\s+"
    rf"(?:(?i:two|three|four|five|\d)\s+)?|^)(?P<kin>{_CHILD_WORDS})"
    # "my kids Mia, Leo and Sam", "kids are Liam (10) and Ava (13)" opening a message, "our twins: Ava
    # and Leo" (not "My sister has twins. The twins are Ava and Leo": whose is not said)
    r"(?:,?\s+|\s+(?i:are)\s+|\s*:\s*)"
    rf"(?P<names>{_NAME}(?:,\s*{_NAME})*,?\s+and\s+{_NAME})\b"
)
_AGE_AFTER = re.compile(r"\s*\((?:aged?\s+)?\d{1,2}\)")
_KIN_OF_LISTED = {"sons": "son", "daughters": "daughter"}


def _children_listed(text: str, reading: Reading) -> None:
    for match in _CHILDREN_LISTED.finditer(_AGE_AFTER.sub("", text)):
        word = _KIN_OF_LISTED.get(match.group("kin").lower(), "child")
        for name in re.split(r",\s*|,?\s+and\s+", match.group("names")):
            name = _strip_openers(name.strip())
            if _is_name(name):
                reading.add_ref(Ref(name=name, kin=word))


def _birth_order(text: str, reading: Reading) -> None:
    for match in _BIRTH_ORDER.finditer(text):
        name = _strip_openers(match.group("name") or match.group("name2"))
        if _is_name(name):
            reading.add_ref(Ref(name=name, kin="child"))


def speaker_is_theirs(reading: Reading, name: str, word: str) -> None:
    """The user is `name`'s `word` ("mum", "妈妈"): `name` is the user's child (or sibling, friend…);
    the stranger "name's mum" the possessive read made is dropped from `reading`."""
    found = kin(word)
    mine = _THEIRS_TO_MINE.get(found[0]) if found else None
    if not mine:
        return
    theirs = Ref(name=name)
    dropped = [r for r in reading.refs if r.of == theirs and r.kin == word and not r.name]
    reading.refs = [r for r in reading.refs if r not in dropped]
    reading.triples = [t for t in reading.triples if t.object not in dropped and t.subject not in dropped]
    reading.add_ref(Ref(name=name, kin=mine))


def _voice_cased(text: str) -> str:
    """A text written all in lower case with its "i" and the names said after "called" capitalised,
    as the rules read names; any other text as it is."""
    if any("A" <= c <= "Z" for c in text):
        return text
    text = re.sub(r"\bi\b", "I", text)

    def named(match: re.Match[str]) -> str:
        word = match.group("word")
        if word in _NOT_CALLED_NAMES or word in _STOP_NAMES:
            return match.group(0)
        return match.group(0)[: match.start("word") - match.start()] + word[0].upper() + word[1:]

    return _CALLED_LOWER.sub(named, text)


def read_english(text: str) -> Reading:
    text = _voice_cased(text.replace("\u2019", "'"))
    text = _their_kin(re.sub(r"\bI'm\b", "I am", text))
    reading = Reading()
    for match in re.finditer(_NP_KIN, text):
        reading.add_ref(_np(match))
    for match in _NAMED.finditer(text):
        if _is_name(match.group("name2")):
            named = _np(match)
            reading.refs = [r for r in reading.refs if r != Ref(kin=named.kin, of=named.of, kind=named.kind)]
            person = Ref(name=match.group("name2"), kin=named.kin, of=named.of, kind=named.kind)
            _works_where(match, person, reading)
    for match in _IS_MY.finditer(text):
        if _is_name(match.group("name2")):
            named = _np(match)
            reading.add_ref(Ref(name=match.group("name2"), kin=named.kin, of=named.of, kind=named.kind))
    _children_listed(text, reading)
    _birth_order(text, reading)
    for match in _I_AM_THEIR.finditer(text):
        if _is_name(match.group("name")):
            speaker_is_theirs(reading, _strip_openers(match.group("name")), match.group("kin").lower())
    for match in _LIVES_BY.finditer(text):
        name = _strip_openers(match.group("name"))
        if _is_name(name):
            reading.add_ref(Ref(name=name, kin="neighbour"))
    _relations_english(text, reading)
    return reading


def _works_where(match: re.Match[str], person: Ref, reading: Reading) -> None:
    """ "My manager at Halden Insurance is Rebecca": a boss or colleague at an organisation works
    there."""
    where = (match.group("where") or "").strip()
    found = kin(person.kin)
    if (
        match.group("prep") in ("at", "from")
        and found is not None
        and found[0] in _WORK_KIN
        and re.fullmatch(ORG, where)
        and _is_name(where)
    ):
        person = Ref(name=person.name, kin=person.kin, of=person.of, kind=person.kind, works_at=where)
        reading.add_ref(person)
        org = Ref(name=where, kind=EntityKind.ORGANISATION)
        reading.add(Triple(person, Predicate.WORKS_AT, "works at", org))
    else:
        reading.add_ref(person)


def _relations_english(text: str, reading: Reading) -> None:
    _places_and_work(text, reading)
    _roles_and_partners(text, reading)
    _endings(text, reading, _ENDINGS_EN)


def _endings(text: str, reading: Reading, endings: list[Ending]) -> None:
    """ "we divorced", "I left my job at Acme", "我从腾讯离职了": triples marked `ended`."""
    for ending in endings:
        for match in ending.pattern.finditer(text):
            subject = _ending_subject(match)
            said = _ending_other(match)
            if subject is None or said is None:
                continue
            other = Ref(name=said, kind=ending.kind or EntityKind.PERSON) if said else None
            for predicate in ending.predicates:
                reading.add(Triple(subject, predicate, "ended", other, ended=True))
    # "Tom and I got divorced" also reads "I got divorced": the named ending is the one meant.
    named = {(t.subject, t.predicate) for t in reading.triples if t.ended and t.object is not None}
    reading.triples = [
        t for t in reading.triples if not (t.ended and t.object is None and (t.subject, t.predicate) in named)
    ]


_ZH_PRONOUNS = frozenset({"他", "她", "他们", "她们", "它", "你", "你们", "大家"})


def _ending_subject(match: re.Match[str]) -> Ref | None:
    groups = match.groupdict()
    if groups.get("zwho") is not None:
        who = groups["zwho"]
        if who in _ZH_PRONOUNS:
            return None
        return SELF if who.startswith("我") else Ref(name=who)
    if groups.get("subj") is None:
        return SELF  # "Tom and I divorced"
    if groups["subj"].lower() == "we":
        return SELF  # "we broke up": the speaker's relation
    return _subject(match)


def _ending_other(match: re.Match[str]) -> str | None:
    """The other end's name the words say, "" when they name none, None when it is no name."""
    groups = match.groupdict()
    said = groups.get("obj") or groups.get("org") or groups.get("place")
    if not said:
        return ""
    said = said.rstrip(".,").removesuffix("了")
    if said in _ZH_PRONOUNS or (said[:1].isascii() and not _is_name(said)):
        return None
    return _strip_openers(said)


def _places_and_work(text: str, reading: Reading) -> None:
    for match in _WORKS.finditer(text):
        subject = _subject(match)
        org = match.group("org").rstrip(".")
        if subject and org.split()[0].lower() not in _STOP_NAMES:
            reading.add(
                Triple(subject, Predicate.WORKS_AT, "works at", Ref(name=org, kind=EntityKind.ORGANISATION))
            )
    for match in _LIVES.finditer(text):
        subject = _subject(match)
        place = match.group("place").rstrip(".").rstrip(",")
        if subject and place.split()[0].lower() not in _STOP_NAMES:
            reading.add(
                Triple(subject, Predicate.LIVES_IN, "lives in", Ref(name=place, kind=EntityKind.PLACE))
            )


def _roles_and_partners(text: str, reading: Reading) -> None:
    for match in _ROLE.finditer(text):
        subject = _subject(match)
        words = match.group("role").lower().split()
        # "a lawyer in Leeds": the longest run of words that ends in a job is the job.
        role = next(
            (
                " ".join(words[:n])
                for n in range(len(words), 0, -1)
                if _is_role(match.group("verb"), " ".join(words[:n]))
            ),
            "",
        )
        if subject and role:
            reading.add(Triple(subject, Predicate.ROLE, "works as", value=role))
    for match in [*_MARRIED.finditer(text), *_WED.finditer(text)]:
        subject = _subject(match)
        if subject and _is_name(match.group("name2")):
            reading.add(Triple(subject, Predicate.SPOUSE, "married to", Ref(name=match.group("name2"))))
    for match in _REPORTS.finditer(text):
        boss = match.group("name2")
        if match.group("subj") is not None:
            subject = _subject(match)
        else:
            subject = SELF if _FIRST_PERSON.search(text, 0, match.start()) else None
        if subject and _is_name(boss):
            reading.add_ref(Ref(name=boss, kin="manager", of=None if subject.is_self else subject))
    for match in _HAS_PET.finditer(text):
        subject = _subject(match)
        pet = match.group("pet").lower()
        found = kin(pet)
        if subject and found and _is_name(match.group("name2")):
            ref = Ref(
                name=match.group("name2"),
                kin=pet,
                of=None if subject.is_self else subject,
                kind=kind_of(found[0]),
            )
            reading.add_ref(ref)
