"""The Chinese reading of statements for the graph (`rules` has the English and the shared
types): kin words with their owner, names, work, homes, neighbours by where they live, weddings
and endings; traditional characters and Cantonese read as Mandarin (`zh_forms`), names kept as
written."""

from __future__ import annotations

import re
from dataclasses import replace

from memory_core.entities.endings import ZH_ENDINGS, ZH_WHEN
from memory_core.entities.kinship import ZH_KIN_WORDS, kin, kind_of
from memory_core.entities.rules import (
    _WORK_KIN,
    _ZH_PRONOUNS,
    SELF,
    Reading,
    Ref,
    Triple,
    _endings,
    speaker_is_theirs,
)
from memory_core.entities.vocabulary import EntityKind, Predicate
from memory_core.entities.zh_forms import as_mandarin, as_written
from memory_core.language import simplified_han
from memory_core.reading.words import alternation, word_set

_ZH_KIN = alternation(list(ZH_KIN_WORDS))
_ZH_STOP = "\uff0c\u3002,.!\uff01\uff1f?\uff1b;\uff1a:\u3001\\s"  # full-width and ASCII punctuation
# A Chinese name: two to four characters up to a particle or punctuation; or a Latin name.
_ZH_NAME_CHAR = r"(?:(?![是的在住我你他她它和也叫很被把这那])[\u4e00-\u9fff])"
_ZH_AFTER_NAME = (
    r"是|在|住|工作|上班|做|的|和|也|今年|很|喜欢|养|现在|目前|如今|一直|已经|正在|还|"
    r"\d|嫁|娶|结婚|再婚|离婚|同|跟|与"  # "郑浩然2018年又结婚了", "吕佳敏嫁给了…"
)
# A Latin name may take a Cantonese form of address ("May姐", "Ken哥", "Eric叔"): part of the name.
_ZH_ADDRESS = "(?:姐|叔|哥|嫂|姨)?"
_ZH_LATIN_NAME = rf"[A-Z][A-Za-z'-]*(?:\s[A-Z][A-Za-z'-]*){{0,2}}{_ZH_ADDRESS}"
# A Latin name of up to three words ("我妈叫 Tan Ah Lian"), or Han characters.
_ZH_NAME = (
    rf"(?:{_ZH_LATIN_NAME}|{_ZH_NAME_CHAR}{{1,4}}?)"
    rf"(?=$|[{_ZH_STOP}]|{_ZH_AFTER_NAME})"
)
_ZH_SELF = r"(?:我们|我|用户)"
_ZH_BESIDE = "对门|对面|楼上|楼下|隔壁|邻屋"
# Who a kin word is of: 我(的), a name and 的, or no one said at a clause's start, which in Chinese
# is the speaker's ("主管是蔡丽萍", "爸爸再娶了"); "当时的组长", "新科长": the one then, the new one.
_ZH_NP = (
    rf"(?:(?P<zself>{_ZH_SELF})的?|(?!当时|那时|当年|{_ZH_BESIDE})(?P<zowner>{_ZH_NAME})(?<!{_ZH_BESIDE})的|(?<![\u4e00-\u9fffA-Za-z0-9]))"
    rf"(?:当时的|那时的|现在的|新来的|新的?)?(?P<zkin>{_ZH_KIN})"
)
# A neighbour said by where they live, the speaker's: "对门邻居是葛长庚", "楼下住的是裴雨桐",
# "隔壁住着一位叫…的", "樓上住著…" (traditional folded, 著 as written); 楼下 is no one's name.
_ZH_NEXT_DOOR = re.compile(
    rf"(?:{_ZH_BESIDE})家?的?(?:邻居(?:叫做|名叫|叫|是)|住的是|住[着著]|住了)(?:一个叫|一位叫|个叫)?"
    rf"(?![一两几个位对些])(?P<zname>{_ZH_NAME})"
)
# "我女儿叫朵朵", "我弟弟, 叫阿杰", "阿公的名字叫林金水", "嫲嫲個名叫何桂英" (個 as 的), "女儿小名叫圆圆".
_ZH_NAMED = re.compile(
    rf"{_ZH_NP}(?:(?:[\uff0c,]\s*)?(?:小名|大名|全名|乳名|花名|昵称)?(?:叫做|名叫|叫)|的?名字(?:是|叫)|的名叫|是)"
    rf"\s?(?P<zname>{_ZH_NAME})"
)
# "志明是我爸", "對了志明是我爸啦" (a word that opens the sentence is no part of the name).
_ZH_OPENERS = "对了|顺便说一下|顺便讲|顺便|另外|还有|话说|其实|喔|哦|噢|嗯"
_ZH_IS_MY = re.compile(
    rf"(?<![\u4e00-\u9fff])(?:(?:{_ZH_OPENERS})[\uff0c,\s]*)?(?P<zname>{_ZH_NAME})是{_ZH_NP}"
)
# "我在华信会计师事务所的组长是陈敏": the kin at a workplace, who works there too.
_ZH_AT_NAMED = re.compile(
    rf"(?P<zself>{_ZH_SELF})在(?P<org>[^{_ZH_STOP}]{{2,20}}?)的(?P<zkin>{_ZH_KIN})(?:叫做|名叫|叫|是)(?P<zname>{_ZH_NAME})"
)
# Words that open a clause and are no one's name: "现在在腾讯工作" is "now working at Tencent", not
# a person called 现在 (or 现) working at "在腾讯".
_ZH_NOT_A_NAME = (
    r"(?!现在|目前|如今|今年|去年|明年|最近|以前|之前|后来|一直|正在|已经|平时|每天|周末|今天|明天|昨天|"
    r"这周|上周|下周|这个月|上个月|下个月|早上|上午|中午|下午|晚上|夜里|在|刚|才|又|也|还|都|就|正|仍|再|但|而|所以|因为|然后|后|前|听说|据说|说)"
)
# A subject named without a kinship word is a name of two to four characters (one character alone
# is a word's tail more often than a name: the 上 of 晚上).
_ZH_FREE_NAME = rf"(?:[A-Z][A-Za-z'-]*|{_ZH_NAME_CHAR}{{2,4}}?)(?=$|[{_ZH_STOP}]|{_ZH_AFTER_NAME})"
_ZH_SUBJECT = rf"(?P<zsubj>{_ZH_NP}(?P<zsubjname>{_ZH_NAME})?|{_ZH_SELF}|{_ZH_NOT_A_NAME}{_ZH_FREE_NAME})"
_ZH_NOW = r"(?:现在|目前|如今|一直|已经|还)?"
_ZH_WORKS = re.compile(rf"{_ZH_SUBJECT}{_ZH_NOW}在(?P<org>[^{_ZH_STOP}]{{1,20}}?)(?:工作|上班|任职)")
# (someone's home is no place: "住在我家", "住喺我哋度", "住他那儿")
_ZH_LIVES = re.compile(
    rf"{_ZH_SUBJECT}{_ZH_NOW}(?:住在|搬到了?|定居在|生活在)"
    rf"(?!(?:我|你|他|她)们?的?(?:家|度|这|那|屋企))(?P<place>[^{_ZH_STOP}]{{1,12}})"
)
_ZH_PROFESSIONS = (
    "医生|老师|教师|律师|工程师|护士|程序员|飞行员|机长|设计师|会计|会计师|教授|学生|厨师|警察|司机|记者|销售|"
    "经理|产品经理|建筑师|科学家|作家|演员|歌手|画家|公务员|研究员|博士|模特|翻译|药剂师|兽医|牙医"
)
_ZH_ROLE = re.compile(rf"{_ZH_SUBJECT}(?:是|当|做)(?:一名|一个|一位|名)?(?P<role>{_ZH_PROFESSIONS})")
_ZH_PROFESSION_SET = frozenset(_ZH_PROFESSIONS.split("|"))
# "我和周浩结婚了", "她嫁给了林建国", "我娶了王芳": a marriage (its end is an ending's, "离婚").
_ZH_WED = re.compile(
    rf"{_ZH_SUBJECT}{ZH_WHEN}(?:(?:和|跟|与|同)(?P<zspouse>{_ZH_NAME_CHAR}{{1,4}}?){ZH_WHEN}(?:领证)?结[了的]?婚|"
    rf"(?:再婚|又?结婚了?|再娶|再嫁)?[\uff0c,]?(?:又|再)?(?:嫁给了?|嫁了给|娶了|娶的是|嫁的是)"
    rf"(?:一个叫|一位叫|个叫)?(?P<zspouse2>{_ZH_NAME}))"
)


# A full name said right after the kin word ("我姐姐何静2008年…", "佳慧的妹妹吕佳敏嫁给了…"): a
# surname and one or two characters, so that "我妈妈做饭" names no one.
_ZH_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
    "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔"
    "向汤区欧葛温易庞"
)
ZH_SURNAMES = _ZH_SURNAMES  # for the short forms a name is said by (`people_known`)
# A name's third character is none of the words that commonly follow one ("何静嫁给了", "王芳今年").
_ZH_NOT_A_THIRD = (
    "嫁娶开在是做当住和跟与同也很今去明的了叫从把被给喜爱来说要会想有没不常每一已正还现后前都就才又再"
)
_ZH_NP_NAMED = re.compile(
    rf"{_ZH_NP}(?P<zname>[{_ZH_SURNAMES}]{_ZH_NAME_CHAR}(?:(?![{_ZH_NOT_A_THIRD}]){_ZH_NAME_CHAR})?)"
)


# A child's pet name right after the kin word, as parents say them ("我儿子乐乐", "我女儿阿晴",
# "我的孩子Wei Jie"): a doubled character, 阿 or 小 and one or two more, or a Latin name; not a
# doubled adverb ("我儿子天天哭").
_ZH_AGE = r"[一二三四五六七八九十两廿卅\d]+[岁]"  # 廿五岁: twenty-five, as Cantonese writes it
# A given name of two characters right after the kin word is read only before a time, an age or a
# school year ("我個仔俊熙今年讀P3", "我女儿欣怡下个月上幼儿园"): a word there would not be followed so.
_ZH_WHEN_NEXT = r"今年|去年|明年|下个月|上个月|下周|上周|下个|上个|读|上小|上初|上高|上幼"
# ...or before living with the user ("阿嬤秀英跟我住", "外婆桂芳要搬过来跟我住"), when the two
# characters are no word of when or how often ("我妈偶尔跟我住").
# Living with the user, in simplified characters ("跟我们一起住", "搬过来和我住", "住我家", "住喺我哋屋企",
# "同我哋一齊住": Cantonese as `whose_condition` reads it, unfolded),
# not having lived there ("跟我住过") nor a few days' stay; the one pattern `entities.care` and
# `whose_condition` read it by.
ZH_LIVES_WITH_USER = (
    r"(?:搬(?:过|回|进|入|了|咗)?(?:来|嚟)?)?(?:跟|和|同|与)(?:我们|我哋|我|用户)(?:一家)?(?:一起|一齐)?住(?!过|了几天)"
    r"|住(?:在|喺)?(?:我们|我哋|我|用户)(?:家|这儿|这里|这|屋企|度)"
)
_ZH_LIVES_WITH_ME = rf"(?:现在|目前|而家|要|也|就|会|已经|一直|准备)?(?:{ZH_LIVES_WITH_USER})"
# Words of now and then before living with the user ("我妈偶尔跟我住", "我爸暫時住我家"): no household.
ZH_NOW_AND_THEN = word_set("偶尔 有时 暂时 偶然 间中 过年 假期 放假 周末 冬天 夏天 每年")
# Words of when, how often or how that come there and are no name, in simplified characters.
_ZH_NOT_WHEN = ZH_NOW_AND_THEN | word_set(
    "经常 常常 长期 轮流 主要 平常 平日 一般 这几 那几 自己 一起 一齐 成日 日日"
)
_ZH_NICKNAME = re.compile(
    # (小 and a word's second character is that word: 小学, 小时候, 小班, 小区, 小孩…)
    rf"{_ZH_NP}\s*(?P<zname>(?P<zr>{_ZH_NAME_CHAR})(?P=zr)|(?!小[学时班区孩朋姐心组说吃费号儿])[阿小]{_ZH_NAME_CHAR}{{1,2}}?"
    rf"|老[{_ZH_SURNAMES}]|[A-Z][a-z]+(?: [A-Z][a-z]+)?{_ZH_ADDRESS}"
    rf"|{_ZH_NOT_A_NAME}{_ZH_NAME_CHAR}{{2}}(?={_ZH_WHEN_NEXT}|{_ZH_AGE})"
    rf"|{_ZH_NOT_A_NAME}(?![搬要会會想准準打来]){_ZH_NAME_CHAR}{{2}}(?={_ZH_LIVES_WITH_ME}))"
    # (读: "我個女Chloe讀緊中一", "我儿子乐乐读小学")
    r"(?=$|[^\u4e00-\u9fffA-Za-z]|[有对还也在是的和跟同与从刚才每今昨明去来又就会要想说很不没最平读搬住前]|已经|一直|"
    rf"现在|目前|平时|下个|上个|下周|上周|下午|上午|上(?:幼|学|小学|初|高|中学|大学|班|课)|{_ZH_AGE})"
)
# After a doubled word, what shows it is a name, not an adverb ("我儿子明明今年三十了", "我女儿甜甜五岁";
# not "我儿子明明知道"): an age, 今年, or the clause's end.
_ZH_NAME_SHOWN = re.compile(rf"(?:$|[\uff0c,\u3002.!\uff01?\uff1f;\uff1b:\uff1a\u3001]|今年|{_ZH_AGE})")
_ZH_DOUBLED_WORDS = frozenset(
    [
        "天天", "常常", "慢慢", "刚刚", "好好", "偷偷", "渐渐", "每每", "时时", "处处",
        "人人", "个个", "早早", "悄悄", "静静", "默默", "轻轻", "久久", "统统", "往往",
        "仅仅", "明明", "稍稍", "白白", "紧紧", "哈哈", "呵呵", "嘻嘻", "乖乖", "多多",
        "快快", "高高", "大大", "小小", "一一", "整整", "足足", "老老", "实实",
    ]
)  # fmt: skip


# "我有个女儿, 叫朵朵", "多了个继子, 叫浩浩", "我们去年生了个儿子叫乐乐": the speaker's kin, said with a
# name after 有 / 生了 / 多了 a kin word (at a clause's start or after 我: "小王有个儿子叫…" is 小王's).
_ZH_HAS = re.compile(
    rf"(?:^|(?<=[{_ZH_STOP}]))(?:(?P<zself>{_ZH_SELF}))?(?:去年|今年|前年|刚刚?|最近|又|也|还|已经|终于)*"
    rf"(?:有了?|生了|添了|多了)(?:一|两)?个(?P<zkin>{_ZH_KIN})[\uff0c,]?\s*(?:叫做|名叫|叫)(?P<zname>{_ZH_NAME})"
)


def _zh_has(text: str, reading: Reading, named: set[Ref]) -> None:
    for match in _ZH_HAS.finditer(text):
        ref = _zh_np(match)
        if ref not in named and kin(ref.kin):
            named.add(ref)
            reading.add_ref(Ref(name=match.group("zname"), kin=ref.kin, kind=ref.kind))


def _zh_nicknamed(text: str, reading: Reading, named: set[Ref]) -> None:
    """ "我儿子乐乐今年上初一": the kin, named by the pet name said right after its word."""
    for match in _ZH_NICKNAME.finditer(text):
        ref = _zh_np(match)
        name = match.group("zname")
        doubled = name in _ZH_DOUBLED_WORDS and not _ZH_NAME_SHOWN.match(text, match.end())
        if ref in named or doubled or simplified_han(name) in _ZH_NOT_WHEN or not kin(ref.kin):
            continue
        named.add(ref)
        reading.add_ref(Ref(name=name, kin=ref.kin, of=ref.of, kind=ref.kind))


def _zh_named_after(text: str, reading: Reading, named: set[Ref]) -> None:
    """ "我姐姐何静2008年…": the kin, named by the full name said right after its word."""
    for match in _ZH_NP_NAMED.finditer(text):
        ref = _zh_np(match)
        if ref not in named:
            named.add(ref)
            reading.add_ref(Ref(name=match.group("zname"), kin=ref.kin, of=ref.of, kind=ref.kind))


def _zh_next_door(text: str, reading: Reading) -> None:
    """ "对门住的是葛长庚": the speaker's neighbour, said by where they live."""
    for match in _ZH_NEXT_DOOR.finditer(text):
        reading.add_ref(Ref(name=match.group("zname"), kin="邻居"))


def _zh_np(match: re.Match[str]) -> Ref:
    word = match.group("zkin")
    found = kin(word)
    owner = match.groupdict().get("zowner")
    of = Ref(name=owner) if owner and owner not in ("我", "用户") else None
    return Ref(kin=word, of=of, kind=kind_of(found[0]) if found else EntityKind.PERSON)


def _zh_subject(match: re.Match[str]) -> Ref:
    if match.group("zkin"):
        ref = _zh_np(match)
        name = match.group("zsubjname") or ""
        return Ref(name=name, kin=ref.kin, of=ref.of, kind=ref.kind) if name else ref
    text = match.group("zsubj")
    return SELF if re.fullmatch(_ZH_SELF, text) else Ref(name=text)


def _zh_weddings(text: str, reading: Reading) -> None:
    for match in _ZH_WED.finditer(text):
        spouse = match.group("zspouse") or match.group("zspouse2")
        if spouse not in _ZH_PRONOUNS:
            reading.add(Triple(_zh_subject(match), Predicate.SPOUSE, "结婚", Ref(name=spouse)))


def _zh_at_work(text: str, reading: Reading) -> tuple[set[Ref], list[tuple[int, int]]]:
    """ "我在华信的组长是陈敏": the named kin, who works there too when a boss or colleague; and
    where it was said (no name in the workplace's words is an owner)."""
    named: set[Ref] = set()
    spans: list[tuple[int, int]] = []
    for match in _ZH_AT_NAMED.finditer(text):
        ref = _zh_np(match)
        named.add(ref)
        spans.append(match.span())
        found = kin(ref.kin)
        at_work = found is not None and found[0] in _WORK_KIN
        person = Ref(
            name=match.group("zname"),
            kin=ref.kin,
            of=ref.of,
            kind=ref.kind,
            works_at=match.group("org") if at_work else "",
        )
        reading.add_ref(person)
        if at_work:
            org = Ref(name=match.group("org"), kind=EntityKind.ORGANISATION)
            reading.add(Triple(person, Predicate.WORKS_AT, "在…工作", org))
    return named, spans


_ZH_OPENING_NAME = rf"{_ZH_NAME_CHAR}{{2,3}}?(?=[{_ZH_STOP}]|{_ZH_AFTER_NAME}|去年|前年|再|又|刚|结婚|离婚)"
_ZH_THEIR_KIN = re.compile(rf"[他她]的?(?={_ZH_KIN})")


def _zh_their_kin(text: str) -> str:
    """ "林晓雯再婚了。她的丈夫是王强" → "…林晓雯的丈夫是王强": 他 / 她 after a statement that opens
    with one person's name."""
    opening = re.match(_ZH_NOT_A_NAME + _ZH_OPENING_NAME, text)
    if opening is None or re.fullmatch(_ZH_SELF, opening.group(0)):
        return text
    pronoun = _ZH_THEIR_KIN.search(text, opening.end())
    if pronoun is None:
        return text
    return text[: pronoun.start()] + _ZH_THEIR_KIN.sub(opening.group(0) + "的", text[pronoun.start() :])


# How a condition's name ends (症, 病, 盲, 癌, 压 …): said after 是 or right after a kin word it is
# no one's name. (Not 炎: it ends given names too, 黄炎.)
_A_CONDITION = re.compile(r"(?:症|病|盲|癌|压|痛|喘|瘫|障碍|过敏|湿疹|癫痫|中风|糖尿)$")


def read_chinese(text: str) -> Reading:
    """A Chinese statement's reading, traditional and Cantonese as Mandarin (`zh_forms`), with the
    names as written."""
    folded = as_mandarin(text, ZH_KIN_WORDS)
    reading = _read_mandarin(folded)
    if folded == text and not any(_A_CONDITION.search(ref.name) for ref in reading.refs if ref.name):
        return reading

    def written(ref: Ref | None) -> Ref | None:
        if ref is None or ref.is_self:
            return ref
        return replace(
            ref,
            # "我女儿是红绿色盲", "我家老大是自闭症": a condition said where a name could be, no name
            name="" if _A_CONDITION.search(ref.name) else as_written(ref.name, folded, text),
            works_at=as_written(ref.works_at, folded, text),
            of=written(ref.of),
        )

    result = Reading()
    for ref in reading.refs:
        result.add_ref(written(ref) or ref)
    for t in reading.triples:
        result.add(replace(t, subject=written(t.subject) or t.subject, object=written(t.object)))
    return result


# "我是小米的妈妈", "我係阿杰嘅爸爸" (folded to Mandarin): the speaker is the named one's parent (see
# `rules.speaker_is_theirs`).
_ZH_I_AM_THEIR = re.compile(rf"我(?:就)?是(?P<zname>{_ZH_NAME})的(?P<zkin>{_ZH_KIN})")


def _read_mandarin(text: str) -> Reading:
    text = _zh_their_kin(text)
    reading = Reading()
    named, at_work = _zh_at_work(text, reading)
    for match in _ZH_NAMED.finditer(text):
        if any(start <= match.start() < end for start, end in at_work):
            continue
        ref = _zh_np(match)
        name = match.group("zname")
        if name in _ZH_PROFESSION_SET:
            continue  # "我姐姐是医生": a role, not a name (below)
        named.add(ref)
        reading.add_ref(Ref(name=name, kin=ref.kin, of=ref.of, kind=ref.kind))
    _zh_has(text, reading, named)
    _zh_named_after(text, reading, named)
    _zh_nicknamed(text, reading, named)
    _zh_next_door(text, reading)
    for match in _ZH_IS_MY.finditer(text):
        ref = _zh_np(match)
        named.add(ref)
        reading.add_ref(Ref(name=match.group("zname"), kin=ref.kin, of=ref.of, kind=ref.kind))

    for match in re.finditer(_ZH_NP, text):
        ref = _zh_np(match)
        if ref not in named and not any(start <= match.start() < end for start, end in at_work):
            reading.add_ref(ref)
    for match in _ZH_WORKS.finditer(text):
        org = Ref(name=match.group("org"), kind=EntityKind.ORGANISATION)
        reading.add(Triple(_zh_subject(match), Predicate.WORKS_AT, "在…工作", org))
    for match in _ZH_LIVES.finditer(text):
        place = Ref(name=match.group("place"), kind=EntityKind.PLACE)
        reading.add(Triple(_zh_subject(match), Predicate.LIVES_IN, "住在", place))
    for match in _ZH_ROLE.finditer(text):
        reading.add(Triple(_zh_subject(match), Predicate.ROLE, "是", value=match.group("role")))
    _zh_weddings(text, reading)
    _endings(text, reading, ZH_ENDINGS)
    _zh_speaker(text, reading)
    return reading


def _zh_speaker(text: str, reading: Reading) -> None:
    for match in _ZH_I_AM_THEIR.finditer(text):
        speaker_is_theirs(reading, match.group("zname"), match.group("zkin"))
