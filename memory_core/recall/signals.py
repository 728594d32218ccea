"""What a recall query says besides its words: the period it asks about and the people it names.

Both become score components (`recall.scoring`), never filters (docs/recall.md)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memory_core.reading.dates import MONTHS  # one month-name table for the engine

TimeRange = tuple[datetime, datetime]

_WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a few": 3}

_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_YEAR = re.compile(rf"\b{_MONTH}\.?,?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during|last|this|early|late|mid)\s+{_MONTH}\b", re.I)
_YEAR = re.compile(r"\b(?:in|during|of|since)\s+((?:19|20)\d{2})\b", re.I)
_AGO = re.compile(r"\b(\d+|an?|one|two|three|four|five|six|a few)\s+(day|week|month|year)s?\s+ago\b", re.I)
_RELATIVE = re.compile(r"\b(last|this|past|previous)\s+(weekend|week|month|year)\b", re.I)
_CJK_YEAR_MONTH = re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?")
_CJK_RELATIVE = {
    "昨天": ("day", -1),
    "前天": ("day", -2),
    "今天": ("day", 0),
    "上周": ("week", -1),
    "上星期": ("week", -1),
    "上个星期": ("week", -1),
    "本周": ("week", 0),
    "这周": ("week", 0),
    "上个月": ("month", -1),
    "上月": ("month", -1),
    "这个月": ("month", 0),
    "本月": ("month", 0),
    "去年": ("year", -1),
    "今年": ("year", 0),
    "前年": ("year", -2),
}

_NAME = re.compile(r"\b([A-Z][a-z]+(?:-[A-Z][a-z]+)?)\b")
# Capitalised words that are not names even in the middle of a question.
_NOT_NAMES = {"I", "LGBTQ", "The", "A", "An"}


def _add_months(moment: datetime, months: int) -> datetime:
    """`moment` moved by whole months, the day clamped to the target month (31 Mar - 1 month: 28 Feb)."""
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    following = datetime(year + (month + 1) // 12, (month + 1) % 12 + 1, 1, tzinfo=moment.tzinfo)
    last_day = (following - timedelta(days=1)).day
    return moment.replace(year=year, month=month + 1, day=min(moment.day, last_day))


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _period(unit: str, start: datetime) -> TimeRange:
    """The calendar day / week (from Monday) / month / year holding `start`."""
    day = _day(start)
    if unit == "day":
        return day, day + timedelta(days=1)
    if unit == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=7)
    if unit == "weekend":
        saturday = day - timedelta(days=(day.weekday() - 5) % 7)
        return saturday, saturday + timedelta(days=2)
    if unit == "month":
        first = day.replace(day=1)
        return first, _add_months(first, 1)
    first = day.replace(month=1, day=1)
    return first, first.replace(year=first.year + 1)


def _shifted(unit: str, reference: datetime, steps: int) -> TimeRange:
    """The period `steps` units before (negative) or after `reference`'s."""
    if unit in ("month", "year"):
        return _period(unit, _add_months(reference, steps * (12 if unit == "year" else 1)))
    return _period(unit, reference + timedelta(days=steps * (1 if unit == "day" else 7)))


def _absolute_day(text: str, reference: datetime) -> TimeRange | None:
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy"), (_ISO_DAY, "ymd")):
        if match := pattern.search(text):
            groups = dict(zip(order, match.groups(), strict=True))
            month = int(groups["m"]) if groups["m"].isdigit() else MONTHS[groups["m"].lower()]
            try:
                day = reference.replace(year=int(groups["y"]), month=month, day=int(groups["d"]))
            except ValueError:
                continue
            return _period("day", day)
    return None


def _absolute(text: str, reference: datetime) -> TimeRange | None:
    if found := _absolute_day(text, reference):
        return found
    if match := _MONTH_YEAR.search(text):
        month = MONTHS[match.group(1).lower()]
        return _period("month", reference.replace(year=int(match.group(2)), month=month, day=1))
    if match := _CJK_YEAR_MONTH.search(text):
        year, month, day = int(match.group(1)), int(match.group(2)), match.group(3)
        try:
            first = reference.replace(year=year, month=month, day=1)
            return _period("day", first.replace(day=int(day))) if day else _period("month", first)
        except ValueError:
            return None
    return None


def _relative(text: str, reference: datetime) -> TimeRange | None:
    lowered = text.lower()
    if "yesterday" in lowered:
        return _shifted("day", reference, -1)
    if "today" in lowered or "tonight" in lowered:
        return _period("day", reference)
    if match := _AGO.search(text):
        amount = match.group(1).lower()
        steps = int(amount) if amount.isdigit() else _NUMBERS.get(amount, 1)
        return _shifted(match.group(2).lower(), reference, -steps)
    if match := _RELATIVE.search(text):
        which, unit = match.group(1).lower(), match.group(2).lower()
        return _shifted(unit, reference, 0 if which == "this" else -1)
    if match := _IN_MONTH.search(text):
        month = MONTHS[match.group(1).lower()]
        year = reference.year if month <= reference.month else reference.year - 1
        return _period("month", reference.replace(year=year, month=month, day=1))
    if match := _YEAR.search(text):
        return _period("year", reference.replace(year=int(match.group(1)), month=1, day=1))
    for word, (unit, steps) in _CJK_RELATIVE.items():
        if word in text:
            return _shifted(unit, reference, steps)
    return None


def time_range(text: str, *, reference: datetime) -> TimeRange | None:
    """The period `text` asks about, relative to `reference` (aware), or None when it names none:
    "in March 2023", "on 8 May 2023", "2023-05-08", "last week", "yesterday", "3 days ago", "last
    weekend", "this year", "去年", "上周", "2023年3月"."""
    return _absolute(text, reference) or _relative(text, reference)


def in_range(moments: tuple[datetime | None, ...], period: TimeRange | None) -> float:
    """1.0 when any of the entry's times falls in the period, else 0.0 (and 0.0 without a period)."""
    if period is None:
        return 0.0
    start, end = period
    return 1.0 if any(m is not None and start <= m < end for m in moments) else 0.0


def query_names(text: str) -> tuple[str, ...]:
    """The capitalised words of the query after its first word, months and weekdays left out
    ("What did Caroline tell Melanie?" → Caroline, Melanie)."""
    words = text.split()
    rest = " ".join(words[1:])
    names = [
        name
        for name in _NAME.findall(rest)
        if name not in _NOT_NAMES and name.lower() not in MONTHS and name.lower() not in _WEEKDAYS
    ]
    return tuple(dict.fromkeys(names))


# A statement is about the person it names first: a name within its first SUBJECT_WORDS words
# ("Ben recommended …", "Ana's sister …", "Caroline said, …") counts fully, a mention further on
# ("… a gift from Ana") counts MENTION_CREDIT. Measured on LoCoMo (docs/recall.md): the subject
# position is worth +0.028 R@20 over counting every mention alike.
SUBJECT_WORDS = 3
MENTION_CREDIT = 0.5
_HEAD = re.compile(rf"\s*\S+(?:\s+\S+){{0,{SUBJECT_WORDS - 1}}}")


def name_share(content: str, names: tuple[str, ...]) -> float:
    """Per query name, 1.0 when the content names that person as its subject (within its first
    words), `MENTION_CREDIT` when it mentions them further on, else 0.0; averaged over the names
    (0.0 when the query names nobody)."""
    return pattern_share(content, name_patterns(names))


def name_patterns(names: tuple[str, ...]) -> list[re.Pattern[str]]:
    """The names as whole-word patterns, compiled once per query (not once per candidate)."""
    return [re.compile(rf"\b{re.escape(name)}\b") for name in names]


def pattern_share(content: str, patterns: list[re.Pattern[str]]) -> float:
    """`name_share` with the patterns of `name_patterns`."""
    if not patterns:
        return 0.0
    head = _HEAD.match(content)
    subject_end = head.end() if head else 0
    credit = 0.0
    for pattern in patterns:
        found = pattern.search(content)
        if found is not None:
            credit += 1.0 if found.start() < subject_end else MENTION_CREDIT
    return credit / len(patterns)
