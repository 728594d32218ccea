"""A user's own answer-style preference: how the assistant should answer *them* (length, format,
language, tone), said to the assistant ("keep your replies to me short", "回复我的时候请尽量简短").

It reads like an imperative, but it is a preference about answers to this user (chat/style.py puts
such preferences into every turn of that user's chat), not a rule about a process or other people,
so it needs no operator's review. A style instruction with no such audience ("keep answers under 200
words", "reply in Spanish when the customer writes in Spanish") is still a rule, and a preference
that also relaxes a control is still flagged: the callers check relaxations first.
"""

from __future__ import annotations

import re

# What the preference shapes: the words chat/style.py's `STYLE_PATTERN` picks a preference by (so
# the chat applies every preference read here), as word starts.
_EN_STYLE = re.compile(
    r"\b(?:answer|repl(?:y|ies)|respon(?:se|d)|explanation|explain|summar|bullet|list|table|markdown"
    r"|format|emoji|tone|formal|casual|polite|language|in (?:english|chinese|french|german|spanish"
    r"|portuguese|japanese|korean|italian|dutch))"
)
# The speaker as the one answered: "to me", "answer me", "when you talk to me".
_EN_AUDIENCE = re.compile(
    r"\b(?:(?:to|for|with) me"
    r"|(?:answer|reply|respond|talk|speak|write|explain) (?:it |things |this )?(?:to )?me"
    r"|me (?:in|with) (?:english|chinese|french|german|spanish|japanese|korean|bullet|short|plain|simple))\b"
)
_ZH_STYLE = re.compile(r"回答|回复|答复|简短|简洁|详细|语气|格式|中文|英文|列表|表格")
# "回复我", "跟我说话", "给我解释", "对我说", "我的问题": the user is the one answered.
_ZH_AUDIENCE = re.compile(r"(?:回复|回答|答复|回|跟|对|和|给|同|向)我|我的问题|我问")


def answer_style(sentence: str) -> bool:
    """Whether one sentence (lower-cased English or Chinese) states how the speaker wants to be answered."""
    return bool(
        (_EN_STYLE.search(sentence) and _EN_AUDIENCE.search(sentence))
        or (_ZH_STYLE.search(sentence) and _ZH_AUDIENCE.search(sentence))
    )
