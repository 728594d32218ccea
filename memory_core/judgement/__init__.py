"""Judgement on the write path: is a statement a standing rule, does it relax a control, does it
carry a secret, is it a safety fact and about whom. Learned linear models (`model`) over the
sentence embedding and hashed n-grams (`features`), trained by `manage.py train_judgement` on the
labelled sets in `data/` split by paraphrase family (`train`); the high-precision patterns of
`guards` (Luhn, IBAN, token formats, a control's polarity) stand beside them. Figures: docs/trust.md.

- `policy(text)`: a rule when the normative model says so, or when a control is relaxed (by the
  weakening model or the polarity patterns): a weakening rule is never missed for want of a
  rule-like wording. Ordinary conversation ("keep going, you've got this!") is no rule.
- `secrets(text)`: the pattern scan, plus every sentence the secret model says carries a secret
  value ("the four digits that open my phone are 8214"): its value-shaped spans, else the sentence.
- `safety(text)`: whose safety fact it is: the user's, a dependant's (pinned), someone else's or
  none (not pinned).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from memory_core import process_caches
from memory_core.embeddings import LocalEmbedder, get_embedder, query_cache
from memory_core.guards.policy import (
    PolicyCheck,
    answer_style,
    asks_beyond_style,
    policy_check,
)
from memory_core.guards.secrets import REDACTED, SecretScan, scan_secrets
from memory_core.guards.secrets.candidates import candidates, periods
from memory_core.guards.secrets.text import sentence_spans
from memory_core.language import has_cjk
from memory_core.reading.words import (
    GRANDPARENTS_OWNED,
    GRANDPARENTS_SAID_OTHERWISE,
    ZH_BARE_KIN,
    alternation,
)

from . import clauses
from .encoder import SAFETY_OUTPUTS
from .encoder import encoder as loaded_encoder
from .encoder import safety_encoder as loaded_safety_encoder
from .features import row
from .model import models, stacked
from .scope import a_missed_meal, as_directive, scoped_out, standing_scope, untagged
from .spans import dates, span_matrix, value_spans

__all__ = [
    "PINNED_WHO",
    "UNJUDGED",
    "Safety",
    "encoder_read",
    "known_vector",
    "policy",
    "reaches",
    "safety",
    "scores",
    "secrets",
]

PINNED_WHO = ("user", "dependant")
UNJUDGED = "unjudged"  # too long for the model: the reader's own safety facts decide
LEARNED_SECRET = "secret (learned)"  # noqa: S105  # the kind's name, not a secret
# A secret is told one to a few values a sentence ("PIN 1234 and CVV 381"); more is a list.
MOST_VALUES = 4
# A sentence with no value-shaped span (a security answer, a passphrase of plain words) is refused
# whole only when the model is this sure.
SURE_WITHOUT_VALUE = 0.7
# A sentence whose only numbers the shape rules give to something else (a date, an identifier, a
# number a word owns) keeps them when the model is this sure it tells a secret: "the safe is
# 31-07-88", "the door … it's C1994X now", "…, for Grandma's phone: 0904" were stored. Over the
# 83,999 labelled texts (training data: read after their first scores), it refuses 54 more secrets
# and 3 more texts that are none ("hotel room is 1417", a CVE advisory, a new starter's staff
# number); batch 53's first score touched none of its texts (docs/trust.md).
SURE_OF_SET_ASIDE = 0.95
_MAX_SENTENCES = 12
# The models learned from sentences of up to about forty words; past this their scores say
# nothing, and the patterns of `guards` alone decide (a 3,000-character shopping list).
LONGEST_JUDGED = 400
# A phone number: eight digits or more in one run of digits, spaces and hyphens ("0300 123 4567").
_PHONE = re.compile(r"\+?\d(?:[\s-]?\d){7,}")


# Where a secret is kept, not what it is: "the locker code is in the blue notebook", "the PIN's
# written on a card in my wallet", "密码写在抽屉里的本子上". A sentence with no value-shaped span that
# says where tells no value, however sure the secret model is that a secret is near.
_TELLS_WHERE = re.compile(
    r"(?i)\b(?:code|codes|password|passwords|passcode|pin|pins|combination|passphrase|login|logins|"
    r"details|number|numbers|key|keys)(?:'s)?\s+"
    r"(?:is|are|was|were|stays?|lives?|sits?|gets?\s+kept)\s+(?:always\s+|still\s+|now\s+)?"
    r"(?:(?:kept|written|stored|saved|taped|stuck|pinned|noted|jotted|printed|hidden|tucked|filed|"
    r"locked|scribbled)\s+(?:down\s+)?)?"
    r"(?:in|on|under|inside|behind|beneath|underneath|next\s+to)\s+"
    r"(?:the|my|our|his|her|their|a|an|mum's|mom's|dad's)\b"
    r"|(?:密码|密碼|口令|暗号|暗號|号码|號碼|代码|代碼|卡号|卡號)(?:都|就|一直)?"
    r"(?:放|存|写|寫|记|記|藏|贴|貼|夹|夾|锁|鎖|收)?在"
)


def _tells_where(sentence: str) -> bool:
    return _TELLS_WHERE.search(sentence) is not None


def _others_numbers(sentence: str) -> bool:
    """Whether the numbers of a flagged sentence with no value-shaped span belong to something
    that is not a secret: its dates, a phone number, an identifier ("ABC-5678", "SM-S9180"), or a
    number a word owns ("died at 2140", "order 88231"): a sentence with a number that is not the
    value is no security answer told in words; nor is one whose numbers are a period
    ("0800开到1800")."""
    if dates(sentence) or periods(sentence) or _PHONE.search(sentence):
        return True
    return any(c.shape in ("idlike", "digits") for c in candidates(sentence, 0))


@dataclass(frozen=True)
class Safety:
    """`who` the safety fact is about (user, dependant, other, none; `UNJUDGED` past the models'
    reach) and whether it is pinned: `probability` that it is the user's or a dependant's,
    `anyone` that it is someone's at all (a condition whose subject the text alone cannot place:
    "Kojo has sickle cell")."""

    who: str
    probability: float
    anyone: float = 0.0
    other: float = 0.0  # that it is someone else's (not the user's, nor a dependant's)

    @property
    def pinned(self) -> bool:
        return self.who in PINNED_WHO


def _vectors(texts: list[str]) -> list[list[float]]:
    """The local model's vectors (always the local model, in this process: a text judged for
    secrets is never sent to a remote embedder), through the query cache recall shares."""
    embedder = LocalEmbedder()
    return [embedder.embed_query(text) for text in texts]


def known_vector(text: str) -> list[float] | None:
    """The vector the judgement computed for `text`, when the store embeds with the same model
    (so the write path does not embed a judged statement twice); None otherwise."""
    embedder = get_embedder()
    if embedder.name != LocalEmbedder.name or embedder.dimensions != LocalEmbedder.dimensions:
        return None
    vector = query_cache.get((embedder.name, embedder.dimensions, text))
    return list(vector) if vector is not None else None


@lru_cache(maxsize=4096)
def scores(text: str) -> dict[str, tuple[float, ...]]:
    """Each text model's probabilities for `text` (binary models: the positive class)."""
    loaded = models()
    if not text.strip() or not loaded:
        return {}
    rows = row(text, _vectors([text])[0])
    weights, columns = stacked(loaded)
    products = rows @ weights.T
    return {
        name: tuple(float(p) for p in model.from_products(products[:, columns[name]])[0])
        for name, model in loaded.items()
        if name in columns
    }


process_caches.register_lru(scores)


@lru_cache(maxsize=4096)
def encoder_read(text: str) -> tuple[float, ...]:
    """The fine-tuned encoder's outputs for `text` (`encoder.OUTPUTS`); empty without one."""
    reader = loaded_encoder()
    return tuple(float(p) for p in reader.probabilities([text])[0]) if reader is not None else ()


process_caches.register_lru(encoder_read)


@lru_cache(maxsize=4096)
def safety_encoder_read(text: str) -> tuple[float, ...]:
    """The safety encoder's outputs for `text` (`encoder.SAFETY_OUTPUTS`); empty without one."""
    reader = loaded_safety_encoder()
    return tuple(float(p) for p in reader.probabilities([text])[0]) if reader is not None else ()


process_caches.register_lru(safety_encoder_read)


def reaches(name: str, text: str, cut: float) -> bool:
    """Whether a binary decision's probability for `text` is at least `cut`: the linear model's,
    or for a decision the encoder is averaged into, the average. The encoder's pass (a few
    milliseconds) runs only when the linear score leaves the answer open: below `2 * cut - 1` no
    encoder's score can lift the average to the cut, which is most statements at the rule's
    threshold."""
    found = scores(text).get(name)
    if not found:
        return False
    linear = found[-1]
    reader = loaded_encoder()
    if reader is None or name not in reader.blended:
        return linear >= cut
    if (linear + 1) / 2 < cut:
        return False
    if linear / 2 >= cut:
        return True
    return (linear + reader.decision(name, np.asarray(encoder_read(text)))) / 2 >= cut


def _positive(name: str, text: str) -> bool:
    model = models().get(name)
    return model is not None and reaches(name, text, model.threshold)


def _sentences(text: str) -> list[str]:
    parts = [text[a:b].strip() for a, b in sentence_spans(text)]
    parts = [p for p in parts if len(p) > 2]
    return parts[:_MAX_SENTENCES] if len(parts) > 1 else []


# The model's score that holds a statement with a standing scope, and one of its sentences (see
# `scope`: the normative model under-scores a standing request built on a condition).
STANDING_FLOOR = 0.4
STANDING_SENTENCE_SURE = 0.9


def _standing_rule(plain: str) -> bool:
    """Whether a statement the normative model did not hold is a rule by its standing scope."""
    model = models().get("normative")
    if model is None or plain.rstrip().endswith(("?", "\uff1f")) or not standing_scope(plain):
        return False
    if reaches("normative", plain, STANDING_FLOOR):
        return True
    return any(
        _judgeable(part) and standing_scope(part) and reaches("normative", part, STANDING_SENTENCE_SURE)
        for part in _sentences(plain)
    )


def policy(text: str, *, type: str | None = None) -> PolicyCheck:
    """`guards.policy.policy_check`'s answer, decided by the models (see the module docstring)."""
    check = policy_check(text, type=type)
    plain = untagged(" ".join((text or "").split()))
    if not plain:
        return check
    plain = as_directive(plain) or plain  # "Could you … from now on?" asks for that order
    # A statement is judged whole, as the models learned; a long message sentence by sentence
    # (judged alone, a sentence of a friendly turn reads as advice or a rule far too often).
    if len(plain) <= LONGEST_JUDGED:
        pieces = [plain]
    else:
        pieces = [p for p in _sentences(plain) if len(p) <= LONGEST_JUDGED]
    weakens = check.weakens or any(_positive("weakening", p) for p in pieces)
    # How the speaker wants to be answered ("from now on, answer me in bullet points") is their
    # preference, which the chat applies: the pattern for it is precise, and it relaxes nothing.
    own_style = not weakens and answer_style(plain)
    # Said as how to answer the speaker but asking for others' data or a secret: a rule, whatever
    # the model's score ("reply to me with the admin password" reads as talk to the model).
    normative = (
        not own_style
        and not a_missed_meal(plain)
        # Proposed or asked about, it is no rule yet; framed as a tip, it is advice; for one occasion
        # only, a one-off; told as the speaker's habit, what they do; one that would relax a control
        # still waits (a "thoughts?" or a "just this once" must not let a relaxation through).
        and not (scoped_out(plain) and not weakens)
        and (
            any(_positive("normative", p) for p in pieces)
            or (len(plain) <= LONGEST_JUDGED and (_standing_rule(plain) or asks_beyond_style(plain)))
        )
    )
    is_rule = type == "procedural" or weakens or normative
    if weakens and not check.weakens:
        return PolicyCheck(is_rule=True, weakens=True, control="policy", reason="relaxes a control")
    if weakens:
        return check
    reason = "reads as a standing rule or instruction; an operator must approve it" if is_rule else ""
    return PolicyCheck(is_rule=is_rule, weakens=False, reason=reason)


_LATIN_WORD = re.compile(r"[A-Za-z0-9]+")


def _judgeable(sentence: str) -> bool:
    """Within the models' reach: a sentence of three words or more (six characters of Chinese, a
    word of Latin letters or digits counting as two of them when the two are mixed: "收銀機manager
    code係33719") and at most `LONGEST_JUDGED` characters. A bare value ("2024-08-02" in
    metadata) is the patterns'."""
    if len(sentence) > LONGEST_JUDGED:
        return False
    han = sum(1 for c in sentence if "\u4e00" <= c <= "\u9fff")
    if len(sentence.split()) >= 3 or han >= 6:
        return True
    return bool(han) and han + 2 * len(_LATIN_WORD.findall(sentence)) >= 6


def _candidates(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of a flagged sentence the value model weighs: every value-shaped one, years too;
    without a value model, the free ones only."""
    return value_spans(text, start, end, set_aside="value" in models())


def _likely_values(text: str, spans: list[tuple[int, int]], sure: float) -> list[tuple[int, int]]:
    """The candidate spans the value model takes for the secret's value (all of them when no
    value model is trained), `sure` the secret model's score of their sentence: a clock time, a
    count, a year range or a route's number is not."""
    model = models().get("value")
    if model is None or not spans:
        return spans
    found = model.probabilities(span_matrix([(text, a, b, sure) for a, b in spans]))[:, -1]
    return [span for span, p in zip(spans, found, strict=True) if p >= model.threshold]


def secrets(text: str) -> SecretScan:
    """`scan_secrets`, plus the values of every sentence the secret model flags: its value-shaped
    spans, or the whole sentence when the model is sure and no span has a value's shape (a
    security answer, a passphrase of plain words)."""
    scan = scan_secrets(text)
    model = models().get("secret")
    if not isinstance(text, str) or not text.strip() or model is None:
        return scan
    plain = " ".join(text.split())
    whole = len(plain) <= LONGEST_JUDGED and _judgeable(plain)
    # A statement is judged whole first, as the models learned (with the vector the write path
    # stores): only a flagged one is read sentence by sentence to find its values, so an ordinary
    # statement of several sentences costs one scoring, not one embedding a sentence.
    sure = _secret_score(plain) if whole else 0.0
    # A value of plain words marked after its word is refused whatever the model's score: told
    # as a challenge and its reply, it reads as ordinary talk to a model of sentences; and beside a
    # number in the same sentence ("Locker 14, and the gym's memorable word is Sycamore"), which the
    # value model may take for the sentence's value instead.
    named = (
        [
            span
            for start, end in sentence_spans(text)[:_MAX_SENTENCES]
            for span in _named_values(text, start, end)
        ]
        if _WORD_VALUE_AFTER.search(text)  # most statements name no password's word: no more work
        else []
    )
    if whole and not sure >= model.threshold:
        return _with_values(scan, text, named)
    flagged = named + _flagged_sentences(text, model.threshold)
    if whole and not flagged:
        # Flagged whole, no sentence alone: the statement's value-shaped spans are its values.
        listed = len(value_spans(text, 0, len(text))) > MOST_VALUES
        flagged = [] if listed else _likely_values(text, _candidates(text, 0, len(text)), sure)
    return _with_values(scan, text, flagged)


def _secret_score(text: str) -> float:
    found = scores(text).get("secret")
    return found[-1] if found else 0.0


# A word a value of plain words is told after ("the code word is 'pineapple'", "challenge
# KESTREL, the reply ORCHARD", 口令 with its question and answer in quotes), and what marks that
# value: quotes, or capitals (four letters or more, so "PIN" is no value).
# Banks and services ask for a word of the user's own beside the password (a "memorable word",
# "security word", "secret answer"; 预留信息 in China's online banking): a credential by its name.
_WORD_VALUE_AFTER = re.compile(
    r"(?i)\b(?:pass(?:word|phrase|code)s?|code\s?words?|safe\s?words?|watchwords?|challenge|countersign"
    r"|(?:memorable|security|secret)\s(?:words?|phrases?|answers?|data|information|info))\b"
    r"|口令|暗号|暗號|暗语|暗語|密语|密語|密码|密碼|预留信息|預留信息|安全问题答案|安全問題答案"
)
# (An apostrophe inside a word, "I've … I'll", is no quote.) A capitalised word counts only told
# right after ("memorable word is Lighthouse"; `_TOLD_RIGHT_AFTER`), as capitals and quotes do.
_MARKED_VALUE = re.compile(
    r"(?<![A-Za-z])[\"\u201c\u300c\u300e'\u2018]([^\"\u201d\u300d\u300f'\u2019]{2,40})"
    r"[\"\u201d\u300d\u300f'\u2019](?![A-Za-z])"
    r"|\b([A-Z][A-Z0-9]{3,})\b"
    r"|\b([A-Z][a-z]{3,}[0-9]*)\b"
)
# What a value is told right after: "is", a colon, 问 and 答, or the word itself ("the countersign
# MARBLE"); "the password is on the SIGN" tells none.
_TOLD_RIGHT_AFTER = re.compile(
    r"(?i)(?:\b(?:is|was|are|be|reply|response|answer|countersign|challenge|password|passphrase|word"
    r"|phrase|data|information|info)"
    r"|[:=\uff1a\u95ee\u7b54\u662f\u4e3a\u554f])\s*$"
)
_NO_VALUE_CAPS = frozenset(
    {"WIFI", "GUEST", "NOTE", "ASAP", "HTTP", "HTTPS", "NEVER", "ALWAYS", "ONLY", "PASSWORD", "CODE"}
)


def _named_values(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The values of plain words a flagged sentence tells after a password's or a code word's
    word: quoted, in capitals, or capitalised (see `_WORD_VALUE_AFTER`)."""
    word = _WORD_VALUE_AFTER.search(text, start, end)
    if word is None:
        return []
    found = []
    for match in _MARKED_VALUE.finditer(text, word.end(), end):
        group = next(g for g in (1, 2, 3) if match.group(g) is not None)
        if group > 1 and match.group(group).upper() in _NO_VALUE_CAPS:
            continue
        if not _TOLD_RIGHT_AFTER.search(text, start, match.start()):
            continue
        found.append(match.span(group))
    return found


def _flagged_sentences(text: str, threshold: float) -> list[tuple[int, int]]:
    """The value spans of the sentences the secret model flags (see `secrets`)."""
    flagged: list[tuple[int, int]] = []
    for start, end in sentence_spans(text)[:_MAX_SENTENCES]:
        sentence = text[start:end].strip()
        if not _judgeable(sentence):
            continue
        score = _secret_score(sentence)
        if score < threshold:
            continue
        if len(value_spans(text, start, end)) > MOST_VALUES:
            continue  # a list of codes or items, not a secret told (patterns still apply)
        spans = _candidates(text, start, end)
        if spans:
            # Only the spans the value model takes: a sentence whose candidates are all something
            # else's (a clock time, a count, a route) tells no value, and is not refused whole.
            flagged += _likely_values(text, spans, score)
        elif score < SURE_WITHOUT_VALUE or _tells_where(text[start:end]):
            continue
        elif not _others_numbers(text[start:end]):
            # No number at all: a security answer, a code after "number", told in words.
            flagged.append((start + len(text[start:end]) - len(text[start:end].lstrip()), end))
        elif score >= SURE_OF_SET_ASIDE:
            flagged += _set_aside(text, start, end)
        # Otherwise its numbers are something else's (a date, a phone number, a plate, a model
        # number), and it tells none.
    return flagged


# A time of day owns the clock time after it ("下午1730", "at 0600"): no code, however sure the
# model is of a sentence about a lock.
_TIME_BEFORE = re.compile(
    r"(?i)(?:\b(?:at|from|by|until|till|before|after|around)|每天|每日|每晚|早上|上午|中午|下午|晚上|凌晨|傍晚"
    r"|夜里)\s*$"
)


def _set_aside(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The numbers of `text[start:end]` the shape rules give to something else (`_others_numbers`):
    its dates, phone-shaped runs, identifiers and numbers a word owns; not a period of clock times
    or years ("live 0600-2200", "0800开到1800") nor a clock time after a time of day."""
    sentence = text[start:end]
    found = [(start + m.start(), start + m.end()) for m in dates(sentence)]
    found += [(start + m.start(), start + m.end()) for m in _PHONE.finditer(sentence)]
    found += [(c.start, c.end) for c in candidates(sentence, start) if c.shape in ("idlike", "digits")]
    ranges = [(start + a, start + b) for a, b in periods(sentence)]
    return [
        (a, b)
        for a, b in found
        if not any(a < d and c < b for c, d in ranges) and not _TIME_BEFORE.search(text, start, a)
    ]


def _with_values(scan: SecretScan, text: str, flagged: list[tuple[int, int]]) -> SecretScan:
    """`scan` with the learned values at `flagged` added and redacted."""
    spans = sorted(set(flagged))
    # A span inside another ("3" of "Tr0ub4dor&3") is not a value of its own, nor is one character
    # (redacted everywhere, it would blank every "3" of a derived text).
    outer = [(a, b) for a, b in spans if not any(c <= a and b <= d and (c, d) != (a, b) for c, d in spans)]
    values = [text[a:b].strip() for a, b in outer]
    values = [v for v in values if len(v) > 1 and v not in scan.values and REDACTED not in v]
    if not values:
        return scan
    redacted = scan.redacted
    for value in sorted(values, key=len, reverse=True):
        redacted = redacted.replace(value, REDACTED)
    kinds = scan.kinds if LEARNED_SECRET in scan.kinds else (*scan.kinds, LEARNED_SECRET)
    return replace(scan, kinds=kinds, values=(*scan.values, *values), redacted=redacted)


# A condition told inside a message about something else ("Sorry about the grader jam earlier, I
# came over all shaky. I'm type 2 and skipped lunch"; "你能不能按月把我的餐饮支出汇总一下?我痛风不能老点
# 海鲜外卖") is a small part of the whole the model reads, and the rest of the message outweighs it.
# A statement the model does not pin is read again part by part (`clauses.parts`) when it finds any
# condition in it at all (`PART_GATE`, so most ordinary turns cost no more), and a part pinned with
# `PART_SURE` pins the statement. Chosen on batch 32 and chit-chat 13, read after their first scores
# with the models of c10fdae: user's and dependants' conditions pinned 79 -> 84 of 107 and 12 -> 13
# of 17, nothing more pinned that is not one; parts read for 79 of chit-chat 13's 600 turns. With
# the models retrained on them, on the test split (recall / precision / ordinary turns pinned):
# whole only 0.837 / 0.907 / 5 of 1,348; parts at 0.8 0.843 / 0.901 / 6; at 0.5 0.857 / 0.887 / 10.
PART_GATE = 0.02
PART_SURE = 0.8
# The safety encoder's pass (a few milliseconds) runs where the regression reads any condition
# at all, as the parts' reading does: most ordinary turns pay nothing for it. It reads text with no
# Han, kana or Hangul in it: MiniLM's vocabulary is English, and on the Chinese rows of batches
# 36-44 and chit-chat 17-25 it ranked conditions worse than the regression (average precision
# 0.746 against 0.923, averaged 0.913), on the English rows better (0.942 against 0.911, averaged
# 0.949; docs/trust.md, "A safety encoder").
SAFETY_ENCODER_GATE = PART_GATE


def safety_encoder_reads(plain: str) -> bool:
    """Whether the safety encoder reads this text (the threshold of its average was chosen on the
    rows it reads)."""
    return not has_cjk(plain)


def _kin_pattern(words: dict[str, str]) -> str:
    return alternation([re.escape(word).replace("_", r"\s+") for word in words])


# Grandparents said in other languages and Englishes ("Nonna", "Ah Gong", "my lola"): read as the
# English word the models learned (`reading.words.GRANDPARENTS_SAID_OTHERWISE`).
_GRANDPARENT_ELSEWHERE = re.compile(
    rf"(?i)(?<![\w'-])(?:(?P<word>{_kin_pattern(GRANDPARENTS_SAID_OTHERWISE)})"
    rf"|(?:(?<=\bmy\s)|(?<=\bour\s))(?P<owned>{_kin_pattern(GRANDPARENTS_OWNED)}))(?![\w-])"
)
_ENGLISH = {"grandmother": "grandma", "grandfather": "grandpa"}
_ANY_SPACE = re.compile(r"\s+")


def _as_english_kin(match: re.Match[str]) -> str:
    said = match.group(0)
    key = _ANY_SPACE.sub("_", said.lower())
    word = _ENGLISH[GRANDPARENTS_SAID_OTHERWISE.get(key) or GRANDPARENTS_OWNED[key]]
    return word.capitalize() if said[0].isupper() else word


def _as_read(text: str) -> str:
    """`text` as the safety model reads it: spaces collapsed, a Cantonese clause's bare kin with its
    我 said (`ZH_BARE_KIN`: the model, which reads "我個女…" as a dependant's at 0.99, read "個女對蝦過
    敏" as someone else's at 0.63), and in English grandparents said in another language as the English word
    (the models learned "Ah Ma" among Chinese words: there a text read so changed 2 of 60 labelled
    readings, both for the worse)."""
    plain = ZH_BARE_KIN.sub(r"我\g<0>", " ".join((text or "").split()))
    return plain if has_cjk(plain) else _GRANDPARENT_ELSEWHERE.sub(_as_english_kin, plain)


def safety(text: str) -> Safety:
    """Whose safety fact `text` states, if anyone's (see `Safety`): the whole statement's reading,
    or one of its parts' when the whole is not pinned (see `PART_SURE`)."""
    plain = _as_read(text)
    if len(plain) > LONGEST_JUDGED:
        return Safety(who=UNJUDGED, probability=0.0)
    whole = _safety_of(plain)
    if whole.pinned or whole.anyone < PART_GATE:  # no model reads anyone as 0
        return whole
    for part in clauses.parts(plain):
        if not _judgeable(part):
            continue
        read = _safety_of(part)
        if read.pinned and read.probability >= PART_SURE:
            return replace(read, anyone=max(read.anyone, whole.anyone))
    return whole


def _safety_of(plain: str) -> Safety:
    """The safety model's reading of one text, whole: whether it is the user's or a dependant's
    condition is the regression's probability averaged with the safety encoder's where the
    regression reads any condition at all (`SAFETY_ENCODER_GATE`) in a text the encoder reads
    (`safety_encoder_reads`), pinned at the threshold chosen for the average."""
    model = models().get("safety")
    found = scores(plain).get("safety") if model else None
    if not model or not found:
        return Safety(who="none", probability=0.0)
    regression = np.asarray(found)
    # Whether it is anyone's condition, and someone else's, stay the regression's: the readings of
    # whose condition downstream (`whose_known`, `screening`) were measured on them, and the
    # encoder reads "she is 8 weeks old" as a pregnancy where the regression reads nothing.
    anyone = float(1.0 - regression[model.classes.index("none")])
    other = float(regression[model.classes.index("other")])
    probabilities, threshold = regression, model.threshold
    reader = loaded_safety_encoder()
    if reader is not None and anyone >= SAFETY_ENCODER_GATE and safety_encoder_reads(plain):
        read = safety_encoder_read(plain)
        encoded = np.array([read[SAFETY_OUTPUTS.index(f"safety:{c}")] for c in model.classes])
        probabilities, threshold = (probabilities + encoded) / 2, reader.threshold
    pinned = sum(probabilities[model.classes.index(who)] for who in PINNED_WHO)
    if pinned >= threshold:
        who = max(PINNED_WHO, key=lambda w: probabilities[model.classes.index(w)])
        return Safety(who=who, probability=float(pinned), anyone=anyone, other=other)
    best = int(np.argmax(probabilities))
    who = model.classes[best] if model.classes[best] not in PINNED_WHO else "none"
    return Safety(who=who, probability=float(pinned), anyone=anyone, other=other)
