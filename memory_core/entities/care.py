"""Who the user looks after: "My gran, Edith, lives with us now and I look after her full time",
"I'm the main carer for my mum", "我妈叫桂芳, 现在跟我住, 平时都是我照顾她". Recorded as a relation
of the user's (`Predicate.OTHER`, label `CARES_FOR`) to that person, so that whose condition a
later "Edith has dementia" tells is read as a dependant's (`people_known`): a parent, grandparent,
niece or sibling in the user's care is theirs to look after, which the kin word alone does not say.

Only a person the statement names as the user's kin ("my mum", "my niece Lily", "我妈"), or a
pronoun when the statement names exactly one such person before it ("…Edith… I look after her"),
is read: a name alone ("I care for Mrs Patel three mornings a week") is as often a carer's client
at work, whose conditions are someone else's.
"""

from __future__ import annotations

import re

from memory_core.entities.asides import said_before
from memory_core.entities.kinship import ZH_KIN_WORDS, kin
from memory_core.entities.rules import _NP_KIN, SELF, Reading, Ref, Triple, _np
from memory_core.entities.rules_zh import (
    _ZH_KIN,
    _ZH_LATIN_NAME,
    _ZH_LIVES_WITH_ME,
    _ZH_NAME,
    _ZH_NAME_CHAR,
    _ZH_NOT_WHEN,
    _ZH_NP,
    ZH_NOW_AND_THEN,
    _zh_np,
)
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.entities.zh_forms import as_mandarin, as_written
from memory_core.language import simplified_han

CARES_FOR = "cares for"

# What "her" owns when it is no one cared for: "My sister has lupus and I look after her kids on
# Fridays" is the sister's children in the user's care, not the sister. (Her money or her affairs
# are left out: looking after them is caring for her.)
_HER_THINGS = (
    r"(?:own\s+)?(?:[a-z]+\s+)?(?:kids?|children|child|son|sons|daughters?|babys?|babies|grandkids|twins|boys|girls|"
    r"dogs?|cats?|pets?|animals?|horses?|hens|chickens|rabbits?|plants?|garden|house|home|flat|place|"
    r"shop|stall|business|cafe|post|mail|car|keys)\b"
)
# "I look after", "I'm looking after", "I've been caring for", "we take care of", "I am the main
# carer for" (`read_english` has made "I'm" "I am").
_EN_CARE = re.compile(
    r"\b(?:I|i|[Ww]e)(?:'ve\s+been\s+|'ll\s+|\s+)(?:(?:am|are|have\s+been|now|also|still|help|mostly|basically|"
    r"full[- ]time|currently|really|kind\s+of|can|could|will|would|must|have\s+to|need\s+to|want\s+to|"
    r"get\s+to|try\s+to|properly)\s+)*"
    r"(?:look(?:s|ing)?\s+after|caring\s+for|tak(?:e|es|ing)\s+care\s+of|nursing|"
    r"(?:the\s+|a\s+)?(?:main\s+|full[- ]time\s+|primary\s+|sole\s+|only\s+|legal\s+|kinship\s+|foster\s+)?"
    r"(?:carer|caregiver|caretaker|guardian)\s+(?:for|of)"
    # "I've been raising my granddaughter Skye", "we're bringing up my nephew": a child in the
    # user's care (not "I raised my kids": they are grown; nor "raising them", which may be hens)
    r"|(?P<raising>rais(?:e|es|ing)|bring(?:s|ing)?\s+up)(?=\s+(?:my|our)\b))\s+"
    rf"(?:(?P<pronoun>her(?!\s+{_HER_THINGS})|him|them)\b|{_NP_KIN}(?!'s\b))"  # not "my colleague's shifts"
)
# Hedges said before "her carer" ("I'm basically her carer", "I've pretty much become his carer").
_EN_HEDGE = (
    r"(?:basically|really|also|effectively|essentially|kind\s+of|sort\s+of|pretty\s+much|officially|just|"
    r"still|now|actually|legally|technically|more\s+or\s+less|somehow)"
)
_EN_WHOSE = rf"(?:{_NP_KIN}'s|(?P<pronoun>her|his|their))"
# "I am my mum's main carer", "I've been his legal guardian since…", "I've basically become her
# full-time carer", "so I'm basically her carer": a guardian has the person in their care too.
_EN_CARER_OF = re.compile(
    rf"\bI(?:\s+am|(?:'ve|\s+have|\s+had)(?:\s+{_EN_HEDGE})*\s+(?:been|become)|(?:\s+{_EN_HEDGE})*\s+became)"
    rf"(?:\s+{_EN_HEDGE})*\s+{_EN_WHOSE}\s+"
    r"(?:(?:main|full[- ]time|primary|sole|legal|special|only|live-in|unpaid|day-to-day|kinship|foster)\s+)*"
    r"(?:carer|caregiver|guardian)\b"
)
# "I do most of her care", "I do all of Gran's personal care", "I'm the one who does most of his
# looking after": the care itself is the user's.
_EN_DOES_CARE = re.compile(
    rf"\bI(?:\s+am\s+the\s+one\s+(?:who\s+does|doing)|(?:\s+{_EN_HEDGE})*\s+do)(?:\s+{_EN_HEDGE})*\s+"
    r"(?:(?:most|all|much|a\s+lot|the\s+bulk|nearly\s+all|almost\s+all|half)\s+of\s+)?"
    rf"{_EN_WHOSE}\s+(?:(?:personal|day-to-day|daily|everyday)\s+)?(?:care|caring|looking\s+after)\b"
)
# "I've moved back home to look after her", "I gave up work to care for my dad", "I went part-time
# to look after Mum": what the user changed in their life, to look after them (as "我搬回来就是为了
# 照顾她" below).
_EN_CHANGED_TO_CARE = re.compile(
    r"\bI(?:'ve|\s+have|\s+had)?\s+(?:(?:just|recently|finally|basically|already|now|actually)\s+)*"
    r"(?:moved|come|came|gone|went|given|gave|quit|left|retired|stopped|cut|taken|took|switched|dropped|"
    r"packed|reduced|changed)\b[^.!?;]{0,40}?\bto\s+(?:look\s+after|care\s+for|take\s+care\s+of|nurse)\s+"
    rf"(?:(?P<pronoun>her(?!\s+{_HER_THINGS})|him|them)\b|{_NP_KIN}(?!'s\b))"
)
_EN_GUARDIANSHIP = re.compile(rf"\b(?:guardianship|custody)\s+of\s+(?:(?P<pronoun>her|him|them)\b|{_NP_KIN})")
# "I have legal guardianship", "we've got full custody now": of the one kin said before.
_EN_GUARDIANSHIP_HELD = re.compile(
    r"\b(?:I|i|[Ww]e)(?:'ve|\s+have|\s+had|\s+now\s+have)?\s+(?:(?:got|been\s+given|now|also)\s+)*"
    r"(?:(?:legal|special|full|sole|joint|permanent)\s+)*(?:guardianship|custody)\b(?!\s+(?:of|for|hearing|battle|case))"
)
# "我照顾我妈", "平时都是我照顾她", "我一直在照顾外婆", "由我照顾他"; "照顾好自己" is no one.
# "外甥小宇现在由我监护", "妈妈由我照顾": the kin said before, in the user's care.
_ZH_BY_ME = re.compile(r"由我(?:一个人|来|负责)?(?:照顾|照料|照看|监护|看护)")
_ZH_CARE = re.compile(
    # "我和老公轮流照顾她", "我同家姐一齐照顧佢": the user with a partner or a sibling cares too
    r"(?:我|我们)(?:\s*(?:和|跟|同|与|还有)\s*(?:我)?(?:老公|老婆|先生|太太|爱人|丈夫|妻子|哥哥|姐姐|弟弟|妹妹|家姐"
    r"|细佬|細佬|哥|姐|弟|妹))?"
    r"(?:\s*(?:一直|平时|现在|主要|负责|也|还|都|在|天天|每天|日日|全职|专门|一个人|一个|自己|轮流|輪流|一起|一齐|一齊"
    r"|full[- ]time))*\s*"
    # "我搬去高雄就是为了照顾他", "我辞职是为了照顾我妈": the speaker moved or left work to look after
    # them (not "我弟弟为了照顾奶奶…", "我妈为了照顾我爸…": someone else did)
    r"(?:(?:搬|回|辞|请|调|换|留)[^\uff0c,\u3002.!\uff01?\uff1f\s]{0,8}?(?:就是|都是|是|也是)?为了)?"
    r"(?:照顾|照料|看护|护理|照看|顾(?=[她他])|\s*take\s+care\s+(?:of\s+)?)着?\s*"
    rf"(?:(?P<zpronoun>他们|她们|她|他)|{_ZH_NP}(?P<zname>{_ZH_NAME})?|(?P<zbare>{_ZH_KIN}))(?!的)"
)
# "我是她的照顾者", "我就是他的监护人"; the one cared for not said ("平时都是我照顾。", "我是主要照顾者"):
# the one kin person the statement names.
_ZH_CARER_OF = re.compile(
    rf"我(?:就|现在|已经|一直|也)*是(?:(?:她|他)的|我?的?(?P<zguarded>{_ZH_KIN})(?P<zgname>{_ZH_NAME_CHAR}{{1,3}}?)?的)?"
    r"(?:主要|唯一|全职|法定)?的?(?:照顾者|看护|照护者|监护人)"
    r"|(?:我|我们)(?:一直|平时|现在|主要|负责|也|还|都|在|天天|每天|全职|专门)*(?:照顾|照料|照看)(?=$|[\uff0c,\u3002.!\uff01;\uff1b\s])"
)

# "我媽媽惠美現在跟我住", "外孙叫豆豆, 平时住我家", "她现在跟我们一起住": kin who live with the user are
# in their care (the people sets label their conditions a dependant's), a partner aside (a spouse
# lives with one), and a visit ("暑假住我家", "下周来出差住我家": `A_VISIT`) no household.
_ZH_LIVES_WITH = re.compile(
    rf"(?:(?P<zpronoun>她|他)|{_ZH_NP}\s?(?P<zname>(?=[A-Z][a-z]){_ZH_LATIN_NAME}|(?![搬要会想准打来]){_ZH_NAME_CHAR}{{1,3}}?)??"
    r"|(?P<zafter>^|(?<=[\uff0c,\u3002\s])))"
    rf"[\uff0c,\s]*(?:现在|目前|而家|一直|平时|平常|都|也|主要|长期)*(?:{_ZH_LIVES_WITH_ME})"
)
A_VISIT = re.compile(
    r"(?i)\bfor\s+(?:a|the|half|this|next)\s+(?:few\s+)?(?:days?|nights?|weeks?|fortnight|term|summer|holidays?"
    r"|months?|weekend)\b|\bbetween\s+jobs\b|\bvisiting\b"
    r"|出差|暑假|寒假|放假|几天|这周|下周|这个月|过年|过节|旅游|探亲"
)
_HOUSEHOLD = frozenset({Predicate.CHILD, Predicate.PARENT, Predicate.SIBLING, Predicate.RELATIVE})
# Living with the user, in English ("lives with us", "has lived with me", "moved in with us", "staying
# with us for good"), not "doesn't", "no longer", "lived with us" (then) nor "to live with us"; the
# one pattern this reader and `whose_condition` read it by.
EN_LIVES_WITH_USER = (
    r"(?<!n't\s)(?<!not\s)(?<!never\s)(?<!longer\s)(?<!to\s)"
    r"(?:\blives?|\bliving|(?<=has\s)lived|(?<=have\s)lived|(?<='s\s)lived|(?<='ve\s)lived|(?<=always\s)lived"
    r"|\bmoved\s+in|\bstaying(?=\s+with\s+(?:us|me)\s+(?:now|for\s+good|permanently)\b))"
    r"\s+(?:here\s+)?(?:now\s+)?with\s+(?:us|me)\b"
)
# "My mother-in-law lives with us", "Dad moved in with us in June", "Abuela Carmen has lived with us
# since…", "she's living with me now": the one kin of the household said before, as `_ZH_LIVES_WITH`
# reads it in Chinese; not a stay for a while (`A_VISIT`) nor a partner (not of `_HOUSEHOLD`).
_EN_LIVES_WITH_US = re.compile(
    r"(?i)(?:\b(?P<pronoun>she|he|they)\s+)?(?:(?:is|are|has|have)\s+|(?<=\w)'(?:s|re|ve)\s+)?"
    rf"(?:(?:now|still|permanently|also|always|been)\s+)*{EN_LIVES_WITH_USER}"
)

_EN_CARE_SAID = (_EN_CARE, _EN_CARER_OF, _EN_DOES_CARE, _EN_GUARDIANSHIP, _EN_CHANGED_TO_CARE)

_THE_USER = re.compile(r"\b[Tt]he\s+user(?P<is>\s+is)?\b(?!'s)")


def without_care(text: str) -> str | None:
    """`text` less the words that say the user looks after one of their kin ("I look after my mum",
    "I'm his legal guardian", "平时都是我照顾她"), or None when it says no such thing: whether what
    is left tells a condition is the statement's (the safety model reads care itself as one, having
    learned dependants' conditions said with it). Chinese as the Mandarin fold."""
    english = _as_english(text)
    cut = _cut(english, _EN_CARE_SAID)
    if cut is not None:
        return cut
    if not re.search(r"[\u4e00-\u9fff]", text):
        return None
    return _cut(as_mandarin(text, ZH_KIN_WORDS), (_ZH_CARE, _ZH_BY_ME, _ZH_CARER_OF))


def _as_english(text: str) -> str:
    """`text` with "I'm" as "I am", and as typed without capitals or apostrophe ("im her main carer
    now", "i look after him"); the extractor's third person ("The user looks after the user's dad,
    Desmond") as the user's "I"."""
    english = re.sub(r"\b(?:[Ii]'m|im)\b", "I am", text.replace("\u2019", "'"))
    english = re.sub(r"\bi\b(?!\.)", "I", english)
    return _THE_USER.sub(lambda m: "I am" if m.group("is") else "I", english)


def _cut(text: str, patterns: tuple[re.Pattern[str], ...]) -> str | None:
    spans = sorted(match.span() for pattern in patterns for match in pattern.finditer(text))
    if not spans:
        return None
    kept, at = [], 0
    for start, end in spans:
        kept.append(text[at:start] if start > at else "")
        at = max(at, end)
    return " ".join(("".join(kept) + " " + text[at:]).split())


def read_care(text: str, reading: Reading, *, chinese: bool = False) -> None:
    """Add to `reading` the user's care of the kin it names (English, and Chinese when `chinese`:
    traditional and Cantonese folded as the Chinese reading folds them)."""
    english = _as_english(text)
    said = (pattern.finditer(english) for pattern in _EN_CARE_SAID)
    for match in [m for found in said for m in found]:
        pronoun = match.group("pronoun")
        cared = (
            said_before(reading, english, match.start(), pronoun.lower(), _FAMILY) if pronoun else _np(match)
        )
        _cares(reading, cared)
    for match in _EN_GUARDIANSHIP_HELD.finditer(english):
        _cares(reading, said_before(reading, english, match.start(), among=_FAMILY))
    if not A_VISIT.search(english):
        for match in _EN_LIVES_WITH_US.finditer(english):
            pronoun = {"she": "her", "he": "him"}.get((match.group("pronoun") or "").lower(), "")
            _cares(reading, said_before(reading, english, match.start(), pronoun, _HOUSEHOLD))
    if chinese:
        _read_chinese_care(text, reading)


def _read_chinese_care(text: str, reading: Reading) -> None:
    """`read_care` of a Chinese statement, folded as the Chinese reading folds it."""
    folded = as_mandarin(text, ZH_KIN_WORDS)
    for match in _ZH_CARE.finditer(folded):
        if match.group("zpronoun"):
            cared = said_before(reading, folded, match.start(), match.group("zpronoun"), _FAMILY)
        elif match.group("zbare"):
            cared = Ref(kin=match.group("zbare"))  # "我一直在照顾外婆": the speaker's, after the verb
        else:
            ref = _zh_np(match)
            name = as_written(match.group("zname") or "", folded, text)
            cared = Ref(name=name, kin=ref.kin, of=ref.of, kind=ref.kind) if name else ref
        _cares(reading, cared)
    for match in _ZH_BY_ME.finditer(folded):
        _cares(reading, said_before(reading, folded, match.start(), among=_FAMILY))
    _read_chinese_home(text, folded, reading)
    for match in _ZH_CARER_OF.finditer(folded):
        guarded, guarded_name = match.groupdict().get("zguarded"), match.groupdict().get("zgname")
        if guarded_name and kin(guarded_name):
            continue  # "我是我妈妈同事的照顾者": the one cared for is someone else's (a colleague)
        if guarded:  # "我是外甥小杰的监护人": the kin, by the name said with it
            named = as_written(guarded_name, folded, text) if guarded_name else ""
            cared = Ref(name=named, kin=guarded) if named else Ref(kin=guarded)
        else:
            cared = said_before(reading, folded, match.start(), among=_FAMILY)
        _cares(reading, cared)


def _read_chinese_home(text: str, folded: str, reading: Reading) -> None:
    """Kin the statement says live with the user (`_ZH_LIVES_WITH`), in their care."""
    if A_VISIT.search(simplified_han(folded)):
        return
    for match in _ZH_LIVES_WITH.finditer(folded):
        if match.group("zpronoun") or match.group("zafter") is not None:
            # "她现在跟我住", "外孙叫豆豆, 五岁, 平时住我家": the one kin said before
            pronoun = match.group("zpronoun") or ""
            _cares(reading, said_before(reading, folded, match.start(), pronoun, _HOUSEHOLD))
            continue
        ref = _zh_np(match)
        said = match.group("zname") or ""
        if simplified_han(said) in ZH_NOW_AND_THEN:
            continue  # "我妈偶尔跟我住", "我爸暫時住我家": now and then
        if said and not said.isascii() and re.search(r"[\uff0c,]", folded[match.end("zname") : match.end()]):
            said = ""  # "我奶奶坐轮椅, 跟我一起住": what she does, no name, before the comma
        name = as_written(said, folded, text) if said and simplified_han(said) not in _ZH_NOT_WHEN else ""
        found = kin(ref.kin) if ref.kin else None
        if found is not None and found[0] in _HOUSEHOLD:
            _cares(reading, Ref(name=name, kin=ref.kin, of=ref.of, kind=ref.kind) if name else ref)


# The kin one looks after at home: family, a partner (not a friend, a colleague or a boss: "I take
# care of my boss's diary", "我负责照顾老板" are work).
_FAMILY = frozenset(
    {
        Predicate.CHILD,
        Predicate.PARENT,
        Predicate.SIBLING,
        Predicate.RELATIVE,
        Predicate.SPOUSE,
        Predicate.PARTNER,
    }
)


def _cares(reading: Reading, cared: Ref | None) -> None:
    if cared is None or cared.is_self or cared.of is not None or cared.kind != EntityKind.PERSON:
        return  # "my brother's dog", "Ana's mum": not the user's own kin
    found = kin(cared.kin) if cared.kin else None
    if cared.kin and (found is None or found[0] not in _FAMILY):
        return
    if not cared.kin and not _kin_in(reading, cared):
        return
    known = next((ref for ref in reading.refs if ref.kin == cared.kin and ref.of is None and ref.name), None)
    person = known if known is not None and not cared.name else cared
    reading.add(Triple(SELF, Predicate.OTHER, CARES_FOR, object=person))


def _kin_in(reading: Reading, ref: Ref) -> bool:
    return any(r.name == ref.name and r.kin and r.of is None for r in reading.refs)
