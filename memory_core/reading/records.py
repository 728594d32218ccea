"""A work record's note of someone served, read from its heading: a bed, a room, a cabin, a pupil's
class, an order, a booking or a caller ("Ward 7, bay 2, bed 4: coeliac…", "5床 青霉素过敏"), said
by nobody in the first person. Simplified and traditional Chinese alike (the readers below the
language floor see text as written)."""

from __future__ import annotations

import re

# A work record's heading the statement opens with, a bed, a room, a pupil's class, a booking, an
# order or a caller ("Ward 7, bay 2, bed 4: coeliac…", "Saturday booking: wheelchair user…", "3床:
# 青霉素过敏"), and nobody in it says "I", "my" or "our": a nurse's, a teacher's or a clerk's note of
# whom they serve. Over the labelled sets (batch 56 included) 101 statements of someone else's
# condition and 201 of none are read so, and 2 of the user's or a dependant's ("3号房宝宝黄疸值偏高",
# a midwife's note labelled a dependant's; "Order confirmed: … for the DVT leg"); "complaint re order
# 44817: I'm coeliac", "Booking note: I use a wheelchair" are the user's and have "I".
_RECORD_PLACE = (
    r"(?:ward|bed|bay|room|rm|cubicle|table|seat|cabin|unit|flat|apt|suite|pitch|lane|stall|chair|booth|row"
    r"|gate|class|form|year|group|case|ticket|order|booking|ref|reservation|tour|party|caller|call|client"
    r"|patient|guest|customer|pupil|student|resident|passenger|visitor|rider|camper|member|diner|attendee"
    r"|delegate)"
)
_RECORD_HEADING = re.compile(
    r"(?i)^\W*(?:[\w'-]+\s+){0,3}?" + _RECORD_PLACE + r"\s*(?:no\.?\s*|#\s*)?[\w-]*\d[\w-]*"
    r"(?:\s*[,/]\s*(?:" + _RECORD_PLACE + r"\s*)?[\w-]*\d[\w-]*)*\s*[:,\-\u2014]"
    r"|^\W*(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:'s)?|today'?s|tonight'?s|tomorrow'?s|new|next|the"
    r"|\d+(?:am|pm|:\d\d)?)?\s*(?:booking|caller|walk-?in|enquiry|inquiry|referral|admission|order|reservation"
    r"|party|group)\b[^.:]{0,30}:"
    r"|^\W*(?:\d+|[一二三四五六七八九十]+)\s*[号號]?\s*(?:床|房|桌|[号號]房|[号號]桌|[号號]座|座|室)"
)
_SAYS_I = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|i'll|im|my|me|mine|myself|our|ours)\b|我(?!们|們|哋)|咱|俺|阮")


def a_record_note(text: str) -> bool:
    """Whether `text` is a work record's note of someone served (`_RECORD_HEADING`): whoever the
    condition it tells is, it is not the speaker's, even when it names nobody ("Table 7: pregnant")."""
    plain = " ".join(text.split())
    return bool(_RECORD_HEADING.search(plain)) and not _SAYS_I.search(plain)
