"""Chinese as the entity rules read it: traditional characters as simplified and everyday
Cantonese words as their Mandarin ones ("我2011年同陳家豪結婚", "家豪個妹", "老細係梁國輝"), each
replacement the same length as what it replaces, so a name found in the folded text is at the same
place in the text as written (`as_written` takes it from there).
"""

from __future__ import annotations

import re

from memory_core.reading.words import ZH_BARE_KIN, ZH_SIMPLIFIED

# The characters of the words the relation rules and the kin words read, beyond those the
# statement rules already fold (`reading.words.ZH_SIMPLIFIED`).
_MORE = str.maketrans(
    "結離後職辭機業親爺婦嬸際紀廠鋪舖貨運遷搵識幫邨樓層鄰處細籬詩詠輝畢聽顧嬤負責專輪齊調換進節遊",
    "结离后职辞机业亲爷妇婶际纪厂铺铺货运迁找识帮村楼层邻处细篱诗咏辉毕听顾嬷负责专轮齐调换进节游",
)
# Cantonese words as the Mandarin the rules read, each of the same length (after the characters
# are folded): 係 是, 喺 在, 咗 了, 嘅 的, 畀 给, 嗰 那, 哋 们, 佢 他; kin and work words.
_WORDS = {
    "老细": "老板",
    "细佬": "弟弟",
    "家姐": "姐姐",
    "阿哥": "哥哥",
    "个名叫": "的名叫",  # "嫲嫲個名叫何桂英": her name is
    "契妈": "干妈",
    "契爷": "干爹",
    "家婆": "婆婆",
    "家公": "公公",
    "阿妈": "妈妈",
    "阿爸": "爸爸",
    "后母": "继母",
    "老豆": "老爸",  # (as traditional and simplified write it: 老豆, 老竇)
    "老窦": "老爸",
    "孙仔": "孙子",  # "我個孫仔", "外孫仔": a grandson
    "隔篱": "隔壁",
    "而家": "现在",  # Cantonese "now": "阿強而家住喺我度" names 阿強
    # "我個仔", "我個女": my son, my daughter (个 here is no counter: "生了个仔" stays).
    "我个仔": "我儿子",
    "我个女": "我女儿",
    "我屋企个仔": "我们的儿子",  # "我屋企個仔": the son of my home
    "我屋企个女": "我们的女儿",
    # "BB女叫心怡", "我個BB仔": the baby daughter, the baby son (Hong Kong).
    "BB女": "小女儿",
    "BB仔": "小儿子",
    "bb女": "小女儿",
    "bb仔": "小儿子",
}
_CHARS = str.maketrans("係喺咗嘅畀嗰哋佢嚟", "是在了的给那们他来")
# Traditional as simplified in one pass (a graph's aliases are folded on every load).
_SIMPLIFIED = {**ZH_SIMPLIFIED, **_MORE}
_WORD = re.compile("|".join(sorted(_WORDS, key=len, reverse=True)))
# "家豪個妹" (Cantonese: 家豪's sister): 个 between a name and a kin word is a possessive, not the
# counter of "一个女儿", "生了个仔".
_POSSESSIVE = re.compile(
    r"(?<=[\u4e00-\u9fff])(?<![一二两兩三四五六七八九十几幾这那每某整半了有])个(?=[\u4e00-\u9fff])"
)
# "我有两个小孩, 哥哥叫宥辰, 妹妹叫语彤": after the children are counted, their brother and sister
# words are the children's to each other, the speaker's son and daughter. Counted, or said as twins
# or as a son and a daughter ("我家雙胞胎, 哥哥叫宥宥", "我有一儿一女, 哥哥是小宇", "我哋屋企兩個仔").
_CHILDREN_COUNTED = re.compile(
    r"(?:我们|我|咱们|咱)(?:家|的|屋企)?(?:有|生了|养了)?(?:(?:两|兩|三|四|2|3|4)个"
    r"(?:小孩|孩子|娃|宝宝|宝贝|仔女|子女|小朋友|囡囡|女儿|儿子|仔|女)|对?双胞胎|对?龙凤胎|一[儿仔]一女)"
)
_THEIR_SIBLING = re.compile(r"(?<![\u4e00-\u9fff])(?:哥哥|弟弟|姐姐|妹妹)(?=叫|名叫|是(?![我你他她]))")
_SENTENCE_END = re.compile(r"[\u3002.!\uff01?\uff1f\n]")
_AS_CHILD = {"哥哥": "儿子", "弟弟": "儿子", "姐姐": "女儿", "妹妹": "女儿"}


# "我家儿子", "我们家老大", "咱家闺女": the household's child is the speaker's (家 as 的); 老大, 老二…
# after it are the children by birth order (not "我们老大", the boss at work).
_HOUSEHOLD = re.compile(r"(?P<who>我们|咱们|我|咱)家(?P<order>老[大二三四五六七幺])?")


_NEXT_IN_ORDER = re.compile(r"(?<=[\uff0c,\u3001\uff1b;\u3002\s])老[二三四五六七幺](?=叫|是|今年|[\uff0c,])")


def _household(match: re.Match[str], kin_words: tuple[str, ...]) -> str:
    order = match.group("order")
    if not order and not match.string.startswith(kin_words, match.end()):
        return match.group(0)
    who = match.group("who").replace("咱", "我")
    return who + "的" + ("孩子" if order else "")


# A clause opening with the bare classifier (`ZH_BARE_KIN`) as the kin word alone, the speaker's.
_BARE_KIN_AS = {"仔": "儿子", "女": "女儿"}


def as_mandarin(text: str, kin_words: tuple[str, ...] = ()) -> str:
    """`text` with traditional characters as simplified and Cantonese words as Mandarin, of the
    same length; 个 before one of `kin_words` after a name as 的, 家 after the speaker before one
    of them as 的."""
    folded = text.translate(_SIMPLIFIED).translate(_CHARS)
    folded = _WORD.sub(lambda match: _WORDS[match.group(0)], folded)
    folded = ZH_BARE_KIN.sub(lambda match: _BARE_KIN_AS[match.group("kin")], folded)
    if kin_words:
        folded = _POSSESSIVE.sub(
            lambda match: "的" if folded.startswith(kin_words, match.end()) else match.group(0), folded
        )
        in_order = any(match.group("order") for match in _HOUSEHOLD.finditer(folded))
        folded = _HOUSEHOLD.sub(lambda match: _household(match, kin_words), folded)
        if in_order:
            # "我们家老大叫果果, 老二叫米米": the order words after the first are the same home's.
            folded = _NEXT_IN_ORDER.sub("孩子", folded)
        counted = _CHILDREN_COUNTED.search(folded)
        if counted:
            # In the same sentence only, and only as they are named ("哥哥叫宥辰"): "我有两个孩子,
            # 妹妹今年结婚了" is the speaker's sister.
            end = _SENTENCE_END.search(folded, counted.end())
            stop = end.start() if end else len(folded)
            named = _THEIR_SIBLING.sub(lambda match: _AS_CHILD[match.group(0)], folded[counted.end() : stop])
            folded = folded[: counted.end()] + named + folded[stop:]
    return folded


def simplified(text: str) -> str:
    """`text` with traditional characters as simplified, of the same length."""
    return text.translate(_SIMPLIFIED)


def as_written(said: str, folded: str, written: str) -> str:
    """What `said` (found in `folded`, the folded form of `written`) is as written: the same
    place in `written`; `said` itself when it is not in `folded`."""
    if not said or folded == written:
        return said
    start = folded.find(said)
    return written[start : start + len(said)] if start >= 0 else said
