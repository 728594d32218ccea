"""The Chinese reader's health rules: allergies and reactions, intolerances, conditions, diets and
foods avoided, medication. Each rule answers None when it does not apply (see `chinese`)."""

from __future__ import annotations

import re

from memory_core.extraction.rules.facts import Who, _fact, _safety
from memory_core.reading.normalise import slug
from memory_core.reading.words import CJK, ZH_TERMS, Fact, alternation, word_set

_ZH_CONDITION_KEYS = word_set(
    "diabetic hypertension hypotension asthma heart_condition epilepsy celiac gout migraine depression "
    "anxiety kidney_disease anemia arthritis hypothyroidism hyperthyroidism high_cholesterol cancer "
    "liver_disease hepatitis eczema insomnia hypoglycemia stomach_ulcer kidney_stone parkinson dementia "
    "allergic_rhinitis"
)
_ZH_DRUG_KEYS = word_set(
    "metformin insulin warfarin aspirin ibuprofen statin steroid penicillin epipen painkiller antibiotic "
    "levothyroxine clopidogrel atorvastatin budesonide salbutamol inhaler melatonin methotrexate "
    "dapagliflozin amlodipine"
)
_ZH_FOOD_KEYS = word_set(
    "peanut nut seafood shrimp shellfish crab milk egg gluten wheat soy mango alcohol sesame fish dairy pork "
    "beef lamb meat spicy_food chili coffee sugar cilantro onion garlic raw_fish offal chicken kiwi peach "
    "pineapple strawberry walnut cashew almond honey buckwheat crayfish lactose red_meat"
)
_ZH_CONDITIONS = alternation([k for k, v in ZH_TERMS.items() if v in _ZH_CONDITION_KEYS])
_ZH_DRUGS = alternation([k for k, v in ZH_TERMS.items() if k.endswith("药") or v in _ZH_DRUG_KEYS])
_ZH_FOODS = alternation([k for k, v in ZH_TERMS.items() if v in _ZH_FOOD_KEYS])

# "以前对虾过敏": an ended fact, like "used to be allergic".
_ZH_PAST = re.compile(r"^(?:以前|之前|过去|小时候|曾经|原来|早年)(?:是|也)?")
# "现在已经不过敏了" after "以前对虾过敏": ends the allergies named earlier in the sentence.
_ZH_NO_LONGER = re.compile(r"^(?:现在|目前|后来|如今)?(?:已经|早就|早已)?(?:不再|不|没有|没)过敏了?$")
# Adverbs between the subject and "对…过敏": "从小就对芒果过敏", "有点对花粉过敏".
_ZH_ADVERBS = (
    r"(?:从小就?|小时候就|一直都?|有点儿?|有些|特别|非常|严重|天生就?|本来就|其实|好像|真的|都|也|还|现在"
    r"|这个人|本身|自己)*"
)


def _allergic(fact: Fact) -> Fact:
    """A food avoided ("吃不了花生") that the next clause says the user reacts to: an allergy."""
    if "zh_item" not in fact:
        return fact
    key = fact["key"].replace("diet.avoid.", "health.allergy.")
    return {**fact, "key": key, "content": f"{fact['zh_who']}对{fact['zh_item']}过敏。", "importance": 0.95}


def _ended(fact: Fact) -> Fact:
    """ "以前对虾过敏 / 现在已经不过敏了": the allergy, ended (kept in its slot, not pinned)."""
    if not fact.get("pinned"):
        return fact
    content = re.sub(r"(?:严重|非常|很|有点|轻微|特别)?过敏。$", "不再过敏。", fact["content"])
    return {**fact, "content": content, "pinned": False, "importance": 0.8}


def _zh_key(term: str) -> str:
    return ZH_TERMS.get(term) or slug(term, words=3)


def _zh_items(text: str) -> list[str]:
    return [item for item in re.split(r"和|与|及|以及|、|跟|还有|,|\uff0c", text) if item]


# Not allergens, whatever the joke says ("我对加班过敏", like "allergic to Mondays").
_ZH_NOT_ALLERGENS = re.compile(
    r"加班|上班|工作|开会|会议|周一|星期一|老板|领导|学习|考试|作业|数学|早起|运动|健身|人|人类|社交|应酬|"
    r"催婚|相亲|内卷|熬夜|废话|鸡汤|广告|营销|套路|PPT|ppt|KPI|kpi"
)
_ZH_REACTION = (
    r"过敏|打喷嚏|起疹子|起红疹|长疹子|出疹子|起荨麻疹|起风团|呼吸困难|喉咙肿|嘴巴肿|浑身痒|全身发痒|休克"
)
_ZH_TERM_ALT = alternation(list(ZH_TERMS))


def _zh_allergy(who: Who, p: str) -> list[Fact] | None:
    """Allergies: "对花生过敏", "从小就对芒果过敏", "不再对虾过敏了", "花生过敏", "一吃虾就过敏",
    "以前对虾过敏" (ended)."""
    past = _ZH_PAST.match(p)
    p = re.sub(rf"^{_ZH_ADVERBS}", "", p[past.end() :] if past else p)
    match = re.match(
        rf"^(?P<al>已经|早就|早已)?(?P<n1>不再|不|没有|从不|从来不|并不)?{_ZH_ADVERBS}对(?P<what>.+?)(?:都|也)?"
        r"(?P<a2>已经|早就)?(?P<n2>不再|不|没有|没)?(?P<deg>严重|非常|很|有点|轻微|特别|比较)?(?:有)?过敏(?:反应)?(?P<le>了)?"
        r"(?:得?(?:很|挺|非常|特别|比较)?(?:厉害|严重)的?)?$",
        p,
    )
    if match is None:
        match = re.match(
            rf"^(?P<al>)(?P<n1>)(?P<what>(?:{_ZH_TERM_ALT})(?:[和与及、](?:{_ZH_TERM_ALT}))*)(?:都|也)?(?P<a2>已经)?"
            r"(?P<n2>不再|不)?(?P<deg>)过敏(?P<le>了)?$",
            p,
        )
    if match is None:
        # "有严重的花生过敏", "是花生过敏体质", "有青霉素过敏史"
        match = re.match(
            rf"^(?:有|是)(?P<al>)(?P<n1>)(?P<deg>严重|轻微|一点)?(?:的)?(?P<what>[{CJK}A-Za-z、和]{{1,12}}?)(?P<a2>)(?P<n2>)"
            r"过敏(?:体质|症|史|反应)?(?P<le>)$",
            p,
        )
    if match is None:
        # "一吃虾就过敏", "吃了芒果会过敏", "碰到猫毛就起疹子", "芒果会让我过敏": a reaction to something.
        match = re.match(
            rf"^(?P<al>)(?P<n1>)(?:一|只要|每次)?(?:吃|喝|碰|接触|闻|用)(?:了|到)?(?P<what>[{CJK}A-Za-z]{{1,8}}?)"
            rf"(?P<a2>)(?P<n2>)(?P<deg>)(?:就|会|都会|就会|都|也会)+(?:{_ZH_REACTION})(?P<le>了)?$",
            p,
        ) or re.match(
            rf"^(?P<al>)(?P<n1>)(?P<what>{_ZH_TERM_ALT})(?P<a2>)(?P<n2>)(?P<deg>)(?:会|都会|就会)?(?:让|使|害)我"
            rf"(?:{_ZH_REACTION})(?P<le>了)?$",
            p,
        )
    if match is None:
        return None
    negation = match.group("n1") or match.group("n2")
    already = match.group("al") or match.group("a2")
    ended = bool(past) or bool(negation and (match.group("le") or negation == "不再" or already))
    found = []
    for item in _zh_items(match.group("what")):
        item = item.strip()
        stem = re.sub(
            r"(?:类药物|类药|类食物|类的东西|类)$", "", re.sub(r"^(?:所有|各种|一切|任何)的?", "", item)
        )
        item = stem if stem in ZH_TERMS else item
        if (
            not item
            or _ZH_NOT_ALLERGENS.fullmatch(item)
            or re.fullmatch(
                r"任何东西|任何|什么|东西|任何食物|[这那你他她它].*|一点.*|一些|一口|少量|点|多了?", item
            )
        ):
            continue
        verb = "不再过敏" if ended else ("不过敏" if negation else f"{match.group('deg') or ''}过敏")
        key = f"health.allergy.{_zh_key(item)}"
        denial = "ended" if ended else ("not" if negation else "")
        found.append(_safety(who, key, f"{who.zh}对{item}{verb}。", negation=denial))
    return found


def _zh_condition(who: Who, p: str) -> list[Fact] | None:
    """Intolerances and conditions: "乳糖不耐受", "有糖尿病", "是哮喘患者", "怀孕了"."""
    match = re.match(
        rf"^(?:有|是)?(?:轻微的?|严重的?|一点|点)?(?:对)?(?P<what>[{CJK}]{{1,4}}?)(?:都|也)?不耐受?(?:症)?$",
        p,
    )
    if match:
        key = f"health.intolerance.{_zh_key(match.group('what'))}"
        return [_safety(who, key, f"{who.zh}{match.group('what')}不耐受。")]
    match = re.match(
        r"^(?:(?P<neg>没有|没|并没有|从来没有|从没)(?:患有|得过|得|有)?|(?:一直|也|还|从小就?|早年)?"
        r"(?P<verb>患有|有|得了|得过|确诊了?|被诊断出|查出了?|查出来))(?:轻微的?|严重的?|轻度的?|重度的?|一点)?"
        r"(?P<conds>.+?)(?:史|了)?$",
        p,
    )
    items = _zh_items(match.group("conds")) if match else []
    if (
        match
        and items
        and all(re.fullmatch(rf"(?:{_ZH_CONDITIONS})|[{CJK}]{{1,6}}[病症]", item) for item in items)
    ):
        verb = "没有" if match.group("neg") else match.group("verb")
        return [
            _safety(
                who,
                f"health.{_zh_key(item)}",
                f"{who.zh}{verb}{item}。",
                negation="not" if match.group("neg") else "",
            )
            for item in items
        ]
    match = re.match(
        rf"^是(?:一名|一个|一位)?(?P<cond>(?:{_ZH_CONDITIONS})|[{CJK}]{{1,6}}[病症])(?:患者|病人)$", p
    )
    if match:
        return [_safety(who, f"health.{_zh_key(match.group('cond'))}", f"{who.zh}{p}。")]
    if re.match(r"^(?:已经)?怀孕(?:了|[一二三四五六七八九十两\d]+个?(?:月|周|星期)了?)?$", p):
        return [_safety(who, "health.pregnant", f"{who.zh}怀孕了。")]
    return None


def _zh_diet(who: Who, p: str) -> list[Fact] | None:
    """Diets and foods avoided: "吃素", "是素食者", "不吃猪肉"."""
    if re.match(r"^(?:已经)?(?:不再|不)吃素了?$", p):
        return [_fact(who, "diet", f"{who.zh}不再吃素。", "safety", importance=0.8)]
    if re.match(r"^(?:是)?(?:一名|一个|一位)?(?:素食者|素食主义者|纯素食者|纯素主义者)$", p) or re.match(
        r"^(?:只|一直|平时)?吃(?:素|清真|纯素)(?:食)?$", p
    ):
        text = p if p.startswith(("是", "只", "一直", "平时", "吃")) else "是" + p
        return [_fact(who, "diet", f"{who.zh}{text}。", "safety", importance=0.9, pinned=True)]
    topic = re.match(
        rf"^(?P<what>{_ZH_FOODS})(?:我|用户)?(?:是)?(?:绝对|完全|一点都|从来|向来)?(?P<m>不能|不可以|不敢|不会|不|从不)"
        r"(?P<v>吃|喝|碰)(?:的)?$",
        p,
    )
    if topic:
        # "花生我是绝对不能吃的": the food first.
        what = topic.group("what")
        content = f"{who.zh}{topic.group('m')}{topic.group('v')}{what}。"
        fact = _safety(who, f"diet.avoid.{_zh_key(what)}", content)
        return [{**fact, "zh_who": who.zh, "zh_item": what}]
    match = re.match(
        r"^(?:已经|早就|一直|从来|平时|向来|完全|一点都|一点也|都|也)?(?:(?P<m>从不|从来不|不能|不可以|不敢|不会|不再|不|忌)"
        r"(?P<v>吃|喝)|(?P<m2>忌口|戒了?|碰不了|不能碰|不碰|吃不了|喝不了|吃不得))(?P<what>.+?)(?:了|的东西|类|类的东西)?$",
        p,
    )
    if match:
        found = []
        for item in _zh_items(match.group("what")):
            item = re.sub(r"^(?:任何|所有|一切|各种)的?", "", item)
            if re.fullmatch(_ZH_FOODS, item):
                key = f"diet.avoid.{_zh_key(item)}"
                verb = match.group("m2") or match.group("m") + match.group("v")
                # zh_who / zh_item: not Candidate fields; a later "会过敏" makes this an allergy.
                found.append(
                    {**_safety(who, key, f"{who.zh}{verb}{item}。"), "zh_who": who.zh, "zh_item": item}
                )
        return found
    return None


def _zh_medication(who: Who, p: str) -> list[Fact] | None:
    """Medications: "每天服用二甲双胍"."""
    match = re.match(
        r"^(?:(?:每天|每日|每周|每晚|每早|早上|晚上|中午|一直|正在|目前|现在|长期|按时|定期|早晚|饭前|饭后|睡前)都?)*"
        r"(?:要|得|需要|必须)?"
        r"(?:在)?(?:服用|吃|打|注射|用|带着|随身带着?)(?P<what>.+)$",
        p,
    )
    if match:
        drug = re.search(rf"{_ZH_DRUGS}|[{CJK}]+药", match.group("what"))
        if drug:
            return [_safety(who, f"health.medication.{_zh_key(drug.group(0))}", f"{who.zh}{p}。")]
    return None
