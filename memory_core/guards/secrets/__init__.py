"""Secrets: what may never become a memory, in any text derived from the user's words.

`scan_secrets` finds secret values in raw user text and redacts them; `redact_values` and
`contains_values` then check every text derived from it (a rewrite, an excerpt, a title, a reply)
for the same values, so a rewrite cannot carry a secret past the guard. Pure functions over text.

A value is a secret when
- its form alone says so: well-known token prefixes (sk-, ghp_, AKIA, xoxb-, JWT, private key
  blocks, a password inside a URL), long random strings, card numbers (Luhn), IBANs (mod 97),
  PRC resident ids (ISO 7064 MOD 11-2), dashed US SSNs (SSA rules); or
- a secret keyword (English, Chinese and a few other languages) and a value of the right shape
  share a sentence, in either order, up to _REACH characters apart. A plain word counts only after
  "is" / ":" ("my password is sunshine") or as the clause's last word ("the password tulip"); digits
  and credential-shaped strings count anywhere in the sentence.

Decided on purpose: UUIDs and hex strings are identifiers unless a secret keyword is in the
sentence; a hex string in a sentence about a commit, hash or checksum is not a secret; years,
dates, prices, counts, phone numbers and numbers owned by an identifier ("order 88231", "card
ending 4242", "PR 4412") are never values; parcel pickup codes are delivery facts, not secrets; a
card number tied to a card keyword counts even without Luhn. A value found by several keywords is
named after the one tied to it most closely ("my PIN is 4821 and the wifi password is x1").
_REACH (300 characters) covers any real sentence and keeps long inputs linear.

The package: `lexicon` holds the keywords and patterns, `checksums` the number checks, `text` cuts
sentences and digit runs; `forms` finds values by their form, `candidates` the spans a keyword may
take and `linking` which of them it takes; `values` follows known values into derived text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from memory_core import process_caches

from .forms import form_hits
from .lexicon import FULLWIDTH
from .linking import keyword_hits
from .text import sentence_spans
from .values import REDACTED, contains_values, redact_values

__all__ = ["REDACTED", "SecretScan", "contains_values", "redact", "redact_values", "scan_secrets"]


@dataclass(frozen=True)
class SecretScan:
    kinds: tuple[str, ...]
    redacted: str
    values: tuple[str, ...] = field(default=())

    @property
    def found(self) -> bool:
        return bool(self.kinds)


def scan_secrets(text: str) -> SecretScan:
    """Find passwords, PINs, one-time codes, keys and tokens, card numbers, IBANs and national ids;
    return their kinds, the exact values, and the text with every value replaced by REDACTED."""
    if not isinstance(text, str):
        raise TypeError(f"scan_secrets expects text, not {type(text).__name__}")
    return _scan(text)


# A write scans its statement, its context (the turn before, itself scanned by the previous write)
# and each clause the slot reader reads: the same texts again and again.
@lru_cache(maxsize=256)
def _scan(text: str) -> SecretScan:
    norm = text.translate(FULLWIDTH)
    sentences = sentence_spans(norm)
    hits = sorted(form_hits(norm, sentences) + keyword_hits(norm, sentences))
    merged: list[tuple[int, int, str]] = []  # overlapping hits become one value, named by the first
    for start, end, kind in hits:
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end), merged[-1][2])
        else:
            merged.append((start, end, kind))
    kinds = tuple(dict.fromkeys(kind for _, _, kind in merged))
    values = tuple(dict.fromkeys(text[start:end] for start, end, _ in merged))
    parts, pos = [], 0
    for start, end, _ in merged:
        parts += [text[pos:start], REDACTED]
        pos = end
    redacted = "".join(parts) + text[pos:]
    return SecretScan(kinds=kinds, redacted=redacted, values=values)


process_caches.register_lru(_scan)


def redact(text: str) -> str:
    """`text` with every secret value replaced by REDACTED."""
    return scan_secrets(text).redacted
