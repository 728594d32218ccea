"""Names given in an aside, as people give them: "Irene — that's mum — is partially sighted",
"Tom, my boss, said…", "Dad (everyone calls him Rocky) has heart failure", "我爸姓周, 小区里都叫他
老周", and children listed with their ages ("our two, Noah (7) and Lily (4)"). Each gives the user's
kin a name (`rules` reads the plainer forms: "my mum Irene", "my mum is called Irene").
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory_core.entities.kinship import ZH_KIN_WORDS, is_plural, kin, kind_of
from memory_core.entities.rules import _ADJ, _KIN, _NAME, Reading, Ref, _is_name, _strip_openers
from memory_core.entities.rules_zh import _ZH_KIN, _ZH_NAME, _ZH_NAME_CHAR, _ZH_SURNAMES
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.entities.zh_forms import as_mandarin, as_written
from memory_core.reading.words import GRANDPARENTS_SAID_OTHERWISE, alternation, word_set

_ZH_AFTER = r"[有对还也在是的和跟从刚每今昨明去来又就会要想说很不没最平]|已经|一直"
_DASH = r"(?:\u2014|\u2013|--|-)"


def _as_a_name(word: str) -> str:
    """A regex of kin `word` said as a name: its first letter a capital ("Nonna", "Ah gong", "Dadi ji")."""
    first, *more = word.split("_")
    return "".join(
        [first[0].upper(), f"(?i:{re.escape(first[1:])})", *(rf"\s+(?i:{re.escape(part)})" for part in more)]
    )


# Grandparents said in other languages and Englishes, as names ("Nonna", "Ah Gong", "Babcia").
_ELSEWHERE = alternation([_as_a_name(word) for word in GRANDPARENTS_SAID_OTHERWISE])
# The parents' and grandparents' words people say as names ("Mum's moved in", "Nan (Edith)", "Nonna
# Rosa"), capitalised; the asides below take them as one alternation each.
_PARENT_WORDS = ["Mum", "Mom", "Mam", "Dad"]
_GRANDPARENT_WORDS = ["Nan", "Nana", "Nanna", "Gran", "Granny", "Grandma", "Grandpa", "Grandad", "Granddad"]
_KIN_AS_A_NAME = alternation([*_PARENT_WORDS, *_GRANDPARENT_WORDS, _ELSEWHERE])
# The same typed in lower case too ("nan (Edith)", voice input and phones).
_KIN_AS_A_NAME_ANY_CASE = alternation([f"(?i:{alternation(_PARENT_WORDS + _GRANDPARENT_WORDS)})", _ELSEWHERE])
_GRANDPARENT_AS_A_NAME = alternation([*_GRANDPARENT_WORDS, "Grandmother", "Grandfather", _ELSEWHERE])
# "Irene — that's mum —", "Irene (my mum)", "Tom, my boss, said": a name, then who they are to the
# user between two marks.
_NAME_THEN_KIN = re.compile(
    rf"(?P<name>{_NAME})\s*(?P<open>\(|{_DASH}|,)\s*(?i:that's\s+|that\s+is\s+|she's\s+|he's\s+|aka\s+)?"
    rf"(?:(?i:my|our)\s+)?{_ADJ}(?P<kin>{_KIN})\s*(?:\)|{_DASH}|,)"
)
# "Grandad (Ernest) lives with me", "my sister (Rachel) rang": the kin, then its name in brackets.
# Whose the kin is must be said ("my", "our"), or it is a parent's or grandparent's word said as a
# name ("Grandad (Ernest)"): not "Her daughter (Mia)", "my friend's son (Leo)". The name is a name,
# not an abbreviation ("Dad (RIP)").
_KIN_THEN_NAME = re.compile(
    rf"(?:\b(?i:my|our)\s+{_ADJ}(?P<kin>{_KIN})"
    r"|(?<![\w'\u2019-]\s)(?<![\w'\u2019-])"
    rf"(?P<kin2>{_KIN_AS_A_NAME_ANY_CASE}))"
    # "Nan (Edith to everyone else)": the name the others use; "nan (Edith, if I mention her)"
    rf"\s*\((?P<name>(?=[A-Z][a-z]){_NAME})(?:\s+to\s+(?:everyone|everybody|the\s+rest\s+of\s+us|others|"
    r"most\s+people|the\s+world)(?:\s+else)?|,[^()]{0,40})?\)"
)
# "Nana Jean moved in with us", "Grandad Bill": a grandparent said with their name, the user's own.
_GRANDPARENT_NAMED = re.compile(
    r"(?<![\w'-])(?<!'s\s)(?<!\b[Hh]is\s)(?<!\b[Hh]er\s)(?<!\b[Tt]heir\s)(?<!\b[Yy]our\s)"
    rf"(?P<kin2>{_GRANDPARENT_AS_A_NAME})"
    r"\s+(?P<name>(?!(?:and|is|was|has|had|says|said|will|can)\b)[A-Z][a-z'-]+)\b"
)
# "Mum", "Dad", "Nan" capitalised without a "my": the user's own, as people speak of them.
_BARE_PARENT = re.compile(rf"\b(?P<kin>{_KIN_AS_A_NAME})\b(?!\s+[A-Z])")
# "Dad's name is Ken", "my son's name's Leo", "my mum's called Sandra": the kin, then its name.
_KIN_NAME_IS = re.compile(
    rf"(?:\b(?i:my|our)\s+{_ADJ}(?P<kin>{_KIN})"
    rf"|(?<![\w'-])(?P<kin2>{_KIN_AS_A_NAME}))"
    rf"(?:'s|\s+is)\s+(?:(?i:called|named)|(?i:name)(?:'s|\s+is))\s+(?P<name>{_NAME})"
)
# "my son ollie (14)": a name typed in lower case, told as a name by the age after it.
_KIN_LOWER_NAME_AGED = re.compile(
    rf"\b(?i:my|our)\s+{_ADJ}(?P<kin>{_KIN})\s+(?P<name>[a-z][a-z'-]{{1,15}})\s*\((?:aged?\s+)?\d{{1,2}}\)"
)
# "We're fostering Tyler", "I'm fostering Amira": a child in the user's care, named.
_FOSTERING = re.compile(
    rf"\b(?i:we(?:'re|\s+are)|i(?:'m|\s+am))\s+(?:now\s+)?(?i:fostering)\s+(?P<name>{_NAME})"
)
# "We're foster carers, and since June we've had 7-year-old Tyler living with us", "Amira was placed
# with us in May": a child placed with the user, in a statement that says it is fostering.
_FOSTER_SAID = re.compile(r"(?i)\bfoster|\bkinship\s+care\b")
_YOUNG = r"(?:(?:little|baby|\d{1,2}[- ]?(?:year|yr)s?[- ]old|[a-z]+[- ](?:year|yr)[- ]old)\s+)*"
_PLACED_WITH_US = re.compile(
    r"\b(?i:we|I)(?:'ve|\s+have|\s+had)?\s+(?:(?:now|just|also)\s+)?"
    rf"(?:(?:had|got)\s+{_YOUNG}(?P<name>{_NAME})\s+(?:(?:living|staying|placed)\s+)?with\s+us\b"
    rf"|(?:taken\s+in|took\s+in|welcomed)\s+{_YOUNG}(?P<name3>{_NAME}))"
    rf"|(?P<name2>{_NAME})\s+(?:was|has\s+been|got|came\s+to\s+be)\s+placed\s+with\s+(?:us|me)\b"
)
# "the court gave me guardianship of Kai", "I've had custody of Mia since 2022", "I'm the legal
# guardian of Dylan": a child in the user's care by law, named (not "my sister got custody of Mia").
_GUARDIAN_OF = r"(?:(?:special|legal|full|sole|joint|temporary|permanent)\s+)?(?:guardianship|custody)\s+of"
_IN_MY_GUARDIANSHIP = re.compile(
    rf"\b(?:(?i:gave|granted|awarded)\s+(?i:me|us)\s+{_GUARDIAN_OF}"
    r"|(?:I|[Ww]e)(?:'ve|\s+have|\s+had)?(?:\s+(?:had|got|been\s+given|been\s+granted|was\s+given|were\s+given"
    rf"|was\s+granted))?\s+{_GUARDIAN_OF}"
    rf"|I(?:'m|\s+am)\s+(?:now\s+)?(?:the\s+)?(?:(?:legal|special|sole)\s+)?guardian\s+(?:of|for|to))"
    rf"\s+(?P<name>{_NAME})"
)
# "Mum's moved into the annexe… Her name's Pat btw": the kin said before, named after it.
# "I look after my dad, he's called Gary": the same, by "called" or "named"; "…I'm her full-time
# carer, everyone calls her Ro": by what everyone calls them.
_EN_PRONOUN_NAMED = re.compile(
    rf"\b(?:(?P<pronoun>[Hh]er|[Hh]is)\s+name(?:'s|\s+is)|(?P<subject>[Ss]he|[Hh]e)(?:'s|\s+is)\s+(?:called|named)"
    r"|(?i:everyone|everybody|we\s+all|people|the\s+kids|they\s+all|most\s+people|the\s+family)\s+calls?\s+"
    r"(?P<object>her|him))"
    rf"\s+(?P<name>{_NAME})"
)
# "Dad moved in with us. Eric's his name if I mention him", "Rosa is her name": the name first.
_EN_NAME_IS_PRONOUNS = re.compile(
    rf"(?<![\w'])(?P<name>{_NAME})(?:'s|\s+is)\s+(?P<pronoun>her|his)\s+(?:(?:first|real|given)\s+)?name\b"
)
# "…custody of my granddaughter. She's Skye, she's 11 now", "He's Tom (6)": named with an age next,
# which no "She's Irish" or "He's Catholic" has.
_EN_PRONOUN_IS_NAME = re.compile(
    rf"\b(?P<pronoun>[Ss]he|[Hh]e)(?:'s|\s+is)\s+(?P<name>{_NAME})"
    r"(?=\s*\(\d{1,2}\)|,?\s+(?:(?:she|he)(?:'s|\s+is)|aged?)\s+(?:(?:now|just|only|nearly|almost)\s+)?\d{1,2}\b)"
)
# What "She's …" says of someone that is no name: a nationality, a faith, a word ending as they do.
_NOT_A_GIVEN_NAME = re.compile(
    r"(?:\w+(?:ish|ese|ic|ian|ean|ani|ali|eli|aqi|ino|ina)|American|German|Mexican|Cuban|Hindu|Muslim|Sikh|"
    r"Buddhist|Jewish|Mormon|Welsh|French|Dutch|Greek|Thai|Swiss|Kiwi|Aussie|Jamaican|Sri\s+Lankan|"
    # a school year, a team, a state said with a capital ("She's Reception, she's 4", "He's Arsenal")
    r"Reception|Nursery|Year|Arsenal|Chelsea|Liverpool|United|City|Blind|Deaf|Bedridden|Disabled|Diabetic|"
    r"Pregnant|Fine|Okay|Ok|Home|Back|Retired|Single|Married|Vegan|Vegetarian|Adopted|Fostered|Twelve|Ten)$"
)
# "Dad (everyone calls him Rocky)", "my dad, who everyone calls Rocky,": the name others call them.
_CALLED_BY_ALL = re.compile(
    rf"(?:\b(?i:my|our)\s+{_ADJ})?(?P<kin>{_KIN})\s*(?:\(|,)\s*(?i:who(?:m)?\s+)?"
    r"(?i:everyone|everybody|we\s+all|people|the\s+kids|they\s+all|we|most\s+people)\s+calls?\s+"
    rf"(?:(?i:him|her)\s+)?(?P<name>{_NAME})"
)
_ZH_OR_LATIN_NAME = rf"(?:[A-Z][A-Za-z'-]*(?:\s[A-Z][A-Za-z'-]*){{0,2}}|{_ZH_NAME})"
# A name called in quotes ("都叫她「老佛爺」"): whatever is between them, or a name unquoted.
_QUOTE_OPEN = '[\u300c\u300e\u201c"]'
_CALLED_NAME = (
    rf"{_QUOTE_OPEN}?(?P<zname>(?<={_QUOTE_OPEN})[^\s\u300d\u300f\u201d\"]{{1,8}}(?=[\u300d\u300f\u201d\"])"
    rf"|{_ZH_OR_LATIN_NAME})"
)
# "我爸姓周, 小区里都叫他老周", "大家都叫她 Ah Bee": what people call the user's kin.
_ZH_CALLED_BY_ALL = re.compile(
    rf"(?:我们|我)的?(?P<zkin>{_ZH_KIN})[^\u3002\uff01\uff1f.!?]{{0,40}}?(?:都|大家|别人|人人)+叫(?:他|她)\s?"
    rf"{_CALLED_NAME}"
)
# "My grandpa 跟我们住, 大家都叫他 Ah Hock": what the kin said before is called, however the kin was said
# (an English kin word too); only of one not named yet (a second name is no second person).
_ZH_ALL_CALL = re.compile(rf"(?:都|大家|别人|人人)+叫(?P<zpronoun>他|她)\s?{_CALLED_NAME}")
# "…我是弟弟的监护人, 他叫阿翔": the one of the user's kin the statement spoke of, named after it.
# Only a name-shaped one, before a mark, 今年 or an age ("她叫救护车", "他叫外卖" name no one).
_ZH_PRONOUN_NAMED = re.compile(
    rf"(?<![都叫])[他她](?:的名字)?叫\s?(?P<zname>[A-Z][A-Za-z'-]*(?:\s[A-Z][A-Za-z'-]*){{0,2}}"
    rf"|[{_ZH_SURNAMES}]{_ZH_NAME_CHAR}{{1,2}}?|[阿小老]{_ZH_NAME_CHAR}{{1,2}}?|(?P<zr2>{_ZH_NAME_CHAR})(?P=zr2)"
    # a given name alone ("佢叫玉蘭, 今年92歲"), when an age follows
    rf"|{_ZH_NAME_CHAR}{{2}}(?=[\uff0c,]?\s*(?:今年|[一二三四五六七八九十两\d]+[岁])))"
    r"(?=$|[\uff0c,\u3002.!\uff01?\uff1f;\uff1b\s]|今年|[一二三四五六七八九十两\d]+[岁])"
)
# "我爸今年七十八了, 跟我住, 大名叫王德胜": the kin said before, its full name told by itself.
_ZH_FULL_NAME_TOLD = re.compile(
    r"(?:^|(?<=[\s\uff0c,\u3002.;\uff1b]))(?:大名|全名|本名|名字)(?:叫做?|是)\s?"
    rf"(?P<zname>[A-Z][A-Za-z'-]*(?:\s[A-Z][A-Za-z'-]*){{0,2}}|[{_ZH_SURNAMES}]{_ZH_NAME_CHAR}{{1,2}}?)"
    r"(?=$|[\uff0c,\u3002.!\uff01?\uff1f;\uff1b\s])"
)
# "our two, Noah (7) and Lily (4)", "my two, Ava and Leo", "the twins, Rosie and Jack": children
# listed after how many.
_AGE = re.compile(r"\s*\((?:aged?\s+)?\d{1,2}\)")
# Without "my": the count said as the user's own ("I have two kids, …", "we've got three boys: …";
# not "two kids, Ben and Ollie, were fighting", anyone's).
_OFFSPRING = r"(?:\s+(?i:kids|children|boys|girls|sons|daughters|little\s+ones))"
_CHILDREN_COUNTED = re.compile(
    rf"(?:\b(?i:my|our)\s+(?i:two|three|four|five|twins|triplets){_OFFSPRING}?"
    rf"|(?<![\w'-]\s)\b(?i:the)\s+(?i:twins|triplets)"
    rf"|\b(?:I|[Ww]e)(?:'ve\s+got|\s+have(?:\s+got)?|\s+got)\s+"
    rf"(?i:two|three|four|five){_OFFSPRING})\b"
    rf"[,:]?\s+(?P<names>{_NAME}(?:,\s*{_NAME})*,?\s+(?:and|&)\s+{_NAME})\b"
)
# The kin words an aside may name by themselves ("that's mum"): people, not a pet.
# Code-switched ("我的 boy Ethan", "my daughter 欣怡", "我的 grandma", "我 father-in-law 叫 Tan Ah Kow"):
# an English kin word after a Chinese possessor, or a Chinese name after an English one (with 叫 or
# without): a Latin name of up to three words, or Han characters that
# look like a name (a surname and one or two more, 阿/小/老 and one or two, a doubled one) or stand
# alone before a space or a mark ("my son 现在很好", "my dad 喜欢钓鱼" name no one).
_MIXED = re.compile(
    rf"(?:我的?|(?i:\bmy|\bour)\s)\s*{_ADJ}(?P<kin>{_KIN})(?![\w-])"
    rf"(?:\s*(?:叫做?\s*|名叫\s*)?(?P<name>[A-Z][\w'-]*(?:\s[A-Z][\w'-]*){{0,2}}(?=\s|$|[^\w\s])"
    rf"|(?:[{_ZH_SURNAMES}]{_ZH_NAME_CHAR}{{1,2}}|[阿小老]{_ZH_NAME_CHAR}{{1,2}}|(?P<zr>{_ZH_NAME_CHAR})(?P=zr))"
    rf"(?=$|\s|[^\w\s]|{_ZH_AFTER})"
    rf"|{_ZH_NAME_CHAR}{{2,3}}(?=$|\s|[^\w\s])))?"
)
_PEOPLE = frozenset(
    p for p in Predicate if p not in (Predicate.PET, Predicate.WORKS_AT, Predicate.LIVES_IN, Predicate.ROLE)
)


_OWNERS = ("my", "our", "'s", "your", "his", "her", "their", "the", "a")


def read_bare_kin(text: str, reading: Reading, *, chinese: bool = False) -> None:
    """Add to `reading` the user's parents and grandparents said as names ("Mum's moved in with
    us", "Nan is 90 today"), and in Chinese the kin the user lives with ("我同嫲嫲住"), before the
    care and the asides read who is looked after and named."""
    plain = text.replace("\u2019", "'")
    said = {ref.kin for ref in reading.refs if ref.of is None}
    if chinese:
        folded = as_mandarin(text, ZH_KIN_WORDS)
        for match in _ZH_WITH_KIN.finditer(folded):
            word = as_written(match.group("zkin"), folded, text)
            found = kin(word) or kin(match.group("zkin"))
            if word not in said and found and kind_of(found[0]) == EntityKind.PERSON:
                said.add(word)
                reading.add_ref(Ref(kin=word))
    for match in _BARE_PARENT.finditer(plain):
        word = " ".join(match.group("kin").lower().split())
        if word not in said and not plain[: match.start()].rstrip().lower().endswith(_OWNERS):
            said.add(word)
            reading.add_ref(Ref(kin=word))
    for match in _GRANDPARENT_NAMED.finditer(plain):  # before the care, which may be of them
        _named(reading, match.group("name"), " ".join(match.group("kin2").lower().split()))


def read_asides(text: str, reading: Reading, *, chinese: bool = False) -> None:
    """Add to `reading` the user's kin named in an aside (English, and Chinese when `chinese`)."""
    plain = text.replace("\u2019", "'")
    asides = (_NAME_THEN_KIN, _CALLED_BY_ALL, _KIN_THEN_NAME, _KIN_NAME_IS)
    for match in [found for pattern in asides for found in pattern.finditer(plain)]:
        word = " ".join((match.groupdict().get("kin") or match.groupdict().get("kin2") or "").split())
        _named(reading, _strip_openers(match.group("name")), word.lower())
    for match in _FOSTERING.finditer(plain):
        _named(reading, _strip_openers(match.group("name")), "child")
    for match in _IN_MY_GUARDIANSHIP.finditer(plain):
        _named(reading, _strip_openers(match.group("name")), "child")
    for match in _PLACED_WITH_US.finditer(plain) if _FOSTER_SAID.search(plain) else ():
        name = match.group("name") or match.group("name2") or match.group("name3")
        _named(reading, _strip_openers(name), "child")
    for match in _KIN_LOWER_NAME_AGED.finditer(plain):
        _named(reading, match.group("name").capitalize(), match.group("kin").lower())
    counted = [] if _PET_WORDS.search(plain) else _CHILDREN_COUNTED.finditer(_AGE.sub("", plain))
    for match in counted:
        for name in re.split(r",\s*|,?\s+(?:and|&)\s+", match.group("names")):
            _named(reading, _strip_openers(name.strip()), "child")
    _named_by_pronoun(plain, reading)
    if chinese:
        _chinese_asides(text, plain, reading)


def _named_by_pronoun(plain: str, reading: Reading) -> None:
    """The kin said before a pronoun that names them ("Mum's moved in… Her name's Pat"; "She's Skye,
    she's 11"); a name given by a pronoun opening the statement, for the message before
    (`Reading.pronoun_names`)."""
    for match in _EN_PRONOUN_NAMED.finditer(plain):
        said = (match.group("pronoun") or match.group("subject") or match.group("object")).lower()
        pronoun = {"she": "her", "he": "his", "him": "his"}.get(said, said)
        before = _last_unnamed_before(reading, plain, match.start(), pronoun)
        if before is not None:
            _named(reading, _strip_openers(match.group("name")), before.kin)
        elif _opens(plain, match.start()) and _is_name(name := _strip_openers(match.group("name"))):
            reading.pronoun_names.append((name, pronoun))
    for match in _EN_NAME_IS_PRONOUNS.finditer(plain):
        before = _last_unnamed_before(reading, plain, match.start(), match.group("pronoun"))
        if before is not None:
            _named(reading, _strip_openers(match.group("name")), before.kin)
    for match in _EN_PRONOUN_IS_NAME.finditer(plain):
        if _NOT_A_GIVEN_NAME.match(match.group("name")):
            continue  # "She's Irish, she's 40"
        pronoun = "her" if match.group("pronoun").lower() == "she" else "his"
        before = _last_unnamed_before(reading, plain, match.start(), pronoun)
        if before is not None:
            _named(reading, _strip_openers(match.group("name")), before.kin)


# "我同嫲嫲住", "我跟外婆一起住": the kin the speaker lives or goes with is the speaker's own.
_ZH_WITH_KIN = re.compile(rf"(?:我们|我)(?:同|跟|和|与|陪)(?:着)?(?P<zkin>{_ZH_KIN})")


def _chinese_asides(text: str, plain: str, reading: Reading) -> None:
    for match in _MIXED.finditer(plain):
        word = match.group("kin").lower()
        found = kin(word)
        if match.group("name"):
            _named(reading, match.group("name").strip(), word, possessed=True)
        elif found and kind_of(found[0]) == EntityKind.PERSON:
            reading.add_ref(Ref(kin=word))
    folded = as_mandarin(text, ZH_KIN_WORDS)
    # 他 and 她 are one: "我爸妈…跟我们住, 我爸大家都叫他老周" names the father (`_called_by_all`
    # reads it), not the parents the match opened with.
    one = [m for m in _ZH_CALLED_BY_ALL.finditer(folded) if not _plural(m.group("zkin"))]
    called = [m.span("zname") for m in one]
    for match in one:
        _named(reading, as_written(match.group("zname"), folded, text), match.group("zkin"))
    _full_names_told(text, folded, reading)
    for match in _ZH_PRONOUN_NAMED.finditer(folded):
        before = _last_unnamed_before(reading, folded, match.start())
        name = as_written(match.group("zname"), folded, text)
        if before is not None:
            _named(reading, name, before.kin)
        elif _opens(folded, match.start()):
            # 她 is a woman; 他 a man in Mandarin, either as Cantonese 佢 folded
            said = text[match.start() : match.start() + 1]
            reading.pronoun_names.append((name, "her" if said == "她" else "" if said == "佢" else "his"))
    _called_by_all(text, folded, reading, called)


def _full_names_told(text: str, folded: str, reading: Reading) -> None:
    """ "大名叫王德胜" after the kin it is of."""
    for match in _ZH_FULL_NAME_TOLD.finditer(folded):
        if (before := _last_unnamed_before(reading, folded, match.start())) is not None:
            _named(reading, as_written(match.group("zname"), folded, text), before.kin)


def _called_by_all(text: str, folded: str, reading: Reading, called: list[tuple[int, int]]) -> None:
    """ "大家都叫他 Ah Hock" of the unnamed kin said before (`_ZH_ALL_CALL`)."""
    for match in _ZH_ALL_CALL.finditer(folded):
        pronoun = "her" if match.group("zpronoun") == "她" else "his"
        before = _last_unnamed_before(reading, folded, match.start(), pronoun)
        if before is not None and match.span("zname") not in called:
            _named(reading, as_written(match.group("zname"), folded, text), before.kin)


# What may come before a pronoun that opens a statement ("Oh, her name's Pat", "对了, 她叫美玉").
_OPENERS = frozenset({"", "oh", "btw", "also", "and", "ah", "ps", "对了", "哦", "噢", "另外", "对", "啊"})


def _opens(text: str, position: int) -> bool:
    """Whether `position` opens `text`, but for an opener ("Oh,", "对了")."""
    return text[:position].strip(" \t,.!?:;\uff0c\u3002\uff01\uff1f\uff1a").lower() in _OPENERS


# As often a pet's ("Buster - good boy -", "Coco, my good girl,"): not read from an aside.
_PET_PRONE = frozenset({"boy", "girl", "lad", "lass", "baby"})
_PET_WORDS = re.compile(
    r"(?i)\b(?:cats?|dogs?|kittens?|pupp(?:y|ies)|rabbits?|hamsters?|horses?|pets?)\b|猫|狗|宠物"
)


def _named(reading: Reading, name: str, word: str, *, possessed: bool = False) -> None:
    if word in _PET_PRONE and not possessed:
        return
    found = kin(word)
    if not name or not _is_name(name) or found is None or found[0] not in _PEOPLE:
        return
    if kind_of(found[0]) != EntityKind.PERSON:
        return
    # The same kin said without a name in this statement is this person, in what was read of it.
    unnamed = Ref(kin=word, kind=EntityKind.PERSON)
    person = Ref(name=name, kin=word)
    reading.refs = [r for r in reading.refs if r != unnamed]
    reading.triples = [
        replace(t, object=person) if t.object == unnamed and t.predicate != found[0] else t
        for t in reading.triples
        if not (t.object == unnamed and t.predicate == found[0])
    ]
    reading.add_ref(person)


def _last_unnamed_before(reading: Reading, text: str, position: int, pronoun: str = "") -> Ref | None:
    """The user's kin said without a name last before `position` ("我是弟弟的监护人, 他叫阿翔"; "Mum's
    moved in… Her name's Pat"), one `pronoun` can stand for."""
    unwanted = MALE_KIN if pronoun == "her" else FEMALE_KIN if pronoun == "his" else frozenset()
    unnamed = [
        ref
        for ref in reading.refs
        if ref.kind == EntityKind.PERSON
        and ref.kin
        and ref.of is None
        and not ref.name
        and _label(ref.kin) not in unwanted
        # "her" and "him" stand for one ("爸妈都在国外…都叫她「老佛爷」" names the grandmother)
        and not (pronoun in _ONE and _plural(ref.kin))
    ]
    said = [(place, ref) for ref in unnamed if (place := _said_at(text, ref)) < position]
    return max(said, key=lambda pair: pair[0])[1] if said else None


# The pronouns that stand for one person, and kin said as more than one by a Chinese word ("爸妈",
# "父母"), by their English label.
_ONE = frozenset({"her", "him", "his", "she", "he", "她", "他"})
_PLURAL_LABELS = word_set("parents children siblings grandparents twins")
# Whom "her" and "him" can stand for, by the kin's English label.
FEMALE_KIN = word_set(
    "mother daughter sister grandmother aunt niece wife girlfriend fiancee stepdaughter stepmother "
    "granddaughter goddaughter godmother mother-in-law sister-in-law daughter-in-law"
)
MALE_KIN = word_set(
    "father son brother grandfather uncle nephew husband boyfriend stepson stepfather grandson godson "
    "godfather father-in-law brother-in-law son-in-law"
)


def said_before(
    reading: Reading, text: str, position: int, pronoun: str = "", among: frozenset[str] | None = None
) -> Ref | None:
    """The one person of the user's kin the statement names before `position` that `pronoun` can
    stand for ("My gran, Edith, … I look after her"; "her" is no brother, "him" no mother), or
    None when it names none, or several and not exactly one of them by name. With `among`, only kin
    of those predicates count ("我阿嬤, 鄰居都叫她阿月姨, … 我在照顧她": the neighbours are not whom
    the user looks after)."""
    unwanted = (
        MALE_KIN if pronoun in ("her", "她") else FEMALE_KIN if pronoun in ("him", "his") else frozenset()
    )
    people = [
        ref
        for ref in reading.refs
        if ref.kind == EntityKind.PERSON
        and ref.kin
        and ref.of is None
        and _label(ref.kin) not in unwanted
        and not (pronoun in _ONE and _plural(ref.kin))
        and (among is None or ((found := kin(ref.kin)) is not None and found[0] in among))
        and _said_at(text, ref) < position
    ]
    said = {ref.name or ref.kin for ref in people}
    named = {ref.name for ref in people if ref.name}
    if len(said) == 1:
        return people[0]
    # "My niece Lily is staying … while my sister works abroad, so I'm looking after her": the one
    # named is the one spoken of.
    return next(ref for ref in people if ref.name) if len(named) == 1 else None


def _plural(word: str) -> bool:
    """Whether kin `word` names more than one ("my kids", "爸妈"): no "her" or "him" stands for them."""
    return is_plural(word) or _label(word) in _PLURAL_LABELS


def _label(word: str) -> str:
    found = kin(word)
    return found[1] if found else ""


def _said_at(text: str, ref: Ref) -> int:
    """Where `text` first says `ref`, by its name or its kin word."""
    places = [text.lower().find(word.lower()) for word in (ref.name, ref.kin) if word]
    return min((place for place in places if place >= 0), default=len(text))
