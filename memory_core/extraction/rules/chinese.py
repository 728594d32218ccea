"""The Chinese reader of the offline extractor: Chinese statements ("用户对花生过敏。") under the
same English keys as the English rules.

A sentence (traditional characters read as simplified) is split into clauses at commas and
conjunctions; a clause naming a secret, asking, or supposing ("如果…") is left out; a lead ("对了",
"记住", "帮我记一下") and a final particle ("哈", "呀") are dropped. Each clause gets a subject (我,
用户, 本人, a relative "我老婆", or the subject of the clause before: Chinese drops a repeated one)
and its predicate goes through the rules by topic: health (`chinese_health`: allergies, reactions,
intolerances, conditions, diets and foods avoided, medication), work, home, family, names,
preferences. Across clauses: "以前对虾过敏 + 现在已经不过敏了" ends the allergy (kept in its slot,
not pinned, so it supersedes it); "我吃不了花生 + 会过敏" and "我过敏 + 不能吃海鲜" make the food
avoided an allergy. Hedges and plans ("在考虑去杭州工作") give no job or home; a food wanted once
("今天想吃辣的") is no preference; someone else's fact ("我朋友对花生过敏") is not tracked.
"""

from __future__ import annotations

import re

from memory_core.extraction.rules.chinese_health import (
    _ZH_NO_LONGER,
    _allergic,
    _ended,
    _zh_allergy,
    _zh_condition,
    _zh_diet,
    _zh_medication,
)
from memory_core.extraction.rules.facts import USER, Who, _fact, _relative
from memory_core.extraction.rules.secrecy import names_secret
from memory_core.reading.normalise import slug
from memory_core.reading.words import (
    CJK,
    ZH_PETS,
    ZH_RELATIONS,
    ZH_SIMPLIFIED,
    Fact,
    alternation,
)

_ZH_REL_ALT = alternation(list(ZH_RELATIONS) + list(ZH_PETS))
_ZH_OTHERS = r"朋友|同事|同学|老板|邻居|室友|他们|她们|他|她|它|别人|客人"
_ZH_JOBS = alternation(
    "医生|护士|老师|教师|工程师|程序员|设计师|律师|会计|会计师|学生|研究生|大学生|中学生|经理|记者|厨师|司机|"
    "药剂师|分析师|数据分析师|研究员|教授|销售|警察|军人|公务员|作家|演员|画家|歌手|主管|总监|老板|创业者|"
    "自由职业者|店员|服务员|快递员|外卖员|保安|农民|工人|科学家|产品经理|项目经理|顾问|翻译|编辑|摄影师|"
    "建筑师|飞行员|消防员|秘书|实习生|博士生|牙医|兽医|心理咨询师|咨询师|运营|产品|前端|后端"
)
_ZH_PLACES = (
    "北京|上海|广州|深圳|杭州|南京|成都|重庆|武汉|西安|天津|苏州|长沙|郑州|青岛|厦门|大连|沈阳|哈尔滨|"
    "昆明|福州|济南|合肥|宁波|无锡|香港|澳门|台北|东京|大阪|首尔|纽约|伦敦|巴黎|柏林|悉尼|新加坡|洛杉矶|"
    "旧金山|多伦多|温哥华|国外|海外|外地|本地|家|家里|这里|那里|老家|附近|市区|郊区"
)
_ZH_ONE_OFF = re.compile(r"今天|今晚|这次|这一次|现在|这顿|明天|这回|这个|那个|这份")
_ZH_LEAD = re.compile(
    r"^(?:而且|并且|但是|但|不过|可是|另外|同时|还有|其实|对了|顺便说一下|顺便说|哦|嗯|也|还|并|都|所以|因为"
    r"|(?:请|麻烦|麻烦你|你|您)?(?:帮我)?(?:记住|记一下|记下|记着|记好|别忘了|不要忘了|别忘记|不要忘记)(?:了|哦|啊)?)+"
)
# Hedges and plans: "考虑", "打算", "想要": not a fact yet (like "might move to Paris").
# A floor, a room or a spot nearby: "三楼", "302室", "公司附近", "小区里".
_ZH_IN_BUILDING = re.compile(
    r"[\d一二三四五六七八九十两几]+(?:楼|层|号|室)|楼上|楼下|顶楼|一楼|附近|旁边|对面|隔壁|边上|小区|这边|那边|这里|那里"
)
_ZH_HEDGE = re.compile(r"考虑|打算|准备|计划|想要|想去|要不要|可能|也许|或许|说不定")
# Sentence-final particles: "我芒果过敏哈".
_ZH_TAIL = re.compile(r"(?:哈哈+|哈|啊|呀|哦|啦|嘛|哟|喔|呢)$")
# A reaction without its object ("会过敏", "一吃就起疹子"): the foods of the clause before.
_ZH_REACTS = re.compile(
    r"^(?:吃了|一吃|碰了|一碰|喝了|一喝)?(?:就|会|都会|就会|容易)(?:过敏|起疹子|起红疹|长疹子|呼吸困难|喉咙肿)了?$"
)
# "如果我对花生过敏…", "万一…": a hypothetical clause states nothing.
_ZH_HYPOTHETICAL = re.compile(r"如果|要是|假如|假设|万一|的话|是不是|会不会|有没有")
# A clause asking, not stating ("我能吃什么"); a final question mark asks in the last clause only.
_ZH_ASKS = re.compile(r"什么(?!都|也)|怎么|哪|谁|几|多少|是否|吗$|呢$")
# The "…" of "叫我…" ends before "就行", "吧", "就好".
_ZH_NAME_TAIL = re.compile(r"(?:就行了?|就好了?|就可以了?|即可|好了|吧|哈|啊|呀|哦|就成)$")
_ZH_SUBJECT = re.compile(
    rf"^(?P<subj>用户|该用户|本人|(?:我们|我)家的?(?={_ZH_REL_ALT})|我们|我)(?P<of>的)?(?:(?P<rel>{_ZH_REL_ALT}))?(?P<rest>.*)$"
)


# A clause that ends by naming a new animal or relative of the user's ("养了一只橘猫", "有个女儿").
_ZH_INTRODUCES = re.compile(
    rf"^(?:养|有|生)了?(?:[一两二三几]?(?:只|条|个|位|头))?[{CJK}]{{0,3}}?(?P<rel>{_ZH_REL_ALT})$"
)


# "记住…", "帮我记一下…", "别忘了…": an explicit request to remember what follows.
ZH_REMEMBER = re.compile(
    r"^(?:(?:对了|另外|还有|哦|嗯|好的|好)[\uff0c,\s]*)?(?:请|麻烦|麻烦你|你|您|唔该)?(?:要|一定要)?(?:帮我|给我|同我)?"
    r"(?:记住|记一下|记下|记下来|记着|记好|记低|记实|别忘了|不要忘了|别忘记|不要忘记|唔好忘记|"
    r"(?<=[请要])记得(?!.*[吗嘛吧?\uff1f]\s*$))(?:了|哦|啊|一下|嚟|啦)?"
    r"(?:(?:这个|这些|这件事|这点|以下|下面)(?:的|几点)?(?=\s*[\uff1a:]))?[\uff1a:\uff0c,\s]*"
    # "记住这个地方" (remember this place) names no statement to keep.
    r"(?!(?:这|那)(?:个|里|儿|些|件事|点|样)[^\uff1a:\u3002]{0,6}[\u3002!?\uff01\uff1f]?$)(?P<what>\S.*)$"
)


def zh_statement(text: str) -> str:
    """A Chinese first-person text as a statement about the user ("我女儿下周三生日" →
    "用户的女儿下周三生日。"), for an explicit "记住…" no finer rule reads."""
    text = text.strip()
    # The kin words are found on the simplified forms, so "我女兒" is "用户的女兒" as "我女儿" is
    # "用户的女儿" (the table maps one character to one: the places are the same).
    for kin in reversed(list(re.finditer(rf"我(?:的)?(?={_ZH_REL_ALT})", text.translate(ZH_SIMPLIFIED)))):
        text = f"{text[: kin.start()]}用户的{text[kin.end() :]}"
    text = re.sub(r"(?:我们|我們|我哋)(?:家|屋企)?", "用户一家", text)
    text = re.sub(r"我", "用户", text).rstrip("。\uff01!.\uff1f? ")
    return f"{text}。" if text else ""


def _zh_normalise(text: str) -> str:
    """Traditional characters read as simplified, an English "I am" before Chinese as 我."""
    text = text.strip().translate(ZH_SIMPLIFIED)
    # English frames around a Chinese object: "I'm allergic to 花生", "I live in 上海".
    zh = r"([\u4e00-\u9fff][\u4e00-\u9fff、和]*)"
    text = re.sub(rf"(?i)\ballergic\s+to\s+{zh}", r"对\1过敏", text)
    text = re.sub(rf"(?i)\blive\s+in\s+{zh}", r"住在\1", text)
    text = re.sub(rf"(?i)\bwork\s+(?:at|for)\s+{zh}", r"在\1工作", text)
    return re.sub(r"(?i)^(?:i\s+am|i'm|i)\s*(?=[\u4e00-\u9fff])", "我", text)


def _states(raw: str, clause: str, *, asks: bool) -> bool:
    """Whether a clause states something we may keep: not empty, no secret, no question, no hypothesis."""
    if not clause or asks or _ZH_HYPOTHETICAL.search(clause) or _ZH_ASKS.search(clause):
        return False
    return not names_secret(raw)


def _zh_call_me(clause: str) -> list[Fact]:
    """ "叫我小王就行", "你可以称呼我阿杰": the name the user wants to be called."""
    call_me = re.match(
        rf"^(?:以后|今后|之后|从现在起)?(?:你|您|大家|朋友们|朋友|别人|他们|家人|同事们?)?(?:都|也)?"
        rf"(?:可以|就|请|直接)?(?:叫|称呼|喊)我(?![们們哋地])\s*(?P<name>[{CJK}A-Za-z]{{1,8}})$",
        _ZH_NAME_TAIL.sub("", clause),
    )
    if call_me is None:
        return []
    content = f"用户希望被称为{call_me.group('name')}。"
    return [_fact(USER, "preferred_name", content, "profile", importance=0.8)]


def _read_chinese(sentence: str) -> list[Fact]:
    found: list[Fact] = []
    text = _zh_normalise(sentence).rstrip("。\uff01!.")
    asks = bool(re.search(r"[?\uff1f]\s*$", text))
    text = text.rstrip("?\uff1f ")
    previous: Who | None = None
    reacted = False  # an allergy said without its object: the foods avoided around it are allergens
    clauses = [
        c.strip()
        for c in re.split(
            r"[\uff0c,\uff1b;\uff1a:]|(?:而且|并且|但是|不过(?!敏)|可是|另外|同时|所以|因为)"
            r"|\s+(?i:but|and|so|because|though)\s+"
            r"|(?<=.)(?=也(?:不|没|是|有|对))",
            text,
        )
        if c and c.strip()
    ]
    for index, raw in enumerate(clauses):
        clause = _ZH_TAIL.sub("", _ZH_LEAD.sub("", raw))
        if _ZH_REACTS.match(clause) or re.fullmatch(r"(?:我|用户)?(?:有点|很|会)?过敏了?", clause):
            # "我吃不了花生 / 会过敏", "我过敏 / 不能吃海鲜": what the user avoids, they are allergic to.
            found, reacted = [_allergic(fact) for fact in found], True
            continue
        if not _states(raw, clause, asks=asks and index == len(clauses) - 1):
            continue
        if _ZH_NO_LONGER.match(clause):
            found = [_ended(fact) if ".allergy." in f".{fact.get('key', '')}" else fact for fact in found]
            continue
        facts = _zh_identifiers(clause) or _zh_call_me(clause)
        if facts:
            found += facts
            continue
        match = _ZH_SUBJECT.match(clause)
        if match:
            rest = match.group("rest")
            if re.match(rf"^(?:{_ZH_OTHERS})", rest):
                previous = None
                continue
            who = _relative(match.group("rel"), zh=match.group("rel")) if match.group("rel") else USER
            possessive = bool(match.group("of")) and not match.group("rel")
        elif previous is not None and (bare := re.match(rf"^(?P<rel>{_ZH_REL_ALT})(?P<rest>.+)$", clause)):
            # "my son is allergic to peanuts, daughter to milk": the second relative is the user's too.
            who, rest, possessive = (
                _relative(bare.group("rel"), zh=bare.group("rel")),
                bare.group("rest"),
                False,
            )
        elif previous is not None:
            who, rest, possessive = previous, clause, False
        else:
            who, rest, possessive = USER, clause, False
        previous = who
        facts = _zh_predicate(who, rest, possessive)
        found += [_allergic(fact) for fact in facts] if reacted else facts
        previous = _next_subject(who, rest)
    return found


# Someone or something a clause introduced that the vocabulary has no word for ("养了一只柯基",
# "陈敏有个女儿"): the clauses after it without a subject are about them, and give no fact.
SOMEONE = Who(label="Someone", zh="某人", key="someone")
_ZH_INTRODUCES_ANY = re.compile(
    r"(?:养|有|生|收养|领养|捡|买|買|开|開|租|养过)了?[一两二三几\d]*"
    rf"(?:只|条|个|位|头|匹|辆|台|部|家|间|套|隻|條|個|頭|輛|間)[{CJK}A-Za-z]{{0,6}}$"
)


def _next_subject(who: Who, predicate: str) -> Who:
    """Whom the next clause without a subject is about: the animal or relative this one just
    named ("我养了一只橘猫 / 叫大福", "我有个女儿 / 对花生过敏": not the user, whose name is not
    "大福"), someone unnamed when the clause introduced what the vocabulary does not know ("我养了一只
    柯基 / 叫豆豆", "陈敏有个女儿 / 叫小雨"), else this clause's subject."""
    introduced = _ZH_INTRODUCES.search(predicate)
    if introduced and who.user:
        return _relative(introduced.group("rel"), zh=introduced.group("rel"))
    if who.user and _ZH_INTRODUCES_ANY.search(predicate):
        return SOMEONE
    return who


def _zh_predicate(who: Who, p: str, possessive: bool) -> list[Fact]:
    if who is SOMEONE:
        return []  # about what the clause before introduced: nothing the user said of themself
    if possessive:
        match = re.match(rf"^名字(?:是|叫)(?P<name>[{CJK}A-Za-z ]{{1,12}})$", p)
        if match:
            return [_fact(USER, "name", f"用户的名字是{match.group('name')}。", "profile", importance=0.8)]
        return []
    # Each rule answers None when it does not apply; a list, even empty, ends the reading.
    for rule in (
        _zh_allergy,
        _zh_condition,
        _zh_diet,
        _zh_medication,
        _zh_work,
        _zh_home,
        _zh_family,
        _zh_name,
        _zh_preference,
    ):
        found = rule(who, p)
        if found is not None:
            return found
    return []


def _zh_work(who: Who, p: str) -> list[Fact] | None:
    """Employer and job: "在腾讯工作", "在字节跳动做产品经理", "是医生"."""
    if _ZH_HEDGE.search(p):
        return []  # "在考虑去杭州工作": not where the user works
    p = re.sub(r"^(?:上个月|上周|去年|今年|最近|前段时间|前不久|刚刚|刚|已经|现在|目前|如今|也)+", "", p)
    match = re.match(
        rf"^(?:现在|目前|正在)?在(?P<org>.+?)(?:做|当|担任)(?P<job>[{CJK}]{{0,6}}?(?:{_ZH_JOBS}))$", p
    )
    if match and re.match(r"^(?:一家|一个|一间|某|家)", match.group("org")):
        # "在一家外企当会计": the role; the employer is not named.
        return [_fact(who, "job", f"{who.zh}是{match.group('job')}。", "profile")]
    if match and not re.fullmatch(rf"(?:{_ZH_PLACES})|.+[市省区县国]", match.group("org")):
        # "在字节跳动做产品经理": the employer and the role, each in its own slot.
        return [
            _fact(who, "employer", f"{who.zh}在{match.group('org')}工作。", "profile"),
            _fact(who, "job", f"{who.zh}是{match.group('job')}。", "profile"),
        ]
    match = re.match(r"^(?:现在|目前|正在)?在(?P<org>.+?)(?:工作|上班|任职|就职)(?:了)?$", p) or re.match(
        r"^(?:已经|刚)?(?:从.+?)?(?:跳槽到了?|跳槽去了?|加入了?|入职了?)(?P<org>.+?)(?:工作|上班)?$", p
    )
    if match:
        org = match.group("org")
        if re.search(r"一家|一间|一个|某", org):
            return []  # "在杭州的一家银行上班": no employer named
        if not re.fullmatch(rf"(?:{_ZH_PLACES})|.+[市省区县国]", org):
            return [_fact(who, "employer", f"{who.zh}在{org}工作。", "profile", importance=0.7)]
        return []
    match = re.match(rf"^是(?P<art>一名|一个|一位|个|名)?(?P<job>[{CJK}]{{0,6}}?(?:{_ZH_JOBS}))$", p)
    if match:
        return [_fact(who, "job", f"{who.zh}{p}。", "profile", importance=0.7)]
    match = (
        re.match(rf"^(?:是)?(?:做|干|搞)(?P<job>[{CJK}]{{0,6}}?(?:{_ZH_JOBS}))(?:的|工作的|这行的)$", p)
        # "当医生", "做律师", "担任经理": the role said with its verb.
        or re.match(
            rf"^(?:在)?(?:当|做|担任|干)(?:了)?(?:一名|一个|一位)?(?P<job>[{CJK}]{{0,6}}?(?:{_ZH_JOBS}))$", p
        )
        # "(的)工作是厨师", "职业是护士".
        or re.match(rf"^的?(?:工作|职业)是(?:一名|一个|一位)?(?P<job>[{CJK}]{{0,6}}?(?:{_ZH_JOBS}))$", p)
    )
    if match:
        return [_fact(who, "job", f"{who.zh}是{match.group('job')}。", "profile", importance=0.7)]
    if re.match(r"^(?:在.{1,10}?)?(?:教书|任教)$", p):
        return [_fact(who, "job", f"{who.zh}是老师。", "profile", importance=0.7)]
    return None


def _zh_home(who: Who, p: str) -> list[Fact] | None:
    """Home: "住在上海", "搬到了杭州", "在北京海淀住"; not 住户 (residents), 住客, 住址, 住院…"""
    if _ZH_HEDGE.search(p):
        return []  # "在想要不要搬到上海", "打算住在杭州": not where the user lives
    match = re.match(
        r"^(?:现在|目前|一直|常年)?(?:家)?住(?!院|过|了|得|着|宿|酒店|不|的|在哪|户|客|址|房|手|口)(?:在)?(?P<place>.+?)(?:了)?$",
        p,
    )
    match = match or re.match(r"^(?:现在|目前)?家在(?P<place>.+?)$", p)
    # "现居成都", "目前定居在杭州", "居住於台北" (traditional too).
    settled = r"(?:现居|現居|居住在|居住於|居住于|定居在|定居于|定居於)"
    match = match or re.match(rf"^(?:现在|目前|一直)?{settled}(?P<place>.{{2,12}}?)(?:了)?$", p)
    match = match or re.match(r"^(?:现在|目前|一直)?在(?P<place>.{2,12}?)(?:住|居住|定居|安家)(?:了)?$", p)
    if match and _ZH_IN_BUILDING.search(match.group("place")):
        return []  # "我家在三楼", "住在公司附近": where in a building or a street, not a city
    if match:
        return [_fact(who, "home_city", f"{who.zh}住在{match.group('place')}。", "profile", importance=0.7)]
    # "上个月搬回成都了", "去年搬到了杭州": when it happened is no part of the place.
    moved = re.sub(r"^(?:上个月|上周|去年|今年|最近|前段时间|前不久|刚刚|刚|已经|又)+", "", p)
    match = re.match(r"^搬(?:家)?(?:到|回|回到)了?(?P<place>.+?)(?:了|去了|来了)?$", moved)
    if match:
        return [_fact(who, "home_city", f"{who.zh}搬到了{match.group('place')}。", "profile", importance=0.7)]
    return None


def _zh_family(who: Who, p: str) -> list[Fact] | None:
    """Children and siblings: "有一个儿子", "有两个女儿" (no slot: a count may change)."""
    match = re.match(rf"^有(?P<n>[一二两三四五六\d]?(?:个|位)?)(?P<rel>{_ZH_REL_ALT})$", p)
    if match and who.user:
        content = f"用户有{match.group('n')}{match.group('rel')}。"
        return [_fact(USER, "", content, "relationship", importance=0.6)]
    return None


def _zh_name(who: Who, p: str) -> list[Fact] | None:
    """Names: "叫小明", a relative's "叫Leo", "希望被称为小李"."""
    match = re.match(rf"^叫\s*(?P<name>[{CJK}]{{1,4}}|[A-Z][a-z]{{1,12}})$", p)
    if match:
        name = match.group("name")
        if who.user:
            return [_fact(USER, "name", f"用户的名字是{name}。", "profile", importance=0.8)]
        named = _relative(who.word, name, zh=who.word)
        return [_fact(USER, named.key, f"{who.zh}叫{name}。", "relationship", importance=0.6)]
    match = re.match(rf"^希望被(?:称为|叫做|叫)(?P<name>[{CJK}A-Za-z]{{1,8}})$", p)
    if match and who.user:
        return [
            _fact(USER, "preferred_name", f"用户希望被称为{match.group('name')}。", "profile", importance=0.8)
        ]
    return None


def _zh_preference(who: Who, p: str) -> list[Fact] | None:
    """A standing taste ("喜欢辣的"); said of this once ("今天…", "这次…"), none."""
    match = re.match(
        r"^(?P<adv>(?:很|非常|最|更|特别|比较|也|还|都|一直|平时|向来|其实|真的|超|挺))*(?P<v>不太喜欢|不怎么喜欢|不喜欢|喜欢|偏好|偏爱|更喜欢|讨厌|受不了|爱)"
        r"(?P<what>.+)$",
        p,
    )
    if (
        match
        and who.user
        and not _ZH_ONE_OFF.search(p)
        and not re.match(r"^死?(?:你|他|她|它|这|那)", match.group("what"))
    ):
        key = f"preference.{slug(match.group('what'), words=3)}"
        return [_fact(USER, key, f"用户{p}。", "preference", importance=0.5)]
    return None


_ZH_ID_KINDS = {
    "订单": "order",
    "工单": "ticket",
    "案件": "case",
    "案例": "case",
    "预订": "booking",
    "预约": "booking",
    "快递": "tracking",
    "运单": "tracking",
    "物流": "tracking",
    "退款": "refund",
    "发票": "invoice",
    "航班": "flight",
    "保单": "policy",
}
_ZH_IDENTIFIER = re.compile(
    rf"(?P<kind>{alternation(list(_ZH_ID_KINDS))})(?:号码|编号|单号|号)?(?:是|为|\uff1a|:)?\s*"
    r"(?P<id>(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{3,})"
)


def _zh_identifiers(clause: str) -> list[Fact]:
    match = _ZH_IDENTIFIER.search(clause)
    if match is None:
        return []
    before = clause[: match.start()]
    if before not in ("", "我的", "我们的", "用户的", "该用户的"):
        return []
    ident = match.group("id")
    key = f"{_ZH_ID_KINDS[match.group('kind')]}.{re.sub(r'[^a-z0-9]+', '_', ident.lower()).strip('_')}"
    return [
        _fact(USER, key, f"用户的{clause[match.start() :]}。", "task_state", importance=0.6, type_="episodic")
    ]
