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

from memory_core.embeddings import LocalEmbedder, get_embedder, query_cache
from memory_core.guards.policy import PolicyCheck, answer_style, policy_check
from memory_core.guards.secrets import REDACTED, SecretScan, scan_secrets
from memory_core.guards.secrets.candidates import candidates
from memory_core.guards.secrets.lexicon import CJK_DIGITS, DIGIT_NAMES
from memory_core.guards.secrets.text import sentence_spans

from .features import row
from .model import models, stacked

__all__ = ["PINNED_WHO", "UNJUDGED", "Safety", "known_vector", "policy", "safety", "scores", "secrets"]

PINNED_WHO = ("user", "dependant")
UNJUDGED = "unjudged"  # too long for the model: the reader's own safety facts decide
LEARNED_SECRET = "secret (learned)"  # noqa: S105  # the kind's name, not a secret
_VALUE_SHAPES = {"digits", "credential", "idlike", "quoted", "iban", "nino"}
_MAX_SENTENCES = 12
# The models learned from sentences of up to about forty words; past this their scores say
# nothing, and the patterns of `guards` alone decide (a 3,000-character shopping list).
LONGEST_JUDGED = 400
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# Dates and times are never a secret's value: "on 20 January 2023", "2023-05-08", "at 14:05", "3月8日".
_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+(?:19|20)\d\d)?\b|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+(?:19|20)\d\d)?\b"
    r"|\b(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)?\d\d\b|\b\d{1,2}:\d{2}\b"
    r"|\b(?:in|of|since|by)\s+(?:19|20)\d\d\b|(?:19|20)\d\d\s*年|\d{1,2}\s*月\s*\d{1,2}\s*[日号]",
    re.IGNORECASE,
)
# A phone number: eight digits or more in one run of digits, spaces and hyphens ("0300 123 4567").
_PHONE = re.compile(r"\+?\d(?:[\s-]?\d){7,}")


def _others_numbers(sentence: str) -> bool:
    """Whether the numbers of a flagged sentence with no value-shaped span belong to something
    that is not a secret: its dates, a phone number, an identifier ("ABC-5678", "SM-S9180")."""
    if _dates(sentence) or _PHONE.search(sentence):
        return True
    return any(c.shape == "idlike" for c in candidates(sentence, 0))


_NUMERIC_DATE = re.compile(r"\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}")


def _dates(sentence: str) -> list[re.Match[str]]:
    """The dates and times of a sentence. A numeric one must have a day and a month in it:
    "18-40-26" is a combination, not a date."""
    found = _DATE.finditer(sentence)
    return [m for m in found if not _NUMERIC_DATE.fullmatch(m.group()) or _calendar(m.group())]


def _calendar(text: str) -> bool:
    parts = [int(p) for p in re.split(r"[-/.]", text)]
    if len(str(parts[0])) == 4 or parts[0] >= 1900:  # 2023-05-08
        return 1 <= parts[1] <= 12 and 1 <= parts[2] <= 31
    day_month = 1 <= parts[0] <= 31 and 1 <= parts[1] <= 12
    month_day = 1 <= parts[0] <= 12 and 1 <= parts[1] <= 31
    return day_month or month_day


# A credential-shaped word holds a digit or a symbol inside it ("Tr0ub4dor&3"), not only a
# closing mark ("spirit!").
_CREDENTIAL_CORE = re.compile(r"[^A-Za-z]")
# A secret is told one to a few values a sentence ("PIN 1234 and CVV 381"); more is a list.
MOST_VALUES = 4
# A sentence with no value-shaped span (a security answer, a passphrase of plain words) is refused
# whole only when the model is this sure.
SURE_WITHOUT_VALUE = 0.7
_DIGIT_WORD = "(?:" + "|".join([*DIGIT_NAMES, "oh", *CJK_DIGITS, "\u3007", "两"]) + ")"
# Three or more digits written out ("four seven seven one", "六六八八"): a value in words.
_SPELLED_RUN = re.compile(rf"(?<![A-Za-z]){_DIGIT_WORD}(?:[\s,\-]*{_DIGIT_WORD}){{2,}}(?![A-Za-z])", re.I)


@dataclass(frozen=True)
class Safety:
    """`who` the safety fact is about (user, dependant, other, none; `UNJUDGED` past the models'
    reach) and whether it is pinned."""

    who: str
    probability: float

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
    """Each model's probabilities for `text` (binary models: the positive class)."""
    loaded = models()
    if not text.strip() or not loaded:
        return {}
    rows = row(text, _vectors([text])[0])
    weights, columns = stacked(loaded)
    products = rows @ weights.T
    return {
        name: tuple(float(p) for p in model.from_products(products[:, columns[name]])[0])
        for name, model in loaded.items()
    }


def _positive(name: str, text: str) -> bool:
    model = models().get(name)
    found = scores(text).get(name)
    return model is not None and bool(found) and found[-1] >= model.threshold  # type: ignore[index]


def _sentences(text: str) -> list[str]:
    parts = [text[a:b].strip() for a, b in sentence_spans(text)]
    parts = [p for p in parts if len(p) > 2]
    return parts[:_MAX_SENTENCES] if len(parts) > 1 else []


def policy(text: str, *, type: str | None = None) -> PolicyCheck:
    """`guards.policy.policy_check`'s answer, decided by the models (see the module docstring)."""
    check = policy_check(text, type=type)
    plain = " ".join((text or "").split())
    if not plain:
        return check
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
    normative = not own_style and any(_positive("normative", p) for p in pieces)
    is_rule = type == "procedural" or weakens or normative
    if weakens and not check.weakens:
        return PolicyCheck(is_rule=True, weakens=True, control="policy", reason="relaxes a control")
    if weakens:
        return check
    reason = "reads as a standing rule or instruction; an operator must approve it" if is_rule else ""
    return PolicyCheck(is_rule=is_rule, weakens=False, reason=reason)


def _judgeable(sentence: str) -> bool:
    """Within the models' reach: a sentence of three words or more (six characters of Chinese) and
    at most `LONGEST_JUDGED` characters. A bare value ("2024-08-02" in metadata) is the patterns'."""
    if len(sentence) > LONGEST_JUDGED:
        return False
    han = sum(1 for c in sentence if "\u4e00" <= c <= "\u9fff")
    return han >= 6 or len(sentence.split()) >= 3


def _value_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of a flagged sentence that can hold its secret: value-shaped (digits, a
    credential-like token, a quoted string, digits written out), not a number an identifier owns
    ("ticket INC-20931", "order 88231")."""
    sentence = text[start:end]
    dates = [(start + m.start(), start + m.end()) for m in _dates(sentence)]
    spans = [
        (c.start, c.end)
        for c in candidates(sentence, start)
        if c.shape in _VALUE_SHAPES
        and c.loose_ok
        and not any(a <= c.start and c.end <= b for a, b in dates)
        and (c.shape != "credential" or _CREDENTIAL_CORE.search(text[c.start : c.end].rstrip("!?.,;:")))
    ]
    return spans + [(start + m.start(), start + m.end()) for m in _SPELLED_RUN.finditer(sentence)]


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
    if whole and not _secret_score(plain) >= model.threshold:
        return scan
    flagged = _flagged_sentences(text, model.threshold)
    if whole and not flagged:
        # Flagged whole, no sentence alone: the statement's value-shaped spans are its values.
        spans = _value_spans(text, 0, len(text))
        flagged = spans if len(spans) <= MOST_VALUES else []
    return _with_values(scan, text, flagged)


def _secret_score(text: str) -> float:
    found = scores(text).get("secret")
    return found[-1] if found else 0.0


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
        spans = _value_spans(text, start, end)
        if len(spans) > MOST_VALUES:
            continue  # a list of codes or items, not a secret told (patterns still apply)
        if spans:
            flagged += spans
        elif score >= SURE_WITHOUT_VALUE and not _others_numbers(text[start:end]):
            # A sentence whose numbers are something else's (a date, a phone number, a plate, a
            # model number) tells none; otherwise it may (a security answer, a code after "number").
            flagged.append((start + len(text[start:end]) - len(text[start:end].lstrip()), end))
    return flagged


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


def safety(text: str) -> Safety:
    """Whose safety fact `text` states, if anyone's (see `Safety`)."""
    model = models().get("safety")
    plain = " ".join((text or "").split())
    if len(plain) > LONGEST_JUDGED:
        return Safety(who=UNJUDGED, probability=0.0)
    found = scores(plain).get("safety") if model else None
    if not model or not found:
        return Safety(who="none", probability=0.0)
    probabilities = np.asarray(found)
    pinned = sum(probabilities[model.classes.index(who)] for who in PINNED_WHO)
    if pinned >= model.threshold:
        who = max(PINNED_WHO, key=lambda w: probabilities[model.classes.index(w)])
        return Safety(who=who, probability=float(pinned))
    best = int(np.argmax(probabilities))
    who = model.classes[best] if model.classes[best] not in PINNED_WHO else "none"
    return Safety(who=who, probability=float(pinned))
