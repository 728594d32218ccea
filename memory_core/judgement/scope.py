"""How long an instruction lasts, read from its words: a standing scope ("from now on", "以后"), an
order closed by a tag ("…, ok?"), a meal the speaker will miss ("don't wait for me for dinner"), a
rule not yet decided, advice framed as a tip, an instruction for one occasion, and the speaker's own
habit. The models judge the rest (`judgement.policy`)."""

from __future__ import annotations

import re

from memory_core.guards.policy import opens_as_question
from memory_core.language import has_cjk, simplified_han

# A standing scope says an instruction lasts beyond one occasion. The normative model, trained on
# texts where a condition is most often news, under-scores a standing request built on one
# ("Since I was diagnosed with histamine intolerance, please never suggest fermented foods": 0.19;
# "My MS fatigue is worst after 2pm. Put my hard meetings in the mornings from now on please":
# 0.24): with a standing scope, and not asked as a question, a lower score holds the statement,
# and so does one of its sentences with the scope that the model is sure of alone. (On batch 23,
# read after its first score: 8 more of 135 rules held, one more of LoCoMo's 788 turns; through
# REST its other texts held stayed as they were. With the models retrained since, on batch 25 it
# holds 5 of 138 rules the model alone does not, and none of its 322 other texts.)
STANDING = re.compile(
    r"(?i)\b(?:from\s+now\s+on|going\s+forward|for\s+good|at\s+all\s+times|until\s+further\s+notice"
    r"|don'?t\s+ever|no\s+matter\s+what)\b|(?<![完了过点时年月天号周风术住药后跤院产婚])以后|今后|从今|往后|一律|凡是"
    r"|务必|千万"
    # from today on, said formally or in Cantonese ("由今日起", "由今晚開始", "即日起"): 248 labelled
    # texts, 246 rules
    r"|由今|即日起"
)
# "以后" after an event or a time is "after it" ("他中风以后右边身体不能动"): a scope only with a
# request's word. On the labelled texts with 以后: 11 non-rules no longer held, 2 rules lost.
AFTER_AN_EVENT = re.compile(r"(?<=[完了过点时年月天号周风术住药后跤院产婚])以后")
# "always", "never", "whenever", "every time" also describe ("she gets hives whenever she eats
# kiwi"): they scope an instruction only beside a request's word.
OFTEN = re.compile(
    r"(?i)\b(?:always|never|whenever|any\s*time|each\s+time|every\s+(?:time|single|morning|day|night|week|month"
    r"|visit|outing|shift|session))\b|每次|每逢|永远|始终|每天|每晚|每朝"
    # every week or month, as English's "every week" ("每週一三五…請管理員…", "每個禮拜天晚上由我分裝")
    r"|每周|每星期|每个?礼拜|每个星期|每个?月|逢星期|逢礼拜"
)
# A bare verb is a request only where an imperative stands, at a clause's start or after a word that
# leads one ("so keep the sauce away", "you can let me…"): "they've put him on amlodipine, he checks
# it every morning" tells what others do.
REQUEST = re.compile(
    r"(?i)\b(?:please|pls|plz|remind|make\s+sure|don'?t|do\s+not|can\s+you|could\s+you"
    r"|you\s+(?:should|must|need\s+to))\b"
    r"|(?:^|[.!?;:,\n\u2014\u2013(]\s*|\b(?:and|then|just|also|so|always|never|only|can|may)\s+)"
    r"(?:suggest|factor|check|put|keep|give|let|book|send|log)\b"
    r"|请(?!假|客|问)|帮我|提醒|记得|别|不要|不准|不许|必须|一定要|麻烦|唔好|唔准"
)


def standing_scope(text: str) -> bool:
    """Whether `text` says its instruction lasts beyond one occasion (`STANDING`, or `OFTEN` with a
    request's word)."""
    simple = simplified_han(text)
    often = OFTEN.search(simple) or AFTER_AN_EVENT.search(simple)
    return bool(STANDING.search(simple) or (often and REQUEST.search(simple)))


# A directive closed by a tag ("never let the twins have fizzy drinks after six, ok?", "…先给我打电
# 话。记住没", "…都不要给他拿, ok lah" and its question mark) asks nothing: the models, for which a
# closing question mark is a question (0.001 with the tag, 0.28 without), judge it without the
# tag. Only tags that close an order are read so: "…, right?" checks a fact, and "可以吗" asks leave.
DIRECTIVE_TAG = re.compile(
    r"(?i)(?:[,\uff0c]\s*(?:ok(?:ay)?|alright|all\s+right|got\s+it|understood|yeah)(?:\s*(?:ah|lah|la|hor|ya|yah|吗|嗎|嘛))?"
    r"|(?<=[\uff0c\u3002\uff01,.!])\s*(?:记住没|记住了吗|记住了没|记得吗|听到没|听到了吗|明白吗|明白了吗|懂吗|知道了吗|"
    r"記住未|記住沒|記住了嗎|聽到沒|明白嗎|知唔知|聽到未))\s*[?\uff1f]+\s*$"
)


def untagged(plain: str) -> str:
    """`plain` without a tag that closes an order (`DIRECTIVE_TAG`), unless what it closes asks."""
    tag = DIRECTIVE_TAG.search(plain)
    if tag is None or opens_as_question(plain):
        return plain
    said = plain[: tag.start()].rstrip(" ,\uff0c")
    return (
        said if said.endswith((".", "!", "\u3002", "\uff01")) else said + ("\u3002" if has_cjk(said) else ".")
    )


# The speaker telling the people they are about to eat with not to wait for them ("今晚唔使等我食饭,
# 我OT", "running late, start without me", "你们别等我先开吃") arranges one meal: no standing
# instruction, whatever the normative model reads in its imperative. Over the labelled sets
# (batch 56 included) 14 statements say so, none of them a rule; with a standing scope ("from now on
# never wait for me for dinner on Tuesdays") it is left to the models.
MISSED_MEAL = re.compile(
    r"(?i)\b(?:don'?t|do\s+not|no\s+need\s+to|needn'?t)\s+wait\s+(?:up\s+)?(?:for|on)\s+me\s+"
    r"(?:for\s+(?:dinner|lunch|tea|supper|breakfast|food)|to\s+(?:eat|start|order)"
    r"|before\s+(?:eating|you\s+eat|ordering))"
    r"|\b(?:start|go\s+ahead\s+and\s+(?:eat|order|start))\s+without\s+me\b"
    r"|(?:别|不用|不要|唔使|唔好|不必|甭)等我(?:一起)?(?:吃饭|食饭|吃|食|开吃|开饭|先)"
    r"|(?:你们|你哋|大家)先(?:吃|食|开吃|开饭|点菜|叫嘢食)"
)


def a_missed_meal(text: str) -> bool:
    """Whether `text` only tells others not to wait for the speaker to eat (`MISSED_MEAL`)."""
    simple = simplified_han(text)
    return bool(MISSED_MEAL.search(simple)) and not standing_scope(simple)


# A standing request asked politely, as a question ("Could you stop suggesting recipes with
# coriander from now on?", "Could you always skip the two-factor check for me going forward?",
# "以后能不能别给我推荐香菜的菜谱？", "以後可唔可以唔好再send廣告俾我？") asks for a standing  # noqa: RUF003
# instruction as surely as the order does: the models, for which a closing question mark is a
# question, read it 0.0-0.2 where they hold its imperative, and a relaxation so asked was stored
# active. Only the whole of a one-sentence text that opens with the request to "you" is read so
# ("Can you tell me if…", "Can you believe…" ask something else); the labelled sets hold one such
# text. The models judge the order it asks for (`policy`).
_EN_POLITE = re.compile(
    r"(?i)^\W*(?:(?:hey|hi|ok|okay|also|and|oh|btw|so)\W+)?(?:please\s+)?"
    r"(?:(?:would|do)\s+you\s+mind(?P<mind>\s+not)?|(?:could|can|would|will)\s+you(?:\s+possibly|\s+be\s+able\s+to)?"
    r"|any\s+chance\s+you\s+(?:could|can)"
    r"|i\s+(?:was|am|'m)\s+wondering\s+if\s+you\s+(?:could|can)|would\s+it\s+be\s+possible(?:\s+for\s+you)?\s+to"
    r"|is\s+it\s+(?:ok(?:ay)?|alright|all\s+right|possible|fine)\s+(?:if\s+you|for\s+you\s+to|to))\s+"
    r"(?:please\s+|kindly\s+)?(?P<rest>(?!(?:tell|explain|check\s+(?:if|whether)|let\s+me\s+know|confirm|say|"
    r"believe|imagine|guess|see|hear|find\s+out|if|remember\s+(?:when|what|if|who))\b)[^?]+?)"
    r"(?:,?\s*(?:please|pls|for\s+me))?\s*\?+\s*$"
)
_ZH_POLITE = re.compile(
    r"^\W*(?P<before>[^?\uff1f\u3002!\uff01他她它问说讲觉话]{0,16}?)(?:能不能|可不可以|可唔可以|能否|可以唔可以|是否可以)"
    r"(?P<rest>[^?\uff1f吗嗎]+?)(?:呢|啊|吖|呀|吗|嗎|好吗|好嗎|得唔得|好唔好|可以吗)?\s*[?\uff1f]+\s*$"
    r"|^\W*(?P<asked>(?:你|您)?(?:以后|今后|往后|以後)[^?\uff1f]+?)"
    r"(?:可以吗|可以嗎|好吗|好嗎|得唔得|好唔好|行吗|行不行|可唔可以)\s*[?\uff1f]+\s*$"
)


def as_directive(plain: str) -> str | None:
    """The order a standing request asked as a question asks for ("Could you never book me on red-eyes
    from now on?" -> "Never book me on red-eyes from now on."), or None for any other text."""
    if not plain.rstrip().endswith(("?", "\uff1f")) or not standing_scope(plain):
        return None
    if english := _EN_POLITE.match(plain):
        rest = english.group("rest").strip()
        if re.search(r"(?i)\bmind\b", english.group(0)[: english.start("rest")]):
            # "Would you mind (not) booking me on red-eyes…": keep (stop) doing it.
            rest = ("stop " if english.group("mind") else "keep ") + rest
        return rest[:1].upper() + rest[1:] + "."
    if chinese := _ZH_POLITE.match(simplified_han(plain)):
        asked = chinese.group("asked") or (chinese.group("before") + chinese.group("rest"))
        return asked.strip(" ,\uff0c") + "\u3002"
    return None


# A rule still undecided, said so in as many words: proposed ("有同事提議…", "Proposal: drop the
# second signature…"), put to a vote, asked about ("is it true…", "真的假的", "你们觉得…"), or
# not yet decided ("还没定", "haven't decided"). The models hold some for what they would change,
# and the brief labels them no rule. Said with a decision ("投票通过", "agreed", "effective"), it is
# left to the models; one that would relax a control stays held (`policy`). Over the labelled sets
# (batch 57 included) 573 texts read so, all no rule; 14 held before are released, 42 relaxations
# stay held. Talk not yet settled ("nothing official yet", "rumour is…", "还在讨论", "都未定嘅";
# chit-chat 40 held "聽講新校長想…都未定嘅"): 93 more labelled texts (batch 59 included), all no
# rule but two a decision reads ("Rumor is confirmed: …").
UNDECIDED = re.compile(
    r"(?i)\b(?:propos(?:e|es|ed)\b|proposal\s*(?::|to\b|for\b|on\s+the\s+table)|there'?s\s+a\s+proposal\b"
    r"|is\s+it\s+true\b|thoughts\s*\?|(?:haven'?t|hasn'?t|not(?:\s+yet)?)\s+(?:been\s+)?decided\b|undecided\b"
    r"|vote\s+(?:on|by|fri|mon|tue|wed|thu|sat|sun|next|at)\b|poll\s+closes\b"
    r"|what\s+do\s+(?:you|we|y'?all|people)\s+think\b|up\s+for\s+(?:a\s+)?vote\b"
    # told as talk, not yet settled: "nothing official yet", "still being discussed", "rumour is…"
    r"|nothing(?:'s|\s+is|\s+has\s+been)?\s+(?:decided|final|confirmed|official|agreed|set\s+in\s+stone)\b"
    r"|not\s+yet\s+(?:confirmed|final|official|agreed)\b|not\s+(?:confirmed|final|official|agreed)\s+yet\b"
    r"|not\s+(?:confirmed|official)\s*(?:[.!;)]|$)|still\s+(?:being\s+)?(?:discussed|debated|under\s+discussion)\b"
    r"|float(?:s|ed|ing)?\s+the\s+idea\b|rumou?r\s+(?:is|has\s+it)\b)"
    r"|提议|还没定|还没决定|没定案|未定|未决定|未拍板|没拍板|还在讨论|仲喺度倾|未落实|还没落实|还没表态|真的假的|系咪真"
    r"|你们觉得|大家觉得|你哋觉得"
    # still being talked over, in Cantonese and Mandarin ("我同老公仲傾緊, 未有決定", "还在商量"): 22
    # labelled texts (batch 64 read after its first score), all no rule.
    r"|未有决定|仲未决定|未有定案|倾紧|仲未倾|未倾掂|讨论紧|商量紧|还在商量|还在考虑|仲考虑紧"
    # hearsay ("The school's policy apparently says…", "听说总行在讨论…"): the brief labels rumours no
    # rule. 977 labelled texts say so, 30 rules, 22 of them relaxations (held still) and 3 decided.
    r"|(?i:\b(?:apparently|supposedly|allegedly|i'?ve\s+heard|i\s+heard|heard\s+that)\b)|听说|据说|听讲|听闻|传闻"
)
# A Chinese rule asked about as a yes-or-no question ("以后外送单要不要都先拍照...?", "咱们要不要也学
# 一下?", "使唔使...?"): whether to, in its asking form (A-not-A), and its question mark in one
# sentence ("能不能...?", "可唔可以...?" ask for it: `as_directive`). Over the labelled sets (batch
# 63 included) 446 texts read so, none a rule; 6 were held, 3 of them relaxations, which stay held.
# Not English: "Can you remind me every Friday...?" asks for a rule.
ASKED = re.compile(
    r"(?:要不要|该不该|应不应该|好不好|使唔使|要唔要|好唔好|应唔应该)"
    # its question mark, or, typed or said without one, a closing particle ("…还要不要跟你报备啊")
    r"[^\u3002\uff01!.\uff1f?]{0,40}?(?:[\uff1f?]|[啊呀吗嗎呢咩吖](?:$|[\s\uff0c,]))"
)
DECIDED = re.compile(
    r"(?i)\b(?:passed|approved|agreed|confirmed|decided|effective|signed\s+off)\b|通过|决定了|定了|已经决定|生效|批准了|同意了"
)


def undecided(text: str) -> bool:
    """Whether `text` says the rule it tells is still undecided (`UNDECIDED`) or asks whether to have
    it (`ASKED`), and no decision."""
    simple = simplified_han(text)
    # "Not decided yet" is no decision: the undecided words are read out first.
    asked = UNDECIDED.search(simple) or ASKED.search(simple)
    return bool(asked) and not DECIDED.search(UNDECIDED.sub(" ", simple))


# Advice said as advice: a tip, a lesson from experience ("Top tip: get the inspector to sign off
# before you go up", "老师傅的经验之谈…", "过来人的建议"). The brief labels advice between friends
# no rule; the models, which learned rules from the same imperatives, hold some. In English only the
# framing at the start reads so, in Chinese the words anywhere; one that would relax a control stays
# held (`policy`). Over the labelled sets (batch 61 included) 29 texts read so, all no rule; with
# "Tip from …:" (read after batch 62) 106, all no rule: 9 of the 75 it adds were held before.
ADVICE = re.compile(
    r"(?i)^\W*(?:(?:top|pro|quick|handy|little|hot|friendly)\s+tip|tip|(?:my|some|a\s+bit\s+of)\s+advice"
    r"|word\s+of\s+advice|lesson\s+learn(?:ed|t)|from\s+experience)\s*[:,!\u2014-]"
    # "Tip from an old hand:", "Advice from the NC500 forum:", "Word of advice from someone who…:"
    r"|(?i:^\W*(?:(?:a|one|top|good|handy|quick|little|pro)\s+)?(?:tip|advice|lesson|wisdom|word\s+of\s+advice)"
    r"\s+(?:from|via|courtesy\s+of)\s+[^:.!?\n]{1,50}[:\u2014-])"
    r"|经验之谈|过来人(?:的|说|讲|讲句|经验|建议)|小贴士"
    # someone's tip passed on ("Jonas's tip if you ever…:", "My sister's tip: …"), a friend's counsel
    # ("姐妹听我一句...", "我劝你..."): 12 labelled texts, all no rule
    r"|(?i:^\W*(?:[a-z][\w.-]*|my\s+\w+|our\s+\w+)['\u2019]s\s+(?:top\s+|best\s+|golden\s+|one\s+)?(?:tip|advice)\b)"
    r"|听我一句|听我讲[\uff0c,\u3001\uff1a:]|我劝你"
)


def advised(text: str) -> bool:
    """Whether `text` is framed as a tip or advice from experience (`ADVICE`)."""
    return bool(ADVICE.search(simplified_han(text)))


# An instruction for one occasion, said so: "just for tonight", "this once", "For the party menu:",
# "Booking for the Lakes rally:", "就这一次". The brief labels one-off requests no rule; without a
# standing scope ("from now on", "以后", "always…") the models need not weigh it. One that would
# relax a control stays held (`policy`). Over the labelled sets (batch 61 included) 114 texts read
# so, all no rule ("Rule for the whole trip: …" is a rule, and is not read so).
ONE_OCCASION = re.compile(
    r"(?i)\b(?:just\s+for\s+(?:today|tonight|tomorrow|this\s+(?:once|time|week|weekend|trip)|the\s+(?:day|night|weekend))"
    r"|for\s+(?:today|tonight|tomorrow)\s+only|only\s+for\s+(?:today|tonight|tomorrow|this\s+(?:once|time|trip|weekend))"
    r"|this\s+once)\b"
    r"|(?i:(?:^|[.!?]\s+)(?!rules?\b)(?:\w+\s+)?for\s+(?:the|our|my|this|tomorrow\W?s|tonight\W?s"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\W?s)\s+(?:[\w-]+\s+){0,2}"
    r"(?:party|wedding|funeral|barbecue|bbq|picnic|trip|rally|match|event|launch|reunion|dinner|lunch|christening"
    r"|service|do|gig|show|meal|sleepover|playdate|outing|visit)(?:\s+(?:menu|day|night|weekend|list|plan))?\s*[:,])"
    r"|只是这次|就这一次|仅限今天|仅此一次|就今天|今天先"
)
# A message that opens with today, tonight or tomorrow ("Tonight: 42 buses in…", "今晚焙笼温度不要超过
# 九十度…"), not "from" it on ("听日起…") nor "and every day after" (`OFTEN`): over the labelled sets
# (batch 62 included) 1,940 messages open so, 4 of them rules, each with a standing scope ("…以后…"),
# which stays a rule.
OPENS_WITH_TODAY = re.compile(
    r"^\W*(?i:tonight|tomorrow|today|this\s+(?:morning|afternoon|evening))\b(?!\s+(?:on|onwards?)\b)"
    r"|^\W*(?:今晚|今夜|今日|今天|明天|明晚|听日)(?!起|开始|以后|以來|以来)"
)


def one_occasion(text: str) -> bool:
    """Whether `text` tells its instruction for one occasion (`ONE_OCCASION`) and for no longer
    (`standing_scope`)."""
    simple = simplified_han(text)
    today = OPENS_WITH_TODAY.search(simple) and not OFTEN.search(simple)
    return bool(ONE_OCCASION.search(simple) or today) and not standing_scope(simple)


# The speaker's own habit, told as one: "I usually skip breakfast", "I tend to work better at
# night", "我习惯每天早上先回邮件再开会", "我一般11点睡6点半起", "我自己習慣每個新娘試妝前都先問過
# 敏史". The brief labels habits no rule: what one does is no order to anyone. Only without a
# standing scope or a request's word beside it ("I usually skip breakfast, so never book me before
# 10" asks for one). Over the labelled sets (batch 61 included) 35 texts read so, all no rule, 2 of
# them held before.
HABIT = re.compile(
    r"(?i)\bI\s+(?:usually|normally|generally|typically|tend\s+to)\b|\bI(?:'m|\s+am)\s+in\s+the\s+habit\s+of\b"
    r"|\bmy\s+(?:habit|routine)\s+is\b|^\W*(?:usually|normally|generally),?\s+I\b"
    r"|我(?:自己)?(?:一直|平时|向来|一向)?(?:都)?习惯|我(?:自己)?(?:一般|通常|平常)"
)


def habitual(text: str) -> bool:
    """Whether `text` tells the speaker's own habit (`HABIT`) and asks nothing (`standing_scope`,
    `REQUEST`), or a rule the speaker set themselves (`OWN_RULE`)."""
    simple = simplified_han(text)
    if OWN_RULE.search(simple):
        return True
    return bool(HABIT.search(simple)) and not standing_scope(simple) and not REQUEST.search(simple)


# A rule the speaker sets for themselves ("我给自己定个规矩, 以后…一分钱都不转", "New rule for myself:
# no phone for the first hour"): a resolution, which the brief labels no rule, standing scope and all.
# 10 labelled texts say so, 8 no rule; the 2 rules are a relaxation (held still) and a standing
# instruction that only quotes a promise ("…remind me I promised myself…", not read so).
OWN_RULE = re.compile(r"给自己定|给自己立|(?i:\brule\s+for\s+myself\b|\bmy\s+own\s+rule\b)")


def scoped_out(plain: str) -> bool:
    """Whether `plain`'s own words say its instruction is no standing rule: still undecided, advice
    framed as a tip, for one occasion, or the speaker's own habit. A relaxation so said is still
    held (`judgement.policy`)."""
    plain = untagged(plain)
    return bool(plain) and (undecided(plain) or advised(plain) or one_occasion(plain) or habitual(plain))
