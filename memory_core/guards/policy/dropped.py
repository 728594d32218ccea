"""A rule or requirement announced as dropped: "We've dropped the rule that students wear impact
vests in the lagoon", "they scrapped the need for a second signature", "我们取消了访客必须登记的规定".
An ended requirement relaxes whatever it required; `polarity` reads a negated control ("no sign-in
needed"), not a requirement named and then done away with, whose control is any of a hundred
things (vests, signatures, a register)."""

from __future__ import annotations

import re

_EN_DROP = (
    r"(?:dropped|scrapped|removed|abolished|cancell?ed|lifted|waived|retired|suspended|relaxed|ditched"
    r"|done\s+away\s+with|got\s+rid\s+of|no\s+longer\s+(?:enforce|have|need)s?)"
)
_EN_RULE = r"(?:rules?|requirements?|policy|policies|need|obligation|mandate|ban|check|sign-?in|sign-?off)"
_EN = re.compile(
    rf"\b{_EN_DROP}\s+(?:the|our|that|this|its|their|any)\s+(?:[\w-]+\s+){{0,3}}?{_EN_RULE}\b"
    rf"|\b(?:the|our|that|this)\s+{_EN_RULE}\s+(?:that|to|for|of)\b.{{0,80}}?\b(?:has|have|had|was|were|is|are)\s+"
    rf"(?:been\s+)?{_EN_DROP}\b"
    # a requirement said to be no more, whatever it required: "hard hats are no longer required in the
    # yard", "we no longer require a UK guarantor" (35 labelled texts, 34 relaxations)
    r"|\bno\s+longer\s+(?:required|mandatory|compulsory|obligatory)\b|\bno\s+longer\s+requires?\b"
)
_ZH = re.compile(
    r"(?:取消|废除|废止|撤销|去掉|不再执行|不再要求|作废)了?.{0,24}?(?:规定|要求|制度|规矩|限制|检查|登记|签字|审批|核实)"
    # no longer required, whatever of ("不再要求每户都来签到了", "不再要求本人到场"): 12 labelled texts, 11
    # relaxations
    r"|(?:不再|唔再)(?:要求|强制)"
)
# Asked, proposed, reported of another place or time: no decision of this one.
_NOT_DECIDED = re.compile(
    r"[?\uff1f]\s*$|\b(?:should|could|would|might|maybe|what if|propos\w*|suggest\w*|if we|whether|heard"
    r"|rumou?r|apparently|news|back in|used to|their|old job)\b"
    r"|是否|要不要|能不能|可不可以|吗|听说|建议|提议|如果|新闻|电台|报道|据说|没有结论"
)


# A check stopped by those who run it: "we'll stop doing the last-crossing headcount", "we'll drop
# the second radio check-in", "the second headcount at lunch is scrapped", "不用再点名了".
_CHECKS = (
    r"(?:checks?|check-?ins?|head-?counts?|counts?|roll[- ]?calls?|inspections?|audits?|sweeps?|patrols?"
    r"|walk-?rounds?|sign-?offs?|verifications?|toolbox\s+talks?|briefings?|spot[- ]checks?|swabs?|tests?)"
)
_EN_STOP = re.compile(
    r"\b(?:we'?ll|we\s+will|we'?re\s+going\s+to|we\s+can|we'?ve|we\s+have|going\s+forward|from\s+now\s+on)\s+"
    r"(?:now\s+|just\s+)?(?:stop(?:ped)?|drop(?:ped)?|scrap(?:ped)?|ditch(?:ed)?|skip(?:ped)?|cut|end(?:ed)?)\s+"
    rf"(?:doing\s+|running\s+|with\s+)?(?:the|our|all|any)\s+(?:[\w-]+\s+){{0,3}}?{_CHECKS}\b"
    rf"|\b{_CHECKS}\b[^.;]{{0,40}}?\b(?:is|are|has\s+been|have\s+been|'s\s+been|gets?)\s+(?:now\s+)?"
    r"(?:scrapped|dropped|stopped|cancell?ed|axed|ditched)\b"
)
_ZH_STOP = re.compile(r"(?:不用|不必|无须|唔使|唔洗)再?(?:点名|点人数|清点人数|巡场|巡查|巡逻)了")


def stops_a_check(text: str) -> bool:
    """Whether `text` (lower case; Chinese simplified) decides that a check is no longer done."""
    if not (_EN_STOP.search(text) or _ZH_STOP.search(text)):
        return False
    return not _NOT_DECIDED.search(text)


def drops_a_rule(text: str) -> bool:
    """Whether `text` (lower case; Chinese simplified) decides that a rule or requirement is dropped."""
    if not (_EN.search(text) or _ZH.search(text)):
        return False
    return not _NOT_DECIDED.search(text)


# A standing health reminder the assistant keeps, dropped or paused: "you can pause that daily
# reminder", "delete my insulin reminder", "stop reminding me about the eye drops", "你每天早上那个
# 吃药提醒删掉吧", "以后不用再提醒我吃降压药". The reminder was the user's own safety step; a reminder
# of anything else (the bins, a birthday) is no control, and one for tomorrow only is one occasion.
_EN_REMINDER_OFF = re.compile(
    r"\b(?:delete|cancel|stop|pause|turn\s+off|switch\s+off|remove|drop|ditch|scrap|get\s+rid\s+of|mute)\s+"
    r"(?:the|that|this|my|those|these|all\s+(?:the|my|those))\s+(?:[\w'-]+\s+){0,4}?reminders?\b"
    r"|\bstop\s+reminding\s+me\b"
    r"|\b(?:no\s+need\s+to|(?:you\s+)?(?:don'?t|do\s+not)\s+(?:need\s+to\s+|have\s+to\s+)?)\s*remind\s+me\b"
)
_ZH_REMINDER_OFF = re.compile(
    r"提醒(?:可以|帮我|给我|你|就|都)?(?:删掉|删了|删除|关掉|关了|取消|停掉|停了|去掉|撤掉|唔要|不要了)"
    # (the reminder is what is cancelled: not "航班取消了, 记得提醒我吃药")
    r"|(?:删掉|删除|关掉|取消|停掉|去掉|撤掉)(?:那个|这个|个|掉|吓)?[^\uff0c\u3002\uff01\uff1f,.!?\s我]{0,16}?提醒(?!我)"
    r"|(?:不用|不必|无须|唔使|唔洗)再?提醒我"
)
_HEALTH_STEP = re.compile(
    r"\b(?:med(?:s|ication|ications|icine|icines)?|pills?|tablets?|capsules?|insulin|inhalers?|injections?|jabs?"
    r"|doses?|eye\s+drops|blood\s+(?:sugar|pressure)|glucose|sugar\s+levels?|scans?|check-?ups?|physio"
    r"|antibiotics?|vitamins?|supplements?|prescriptions?|refills?)\b"
    r"|药|胰岛素|(?<![指方秒时])针(?!对)|血糖|血压|复诊|复查|覆诊|体检|维生素|眼药水|喷剂|吸入器|疫苗|量体重|测血"
)
_ONE_OCCASION = re.compile(
    r"\b(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening))\b|今天|今晚|明天|明早|今日|听日"
)
_RECURRING = re.compile(
    r"\b(?:daily|weekly|nightly|every|each|morning|evening|regular)\b|每天|每日|每晚|每周|每个|早上|晚上|定时"
)


def stops_a_health_reminder(text: str) -> bool:
    """Whether `text` (lower case; Chinese simplified) drops or pauses a standing reminder of a
    health step (medication, a test, a check-up)."""
    if not (_EN_REMINDER_OFF.search(text) or _ZH_REMINDER_OFF.search(text)) or not _HEALTH_STEP.search(text):
        return False
    if _ONE_OCCASION.search(text) and not _RECURRING.search(text):
        return False
    return not _NOT_DECIDED.search(text)
