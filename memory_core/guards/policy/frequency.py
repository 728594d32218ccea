"""A check made less frequent: a control relaxed by its schedule, with no relaxing word.

"From April the low-use sites go to quarterly" (inspected monthly before), "the skin-type check
only needs doing every fifth session rather than every time", "QC抽检由十个抽一个改成五十个抽一个",
"收銀機啲數唔使晚晚對, 一個禮拜對一次得啦": nothing is skipped, waived or approved away, yet the
control runs less often. Read here as: a word of checking (inspect, audit, test, count,
reconcile, 检查, 抽检, 核对…), two or more frequencies, and the one said to be the new one (after
"to", "go to", "改成", or the one not negated beside "rather than", "instead of", "唔使", "不用")
less frequent than one said before or set aside; or a change to checking one in N alone; or, in
Chinese, a check suspended for a while ("先暂停巡检", "唔使点数住"). A
question or a proposal is no decision: it is left to the models. A frequency alone, or a schedule
made more frequent, says nothing."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Checking words, English and Chinese (simplified: the caller reads traditional as simplified).
_CHECK = re.compile(
    r"\b(?:check\w*|inspect\w*|audit\w*|test\w*|verif\w*|review\w*|sampl\w*|swab\w*|calibrat\w*|count\w*"
    r"|reconcil\w*|qc|qa|patrol\w*|monitor\w*|screen\w*|sign-?offs?|walk-?rounds?|spot[- ]checks?"
    r"|head-?counts?|roll[- ]?calls?|records?|recording|logs?|logging|toolbox\s+talks?|briefings?)\b"
    r"|检查|检测|检验|抽检|抽测|抽查|抽样|核对|对账|对数|盘点|审核|审计|巡检|巡查|复核|点检|点数|点算|点货|测试|查验|校准"
    r"|记录|纪录|登记|点名|对",
    re.I,
)
_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "twelve": 12, "twenty": 20, "fifty": 50, "hundred": 100, "other": 2,
    "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "tenth": 10,
    "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
    "二十": 20, "五十": 50, "一百": 100,
}  # fmt: skip
_N = r"(\d+|[a-z]+|[一两二三四五六七八九十百]+)"
_ZH_UNIT = "[个台件单批次]"
_UNIT = r"(?:time|session|visit|batch|load|run|unit|one|job|order|shift)"
_DAYS = {
    "day": 1,
    "night": 1,
    "shift": 0.5,
    "week": 7,
    "fortnight": 14,
    "month": 30,
    "quarter": 91,
    "year": 365,
}
# (pattern, how many times per day it says, from its groups)
_RATES: list[tuple[re.Pattern[str], object]] = [
    (re.compile(rf"\b(?:every|each)\s+(?:single\s+)?{_UNIT}\b"), 1000.0),
    # all of those checked: "spot-checked on 1 in 10 runners instead of everyone"
    (re.compile(r"\b(?:everyone|everybody|every\s+single\s+one|all\s+of\s+them)\b|所有人|人人|个个"), 1000.0),
    (re.compile(rf"\bevery\s+{_N}(?:st|nd|rd|th)?\s+{_UNIT}s?\b"), "per-n"),
    (re.compile(rf"\b(?:1|one)\s+(?:in|out of)\s+(?:every\s+)?{_N}\b"), "per-n"),
    (re.compile(r"\b(?:daily|nightly|(?:every|each)\s+(?:day|night|morning|evening)|once\s+a\s+day)\b"), 1.0),
    (re.compile(r"\b(?:twice\s+a\s+day)\b"), 2.0),
    (re.compile(r"\b(?:weekly|every\s+week|once\s+a\s+week|each\s+week)\b"), 1 / 7),
    (re.compile(r"\b(?:twice\s+a\s+week)\b"), 2 / 7),
    # "every Friday", "on Sundays": once a week.
    (re.compile(r"\b(?:every|each|on)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\bevery\s+weekend\b"
                r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days\s+only\b"),
     1 / 7),
    (re.compile(r"\bevery\s+(?:other|second)\s+(day|night|week|month)\b"), "every-other"),
    (re.compile(r"\b(?:fortnightly|every\s+(?:two|2|other)\s+weeks)\b"), 1 / 14),
    (re.compile(r"\b(?:monthly|every\s+month|once\s+a\s+month|each\s+month)\b"
                r"|\b(?:the\s+)?(?:first|last)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:\s+of\s+\w+\s+month)?\b"),
     1 / 30),
    (re.compile(r"\b(?:quarterly|every\s+quarter|every\s+(?:three|3)\s+months)\b"), 1 / 91),
    (re.compile(r"\b(?:annually|yearly|every\s+year|once\s+a\s+year)\b"), 1 / 365),
    (re.compile(rf"\bevery\s+{_N}\s+(day|night|week|month|year)s\b"), "per-n-days"),
    # 每个 alone is "each one" (每个客人都查); 每个月, 每个礼拜 are periods, read below.
    (re.compile(r"每次|每回|每一次|每单|每台|每个(?!月|礼拜|星期|季)|每件|每批"), 1000.0),
    (re.compile(rf"[每一]?([一两二三四五六七八九十百]+|\d+){_ZH_UNIT}?抽[检测查]?[一1]{_ZH_UNIT}?"), "per-n"),
    (re.compile(r"每天|天天|每日|日日|每晚|晚晚|夜夜|每天晚上|一天一次"), 1.0),
    (re.compile(r"每周|每星期|每个?礼拜|一个?礼拜(?:\w{0,3})?一次|一周(?:\w{0,3})?一次|每个星期"), 1 / 7),
    (re.compile(r"(?:一个?|每个?)(?:礼拜|星期|周)\w{0,3}?([两二三四五六]|\d)次"), "n-a-week"),
    (re.compile(r"每个?月|一个月(?:\w{0,3})?一次"), 1 / 30),
    (re.compile(r"每个?季度?|一个季度(?:\w{0,3})?一次"), 1 / 91),
    (re.compile(r"每年|一年(?:\w{0,3})?一次"), 1 / 365),
]  # fmt: skip
# What makes the frequency after it the new one, or sets the one after it aside.
_NEW = re.compile(
    r"\b(?:to|go(?:es)?\s+to|goes?\s+down\s+to|moves?\s+to|changed?\s+to|reduced?\s+to|switch(?:es|ed)?\s+to"
    r"|only\s+needs?\s+(?:doing|to\s+be\s+done)|now)\s*$|(?:改成|改为|变成|改到|降到|换成|只要|就行|得啦)\s*$"
)
_OLD = re.compile(
    r"\b(?:rather\s+than|instead\s+of|not|no\s+longer|from|than)\s*$"
    r"|(?:而不是|不用再?|不必|不需要|无须|毋须|唔使|唔洗|不再|由|从)\s*$"
)
_QUESTION = re.compile(
    r"[?\uff1f]\s*$|^\s*(?:should|shall|can|could|would|do|does|is|are)\b|是否|要不要|可不可以|能不能|吗"
)


# A check suspended for a while, in Chinese ("这周先暂停巡检", Cantonese "唔使点数住"): a word of
# checking, not a bare 查 ("这个月我先不查成绩了" is no control: a bare 查 suspended is not read).
_ZH_CHECKS = "检查|巡检|巡查|抽检|抽查|核对|对账|对数|点数|盘点|审核|复核|检测|查验"
_SUSPENDED = re.compile(
    rf"(?:先|暂时?|这个?(?:月|周|星期|礼拜)|本周|今天|今晚)(?:不|停|别|不用|不必|唔使|唔洗)再?(?:{_ZH_CHECKS})"
    rf"|(?:暂停|停止)(?:一下)?(?:{_ZH_CHECKS})"
    rf"|(?:唔使|唔洗)(?:{_ZH_CHECKS})\w{{0,2}}住"
)


@dataclass(frozen=True)
class _Rate:
    start: int
    per_day: float
    role: str  # "new", "old" or ""
    sampled: bool  # one in N: the rest go unchecked


def _count(word: str) -> float | None:
    if word.isdigit():
        return float(word)
    return float(_NUMBER_WORDS[word]) if word in _NUMBER_WORDS else None


def _rates(text: str) -> list[_Rate]:
    found: list[_Rate] = []
    taken: list[tuple[int, int]] = []
    for pattern, rate in _RATES:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            if rate == "per-n":
                n = _count(match.group(1))
                per_day = 1000.0 / n if n else None
            elif rate == "n-a-week":
                n = _count(match.group(1))
                per_day = n / 7 if n else None
            elif rate == "every-other":
                per_day = 1.0 / (2 * _DAYS[match.group(1)])
            elif rate == "per-n-days":
                n = _count(match.group(1))
                per_day = 1.0 / (n * _DAYS[match.group(2)]) if n else None
            else:
                per_day = float(rate)  # type: ignore[arg-type]
            if per_day is None:
                continue
            taken.append((match.start(), match.end()))
            before = text[max(0, match.start() - 24) : match.start()]
            role = "new" if _NEW.search(before) else "old" if _OLD.search(before) else ""
            found.append(_Rate(match.start(), per_day, role, rate == "per-n" and per_day < 1000.0))
    return sorted(found, key=lambda r: r.start)


def less_often(text: str) -> bool:
    """Whether `text` (lower case; Chinese simplified) decides that a check runs less often."""
    # The checking word first: one search, and most statements stop here (every `_ZH_CHECKS`
    # word is one of `_CHECK`'s, so a suspension has one too).
    if not _CHECK.search(text) or _QUESTION.search(text):
        return False
    if _SUSPENDED.search(text):
        return True
    rates = _rates(text)
    if len(rates) == 1:
        # "煞车改成每十台抽测一台就好", "changed to one in ten": a change to sampling leaves the rest
        # of what was checked unchecked.
        return rates[0].role == "new" and rates[0].sampled
    news = [r for r in rates if r.role == "new"]
    olds = [r for r in rates if r.role == "old"]
    if news:
        # The new frequency against any said before it or set aside.
        before = [(n, o) for n in news for o in rates if o is not n and (o.start < n.start or o in olds)]
        return any(o.per_day > n.per_day for n, o in before)
    if olds:
        # "every fifth session rather than every time": the frequency not set aside is the new one.
        return any(o.per_day > r.per_day for o in olds for r in rates if r not in olds)
    return False
