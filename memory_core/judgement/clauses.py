"""Where a statement's clauses end, for the judgements that read a part of a statement alone: a
condition stated beside an instruction (`screening.fact_within_rule`), or inside a message about
something else (`judgement.safety`: "Sorry about the jam earlier, I came over all shaky. I'm type 2
and skipped lunch")."""

from __future__ import annotations

import re

from memory_core.guards.secrets.text import sentence_spans

# A stated condition comes before the instruction built on it ("我有癫痫,一直吃着丙戊酸钠。巡山时我要是
# 突然倒了别慌…", "Mia is allergic to sesame, so no tahini") or after it, as its reason ("…, because I
# have epilepsy", "…因为我有哮喘"). Punctuation ends a clause, and so does the word that opens the
# next, for text said without punctuation (voice input:
# "我有癫痫平时一直吃着药所以塔吊附近的活以后都别派给我了"), as does a space between Chinese words, where
# voice input puts its pauses ("明天六点半集合 带好手套 我糖尿病要先打针吃早饭 可能晚十分钟到").
CLAUSE_END = re.compile(
    r"[,;:.!?\u2014\u2013\uff0c\u3001\uff1b\uff1a\u3002\uff01\uff1f]+\s*|\s+-\s+"
    r"|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])"
    r"|\s(?=(?:so|and|because|since|cause|cos|cuz|coz|from\s+now\s+on|going\s+forward)\s)"
    r"|(?=因为|因為|由于|由於|所以|以后|以後|今后|今後|往后|往後)"
    # "…不然要冻裂我这风湿性关节炎手指头弯不了…": the speaker said again mid-sentence opens a clause,
    # unless a word that takes an object comes before ("给我", "跟我", "帮我", "让我", "是我").
    r"|(?<=[\u3400-\u9fff])(?<![给跟和帮让叫对把被替为陪同与教问找请带送等是像比说令使将向从到由连])(?=我(?![们們]))"
)
_TRIM = " ,;:\uff0c\u3001\uff1b\uff1a"
# Past this many parts a statement is a list or a document, not a message with a condition in it.
MOST_PARTS = 12


def parts(text: str) -> list[str]:
    """The sentences of `text` and the clauses of each, in order, each once, the whole text not
    among them; at most `MOST_PARTS`."""
    found: list[str] = []
    for start, end in sentence_spans(text):
        sentence = text[start:end].strip()
        found.append(sentence)
        # Each clause from the end of one cut to the start of the next: the mark that ends a clause
        # (a full-width question mark, "!") is neither clause's.
        ends = list(CLAUSE_END.finditer(sentence))
        starts = [0, *(m.end() for m in ends)]
        stops = [*(m.start() for m in ends), len(sentence)]
        found += [sentence[a:b].strip(_TRIM) for a, b in zip(starts, stops, strict=True)]
    whole = text.strip()
    return [p for p in dict.fromkeys(found) if p != whole and any(c.isalnum() for c in p)][:MOST_PARTS]
