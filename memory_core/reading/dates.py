"""Dates in text: a date phrase found in a clause and resolved against the day the message was
sent ("next Friday", "October 3", "last month"), and the engine's one month-name table."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from memory_core.reading.words import PAST_TENSE, alternation

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = alternation(list(MONTHS))
_DATE = re.compile(
    r"(?i)(?P<prep>\b(?:on|in|since|from|by|until)\s+)?(?:the\s+)?"
    r"(?:\b(?P<iso>\d{4}[-/]\d{1,2}[-/]\d{1,2})\b"
    rf"|\b(?P<md_month>{_MONTH})\.?\s+(?:the\s+)?(?P<md_day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<md_year>\d{{4}})\b)?"
    rf"|\b(?P<dm_day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_month>{_MONTH})\b\.?(?:,?\s+(?P<dm_year>\d{{4}})\b)?"
    r"|\b(?P<rel>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tomorrow|"
    r"this\s+morning|this\s+afternoon|this\s+evening|tonight|last\s+night)\b"
    rf"|\b(?P<wd_when>last|next|this|coming)\s+(?P<weekday>{'|'.join(WEEKDAYS)})\b"
    rf"|\b(?P<bare_weekday>{'|'.join(WEEKDAYS)})\b(?!s)"
    r"|\b(?P<month_when>last|next)\s+month\b"
    r"|\b(?P<ago>\d{1,2}|a|one|two|three|four|five|six)\s+days?\s+ago\b"
    rf"|(?:(?<=\bin\s)|(?<=\bsince\s)|(?<=\buntil\s)|(?<=\bby\s)|(?<=\bfrom\s))(?P<mo_month>{_MONTH})\b(?!\s+\d)(?:\s+(?P<mo_year>\d{{4}})\b)?"
    rf"|\b(?P<my_month>{_MONTH})\s+(?P<my_year>\d{{4}})\b"
    rf"|\b(?P<nm_when>next|this|last|coming)\s+(?P<nm_month>{_MONTH})\b(?!\s+\d))"
)


@dataclass(frozen=True)
class When:
    day: date
    precision: str  # "day" or "month"
    match: re.Match[str]

    def phrase(self) -> str:
        if self.precision == "month":
            return f"in {MONTH_NAMES[self.day.month - 1]} {self.day.year}"
        return f"on {self.day.isoformat()}"


def _shift_year(found: date, today: date, *, future: bool) -> date:
    if future and found < today:
        return found.replace(year=found.year + 1)
    if not future and found > today:
        return found.replace(year=found.year - 1)
    return found


Dated = tuple[date, str]  # the day, and its precision: "day" or "month"


def _to_date(match: re.Match[str], today: date, *, future: bool) -> Dated | None:
    groups = match.groupdict()
    try:
        found = _calendar_date(groups, today, future=future)
    except ValueError:  # "February 30"
        return None
    return found or _relative_date(groups, today, future=future)


def _calendar_date(groups: dict[str, Any], today: date, *, future: bool) -> Dated | None:
    """A date written with its month ("2026-10-03", "October 3", "in May 2027")."""
    if groups["iso"]:
        year, month, day = (int(part) for part in re.split(r"[-/]", groups["iso"]))
        return date(year, month, day), "day"
    if groups["md_month"] or groups["dm_month"]:
        month = MONTHS[(groups["md_month"] or groups["dm_month"]).lower()]
        day = int(groups["md_day"] or groups["dm_day"])
        year_text = groups["md_year"] or groups["dm_year"]
        found = date(int(year_text) if year_text else today.year, month, day)
        return (found if year_text else _shift_year(found, today, future=future)), "day"
    if groups["mo_month"] or groups["my_month"]:
        month = MONTHS[(groups["mo_month"] or groups["my_month"]).lower()]
        year_text = groups["mo_year"] or groups["my_year"]
        found = date(int(year_text) if year_text else today.year, month, 1)
        if not year_text:
            found = _shift_year(found, today.replace(day=1), future=future)
        return found, "month"
    return None


def _relative_date(groups: dict[str, Any], today: date, *, future: bool) -> Dated | None:
    """A date said from today ("yesterday", "next March", "last Friday", "three days ago")."""
    if groups["rel"]:
        relative = re.sub(r"\s+", " ", groups["rel"].lower())
        shift = {"the day before yesterday": -2, "yesterday": -1, "last night": -1, "tomorrow": 1,
                 "the day after tomorrow": 2}.get(relative, 0)  # fmt: skip
        return today + timedelta(days=shift), "day"
    if groups["nm_month"]:
        return _named_month(groups["nm_when"].lower(), MONTHS[groups["nm_month"].lower()], today), "month"
    weekday = groups["weekday"] or groups["bare_weekday"]
    if weekday:
        return _weekday(weekday, (groups["wd_when"] or "").lower(), today, future=future), "day"
    if groups["month_when"]:
        first = today.replace(day=1)
        if groups["month_when"].lower() == "last":
            return (first - timedelta(days=1)).replace(day=1), "month"
        return (first + timedelta(days=32)).replace(day=1), "month"
    if groups["ago"]:
        words = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
        return today - timedelta(days=words.get(groups["ago"].lower()) or int(groups["ago"])), "day"
    return None


def _named_month(when: str, month: int, today: date) -> date:
    """ "next March", "this coming June", "last May": the first of that month."""
    year = today.year + (1 if when == "next" and month <= today.month else 0)
    year -= 1 if when == "last" and month >= today.month else 0
    if when in ("this", "coming") and month < today.month:
        year += 1
    return date(year, month, 1)


def _weekday(name: str, when: str, today: date, *, future: bool) -> date:
    """ "last Friday", "next Monday", a bare "Tuesday" (the past one, unless the date is ahead)."""
    index = WEEKDAYS.index(name.lower())
    if when == "last" or (not when and not future):
        return today - timedelta(days=(today.weekday() - index) % 7 or 7)
    return today + timedelta(days=(index - today.weekday()) % 7 or 7)


def find_date(text: str, today: date, *, future: bool = False) -> When | None:
    for match in _DATE.finditer(text):
        found = _to_date(match, today, future=future)
        if found is not None:
            return When(found[0], found[1], match)
    return None


_PAST_WORD = re.compile(
    r"(?i)\b(?:[a-z]+ed(?<!eed)|" + "|".join(sorted(PAST_TENSE)) + r")\b|\b(?:ago|last|yesterday)\b"
)


def is_past(text: str) -> bool:
    return bool(_PAST_WORD.search(text))
