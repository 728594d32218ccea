"""Whose condition a statement tells, read from who it is about: a health fact told about one's
partner, friend, sibling, colleague, mentee, drummer or neighbour is theirs, not the user's nor a
dependant's ("My hiking buddy got alpha-gal from a tick", "我哋鼓手有耳鳴", "我老婆怀孕七个月了").

The safety model pins a statement when it is even 16 % sure the condition is the user's or a
dependant's (its recall is what keeps a child's allergy from being missed), so told with warmth
or worry, others' conditions were pinned as the user's (batch 23: 34 of 121 pinned). This reader
names the person a statement opens with; the safety decision (`screening`) weighs it with the
model's own odds. Children, parents and grandparents are left to the model: they may be in the
user's care.
"""

from __future__ import annotations

import re

from memory_core.entities.care import A_VISIT, EN_LIVES_WITH_USER, without_care
from memory_core.entities.kinship import KIN_WORDS
from memory_core.entities.rules_zh import ZH_LIVES_WITH_USER
from memory_core.entities.served import ZH_WORK_PLACES
from memory_core.entities.vocabulary import Predicate
from memory_core.language import simplified_han
from memory_core.reading.records import a_record_note
from memory_core.reading.words import word_set

# The kin and social words that name someone who is not in the user's care.
_OTHERS = frozenset(
    {
        Predicate.SPOUSE,
        Predicate.PARTNER,
        Predicate.SIBLING,
        Predicate.FRIEND,
        Predicate.COLLEAGUE,
        Predicate.MANAGER,
    }
)
_OTHER_RELATIVES = frozenset(
    {
        "aunt",
        "uncle",
        "cousin",
        "niece",
        "nephew",
        "brother-in-law",
        "sister-in-law",
        "mother-in-law",
        "father-in-law",
    }
)
_EN_MORE = [
    "buddy", "mate", "bestie", "bff", "mentee", "student", "pupil", "client", "customer", "patient", "guest",
    "tenant", "landlord", "bandmate", "drummer", "singer", "guitarist", "classmate", "housemate", "trainer",
    "coach", "boyfriend", "girlfriend",
]  # fmt: skip
_ZH_MORE = [
    "老婆", "老公", "闺蜜", "同学", "学生", "病人", "客户", "客人", "队友", "鼓手", "舍友", "隔壁",
    "隔篱", "租客", "房东", "男朋友", "女朋友", "对象", "徒弟", "老板娘",
]  # fmt: skip


def _words(ascii_words: bool) -> list[str]:
    found = {
        word
        for word, (predicate, label) in KIN_WORDS.items()
        if word.isascii() == ascii_words and (predicate in _OTHERS or label in _OTHER_RELATIVES)
    }
    more = [*_EN_MORE, *(w + "s" for w in _EN_MORE)] if ascii_words else _ZH_MORE
    return sorted(found | set(more), key=len, reverse=True)


def _family(ascii_words: bool) -> str:
    """The kin among `_words` who may live in the user's care: siblings, aunts, cousins, in-laws."""
    return "|".join(
        re.escape(word)
        for word, (predicate, label) in sorted(KIN_WORDS.items(), key=lambda item: -len(item[0]))
        if word.isascii() == ascii_words and (predicate == Predicate.SIBLING or label in _OTHER_RELATIVES)
    )


# "My hiking buddy …", "Our drummer's …", "Heads up, my sister's …": the person a sentence opens
# with (a few words in), possessed ("the user's …" as an extractor rewrites it); "my partner and
# I" is the user too.
_EN_OPENS_WITH = re.compile(
    r"(?i)^(?:[^,:.!?]{1,20}[,:]\s+|\W*(?:so|and|btw|also|ok|oh|well|update)\W+)?\W*(?:my|our|the\s+user'?s)\s+(?:[\w-]+\s+)?(?:"
    + "|".join(map(re.escape, _words(ascii_words=True)))
    + r")(?:'s)?\b(?!\s+and\s+(?:i|me)\b)"
)
# "我老婆…", "我哋鼓手…", "隔壁阿May個仔…" at the start of a sentence ("我家妹妹" may be a child in the
# household: left to the model).
_ZH_OPENS_WITH = re.compile(
    r"^\W*(?P<whose>我们|我哋|我|咱们|用户)?(?:的)?(?:"
    + "|".join(map(re.escape, _words(ascii_words=False)))
    + ")"
)
# A kin or social word said bare and then a pause or a word of address is who the statement is told
# TO ("姐姐注意: 囡囡對花生嚴重過敏...", "老公, 儿子花生过敏你记得...", "师傅您好, …我爸还在吸氧"), not
# whose condition it tells: the helper, the partner or the tradesman told of a child's allergy or a
# father's oxygen. "我老公, 他..." (possessed) stays who it is about.
_ZH_ADDRESS = re.compile(
    r"(?:们|哋)?\s*(?:[\uff0c,\uff1a:\uff01!\u3001]|注意|留意|记得|记住|记低|请|麻烦|唔该|拜托|千万|帮我|睇住|听住|听好|你|您)"
)
# Any kin or carer word said bare at the start (a parent or grandparent too: "妈妈你记得, 宝宝对鸡蛋
# 过敏", "外婆, 豆豆对牛奶过敏"): with a word of address after it, it is who a statement is told to.
# Only what is kept of the statement reads it (`after_an_address`); whose condition it is stays the
# model's for kin who may be in the user's care.
_ADDRESSED_AS = word_set("阿姨 姐姐 工人姐姐 保姆 宝贝 亲爱的 师傅 老师 医生 护士 姑娘")
_ZH_ADDRESSED = re.compile(
    r"^\W*(?:"
    + "|".join(
        map(
            re.escape,
            sorted({w for w in KIN_WORDS if not w.isascii()} | _ADDRESSED_AS, key=len, reverse=True),
        )
    )
    + ")"
)
# Someone of the class, ward, team or caseload the user works with ("我班上的小宇有…", "A kid in my
# class has…", "One of the residents on my unit…"): the user's work, not their care.
_EN_AT_WORK = re.compile(
    r"(?i)^\W*(?:(?:a|a\s+few|one|some|several|two|three|four|five|another|this|the)\s+(?:of\s+the\s+)?(?:little\s+)?"
    r"(?:kids?|child|children|boys?|girls?|lads?|students?|pupils?|patients?|residents?|clients?|players?|"
    r"members?|learners?|service\s+users?)\s+(?:in|on|at|from)\s+(?:my|our)\s+"
    r"(?:class|classroom|form|ward|team|squad|group|unit|caseload|practice|clinic|surgery|bay|rota|club)\b)"
)
_ZH_AT_WORK = re.compile(rf"^\W*(?:我们|我)?(?:{ZH_WORK_PLACES})(?:的|有个|有一个|有位|有一位)")
# Someone the user serves said by who they are and what the user does for them, or by their slot
# ("The mum I visit has…", "Lady I do on Tuesdays…", "Kid in the 4pm lesson has…"): nobody says
# so of their own child or parent ("my mum"). Care itself ("the lad I care for", "the kids I nanny
# for") is left to the model: the user may be their guardian.
_ROLE = (
    r"(?:lady|ladies|man|men|gentleman|gent|woman|women|mum|mam|mom|dad|mother|father|kid|kids|child|"
    r"children|boy|boys|girl|girls|lad|lass|fella|chap|guy|bloke|teen|teenager|baby|toddler|family|couple)"
)
_EN_SERVED_BY_ROLE = re.compile(
    r"(?i)^\W*(?:(?:the|a|this|that|one|another)\s+)?(?:(?:new|little|old|older|elderly|young)\s+)?"
    + _ROLE
    + r"\s+(?:(?:who|that)\s+)?(?:I|we)(?:'m|\s+am|'ve\s+been|\s+have\s+been)?\s+(?:visit|do|see|sit\s+with|"
    r"drive|tutor|teach|coach|clean\s+for|support|work\s+with|mentor|walk|read\s+(?:to|with)|befriend)"
    r"(?:s|ing)?\b"
    r"|^\W*(?:(?:the|a|one|this)\s+)?(?:(?:new|little|old)\s+)?"
    + _ROLE
    + r"\s+(?:in|on|at|from)\s+(?:the\s+|my\s+|our\s+)?(?:\d{1,2}(?::\d\d)?\s*(?:am|pm)?|morning|afternoon|"
    r"evening|monday|tuesday|wednesday|thursday|friday|saturday|sunday|early|late|next)\w*\s*(?:'s\s+)?"
    r"(?:lesson|class|session|group|slot|shift|round|swim|club|sitting|appointment|booking|visit|call)s?\b"
)
# A pupil or a patient the statement opens with, named with their class or their bed ("Kacper (Y10)
# has type 1 diabetes…", "For the dining hall: Amelia in Year 1 has…", "Lily W in 7R shows a red
# allergy flag…", "Bed 4's baby has a tongue tie…"): someone at the user's work; a parent names
# their own child "my son". Over the labelled sets (batch 59 included) 48 statements read so: 41 of
# someone else's condition (5 of them pinned before), 5 of none, 1 of the user's seat ("I'm in 14C
# with my son", set aside by the "my") and 1 of a dependant's ("Parent email: Ellie (Y8) is
# autistic…", a parent's words passed on), which is read as someone else's now.
_EN_SLOTTED = re.compile(
    r"^(?!.*\b(?i:my|our)\s+(?:son|daughter|child|kid|boy|girl|lad|lass|little)\b)"
    r"\W*(?:[^.!?:]{0,40}?[:,]\s*)?(?:(?!I'm\b|I\b)[A-Z][a-z'-]+(?:\s+[A-Z]\.?)?\s*"
    r"(?:\((?:Y|Yr|Year\s*)\d{1,2}[A-Z]?\)|\(\d{1,2}[A-Z]{1,2}\)|in\s+(?:Y|Yr|Year\s+)\d{1,2}[A-Z]?\b"
    r"|in\s+\d{1,2}[A-Z]{1,2}\b|in\s+(?:Reception|P\d|Primary\s+\d|Form\s+\d))"
    r"|(?:Bed|Bay|Cot)\s+\d{1,3}'s\b)"
)
# Someone named with a title the statement is about ("Account note, Mr Patel: he has dementia", "For
# Mr Haines, who has epilepsy: …", "Bed 12 的 Mdm Lim 有 dysphagia", "对门王奶奶一个人住"): a client,
# a patient or a neighbour; nobody names their own child, or a parent in their care, "Mr Patel" or
# "王奶奶" (their own grandmother is "我奶奶"). Over the labelled sets (batch 55 included), 157
# statements of someone else's condition and 76 of none are read so, and none of the user's or a
# dependant's: a greeting ("王老师您好, 我家朵朵…", said TO the teacher), "who I care for" and "Mr
# Tan is my dad" are set aside.
_TITLED_SUBJECT = re.compile(
    r"^\W*(?:[^.!?:]{0,40}?[:,]\s*|(?i:for|with)\s+|[\w ]{0,12}的\s*)?"
    r"(?:Mr|Mrs|Ms|Miss|Mx|Mdm|Madam|Dr|Prof|Sir)\.?\s+"
    r"[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?(?:\s*(?:,\s*(?:who(?!\s+(?:I|we)\b)|our|a|an|the)\b|:\s*(?:he|she|they)\b)"
    r"|(?!\s*(?:is|'s)\s+(?:my|our)\b)\s+(?:who|has|had|is|有|"
    r"was|'s|needs?|uses?|takes?|flies|can'?t|cannot|must|gets?|relies|wears?|carries|lives?)\b)"
    r"|^\W*(?:[^\uff0c,\u3002:\uff1a]{0,12}[\uff1a:]\s*)?(?:对门|隔壁|楼下|楼上|邻居|住在|那个|那位|这位)?(?:的)?"
    r"[王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢"
    r"姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤颜]"
    r"(?:奶奶|爷爷|阿姨|叔叔|伯伯|婆婆|伯母|大爷|大妈|老师|师傅|先生|女士|小姐|太太|老伯|阿婆|阿伯|姨|生)"
    r"(?![\uff0c,\u3001:\uff1a\s]|好|您|你)"
)
# A child said with the bare classifier and "girl" / "boy" / "kid" ("個女仔對花生過敏": a girl, some
# girl) is no child of the user's, who says "個女" / "我個女" (`reading.words.ZH_BARE_KIN`); the safety
# model retrained with batch 54 read it as the user's daughter (0.82). No labelled text opens so.
_ZH_A_CHILD = re.compile(r"^\W*个(?:女仔|男仔|细路|细蚊仔|小朋友|小孩)")
# The speaker's own condition told beside another's ("my wife and I are both coeliac", "我自己也…").
_SELF_TOO = re.compile(
    r"(?i)\b(?:i|i'm|i've|me|myself)\b.{0,40}\b(?:too|as well|also|both)\b|我自己|我也|我都"
)


# A sibling, an aunt or an in-law the statement says lives with the user ("My mother-in-law lives with
# us and she's diabetic", "婆婆跟我们住, 她有帕金森", "我妹妹…现在住我这儿") is of the household the user
# looks after: their condition is a dependant's (`whose_known.kin_at_home`), where a statement that
# opens with them is otherwise someone else's.
_EN_FAMILY_OPENS = re.compile(
    rf"(?i)^(?:[^,:.!?]{{1,20}}[,:]\s+)?\W*(?:my|our)\s+(?:[\w-]+\s+)?(?:{_family(ascii_words=True)})\b"
)
_ZH_FAMILY_OPENS = re.compile(rf"^\W*(?:我们|我哋|我)?(?:的)?(?:{_family(ascii_words=False)})")
# "lives with us", "moved in with me", "跟我们住", "住我这儿", "搬来和我们住"; not "doesn't live with
# us", "不跟我们住", nor a visit ("is staying with us for half term", "下周来出差, 住我家":
# `entities.care.A_VISIT`).
_LIVES_WITH_THE_USER = re.compile(rf"(?i){EN_LIVES_WITH_USER}|(?<![不没])(?:{ZH_LIVES_WITH_USER})")


def without_home(text: str) -> str | None:
    """`text` (simplified, spaces normalised) less the words that say the sibling, aunt or in-law it
    opens with lives with the user, or None when it says no such thing."""
    plain = simplified_han(" ".join(text.split()))
    if not (_EN_FAMILY_OPENS.search(plain) or _ZH_FAMILY_OPENS.search(plain)) or A_VISIT.search(plain):
        return None
    rest = _LIVES_WITH_THE_USER.sub(" ", plain)
    return " ".join(rest.split()) if rest != plain else None


def _zh_self_after(plain: str) -> bool:
    """Whether `plain` opens with someone said bare, no one's ("同事", "婆婆", "师傅"), and then speaks
    of the speaker ("同事約我去爬山, 我這個僵直性脊椎炎能不能去", "婆婆说我怀孕了不能吃螃蟹"): the
    condition is the speaker's, the one it opens with only who said or asked. Not a partner said
    bare ("老婆怀孕了", the user's wife), nor someone's ("闺蜜家女儿…", "同事的孩子…")."""
    opening = _ZH_OPENS_WITH.search(plain)
    if opening is None or opening.group("whose") or opening.group(0).strip() in _ZH_PARTNERS:
        return False
    return not plain.startswith(("家", "的"), opening.end()) and bool(_ZH_SELF.search(plain, opening.end()))


_ZH_SELF = re.compile(r"我(?![们哋])")
_ZH_PARTNERS = word_set("老婆 老公 对象 男朋友 女朋友 爱人 先生 太太")


def _bare_address(plain: str) -> re.Match[str] | None:
    """The word of address after a kin or social word `plain` opens with bare ("老公你记得": "你"),
    or None when it opens with none, or with one possessed ("我老公, 他...")."""
    opening = _ZH_OPENS_WITH.search(plain)
    if opening is None or opening.group("whose"):
        return None
    return _ZH_ADDRESS.match(plain, opening.end())


def after_an_address(text: str) -> str:
    """`text` after a kin, carer or social word it opens with as a word of address ("老公你记得" ->
    "记得", "妈妈你记得, 宝宝…" -> "记得, 宝宝…"), or all of it (simplified, spaces normalised)."""
    plain = simplified_han(" ".join(text.split()))
    address = _bare_address(plain)
    if address is None and (kin := _ZH_ADDRESSED.match(plain)):
        address = _ZH_ADDRESS.match(plain, kin.end())
    return plain[address.end() :].strip() if address else plain


def named_by_slot(text: str) -> bool:
    """Whether `text` opens with a pupil or a patient named with their class or bed (`_EN_SLOTTED`)."""
    return bool(_EN_SLOTTED.search(" ".join(text.split())))


def someone_elses(text: str) -> bool:
    """Whether `text` opens with someone not in the user's care and tells nothing of the user's
    own nor of their care: the condition it tells is theirs."""
    plain = simplified_han(" ".join(text.split()))
    if _SELF_TOO.search(plain) or _zh_self_after(plain):
        return False  # the user's own condition told too
    if _ZH_OPENS_WITH.search(plain) and _bare_address(plain) is None:
        opens = True  # who it opens with, unless that is who it is told to
    else:
        opens = any(
            pattern.search(plain)
            for pattern in (
                _EN_OPENS_WITH,
                _EN_AT_WORK,
                _EN_SERVED_BY_ROLE,
                _EN_SLOTTED,
                _ZH_AT_WORK,
                _TITLED_SUBJECT,
                _ZH_A_CHILD,
            )
        ) or a_record_note(plain)
    # The care reading only for a statement that opens with someone: the user may look after them
    # ("my husband has early-onset Parkinson's and I'm his main carer now").
    return opens and without_care(text) is None
