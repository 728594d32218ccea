# ruff: noqa: RUF002 -- Chinese questions are written with full-width punctuation.
"""The Chinese words a question about a slot's topic uses, indexed with a Chinese memory that has
that slot key (docs/languages.md, "Text search in Chinese").

A question and its memory often share no word in Chinese: "我在哪里工作？" asks about
"我在阿里巴巴做数据分析师。", "你该怎么称呼我？" about "叫我阿杰就行。". English questions reach such
memories through the local embedding; for Chinese it is too weak (an English-trained model), so
the words of the topic the write path already recognised (the entry's key: job, preferred_name,
health.allergy.peanut) are indexed beside the statement's own words.

The vocabulary is keyed by the slot vocabulary of the extractor (`memory_core.extraction`), not by
example sentences: a key is read segment by segment ("family.daughter.health.allergy.penicillin":
family, daughter, then health.allergy, or health alone for a condition); a name or item slug
("mia", "peanut") adds nothing. Words are what a question would say, kept few and specific: a
word every topic shared would only make entries alike.
"""

from __future__ import annotations

# Topic of a key's first two segments ("health.allergy") or, failing that, its first → question words.
# Few words each: each one lengthens the entry, which BM25 weighs against its other matches.
_WORK = ("工作", "上班", "公司", "职业", "职位")
_NAME = ("名字", "称呼", "叫")
TOPICS: dict[str, tuple[str, ...]] = {
    # work: where and as what, asked alike ("在哪里工作", "做什么工作", "职位")
    "employer": _WORK,
    "job": _WORK,
    # home
    "home_city": ("住", "住址", "城市"),
    "hometown": ("老家", "家乡", "籍贯"),
    # identity
    "name": _NAME,
    "preferred_name": _NAME,
    "birthday": ("生日", "出生"),
    "marital_status": ("结婚", "婚姻"),
    # health and diet (safety facts); a condition ("health.asthma") only the generic words
    "health": ("健康", "身体"),
    "health.allergy": ("过敏", "忌口", "吃"),
    "health.intolerance": ("不耐受", "忌口", "吃"),
    "health.medication": ("药", "吃药"),
    "health.pregnant": ("怀孕",),
    "health.blood_type": ("血型",),
    "diet": ("饮食", "忌口", "吃"),
    # tastes
    "preference": ("喜欢", "爱好"),
    # people and animals (the relation's own words follow, from RELATIONS / ANIMALS)
    "family": ("家人",),
    "pet": ("宠物", "养"),
    # tracked identifiers (events with a date get no key, so no topic)
    "order": ("订单", "单号"),
    "tracking": ("快递", "包裹", "单号"),
    "flight": ("航班", "飞机", "机票"),
    "booking": ("预订", "预约"),
    "refund": ("退款",),
    "ticket": ("工单",),
    "invoice": ("发票",),
    "membership": ("会员",),
    "appointment": ("预约",),
}
# The second segment of a family. key: who (memory_core.reading.words's relations).
RELATIONS: dict[str, tuple[str, ...]] = {
    "wife": ("妻子", "老婆", "爱人"),
    "husband": ("丈夫", "老公", "爱人"),
    "spouse": ("爱人", "配偶"),
    "son": ("儿子", "孩子"),
    "daughter": ("女儿", "孩子"),
    "child": ("孩子",),
    "mother": ("妈妈", "母亲"),
    "father": ("爸爸", "父亲"),
    "brother": ("兄弟", "哥哥", "弟弟"),
    "sister": ("姐妹", "姐姐", "妹妹"),
    "grandfather": ("爷爷", "外公"),
    "grandmother": ("奶奶", "外婆"),
    "boyfriend": ("男朋友",),
    "girlfriend": ("女朋友",),
    "fiance": ("未婚夫", "未婚妻"),
}
# The second segment of a pet. key: which animal.
ANIMALS: dict[str, tuple[str, ...]] = {"dog": ("狗", "狗狗"), "cat": ("猫", "猫咪")}


def _topic(parts: list[str]) -> list[str]:
    """The words of a key's own topic ("health.allergy.peanut"), after any family / pet scope."""
    if not parts:
        return []
    if len(parts) > 1 and f"{parts[0]}.{parts[1]}" in TOPICS:
        return list(TOPICS[f"{parts[0]}.{parts[1]}"])
    return list(TOPICS.get(parts[0], ()))


def topic_words(key: str) -> list[str]:
    """The Chinese question words of a slot key's topic, in order, each once ([] for no key or a
    key outside the vocabulary)."""
    parts = [part for part in (key or "").lower().split(".") if part]
    if not parts:
        return []
    found: list[str] = []
    scopes = {"family": RELATIONS, "pet": ANIMALS}
    if parts[0] in scopes and len(parts) > 1:
        found += [*TOPICS[parts[0]], *scopes[parts[0]].get(parts[1], ())]
        rest = parts[2:]
        # A name slug may follow ("family.daughter.mia.health…"): the scoped key starts at a topic.
        while rest and rest[0] not in TOPICS:
            rest = rest[1:]
        # Ending at the slug ("pet.cat.dafu", "family.daughter.mia"), the key is their name's slot
        # (名字, 叫; not 称呼, which asks how to address the user).
        found += _topic(rest) if rest or len(parts) == 2 else ["名字", "叫"]
    else:
        found += _topic(parts)
    return list(dict.fromkeys(found))
