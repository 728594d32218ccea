"""Secret detector quality on the labelled set: precision and recall per kind and overall, on the
dev and held-out splits, next to the original detector (commit ce8e8c4) as a baseline.

A secret sentence counts as caught only when the detector flags it AND every labelled value is
gone from its redacted text; precision is the share of flagged sentences that hold a secret.
Per kind, recall groups sentences by their labelled kind, precision by the kind the detector named.

`python -m bench secret_detector [--errors]`: --errors lists the dev split's misses and false
alarms (never the held-out split's, which stays unseen while tuning).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memory_core.guards.secrets import scan_secrets

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "secrets" / "labelled.jsonl"

# --- Baseline: the detector as it was at commit ce8e8c4, patterns copied verbatim ---------------
_BASELINE_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "password",
        re.compile(
            r"\b(?:password|passwd|pwd|passphrase|passcode|pin(?: code)?)\b"
            r"(?:\s+(?:is|was|=|:)|\s*[:=])\s*\S+",
            re.I,
        ),
    ),
    (
        "api key or token",
        re.compile(
            r"\b(?:api[ _-]?key|access[ _-]?key|secret(?:[ _-]?key)?"
            r"|(?:auth|bearer|access|refresh)?[ _-]?token)\b"
            r"(?:\s+(?:is|was|=|:)|\s*[:=])\s*\S{6,}",
            re.I,
        ),
    ),
    (
        "api key or token",
        re.compile(
            r"\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,}"
            r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{5,})\b"
        ),
    ),
    (
        "one-time code",
        re.compile(
            r"\b(?:otp|one[- ]time (?:pass)?(?:code|password)|verification code|security code|2fa code"
            r"|auth(?:entication)? code"
            r"|sms code|(?:the|my) code)\b\D{0,20}\d{4,8}\b",
            re.I,
        ),
    ),
]
_BASELINE_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")


def _baseline_luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def baseline_scan(text: str) -> tuple[tuple[str, ...], str]:
    """The ce8e8c4 `scan_secrets`, returning (kinds, redacted)."""
    kinds: list[str] = []
    redacted = text
    for kind, pattern in _BASELINE_PATTERNS:
        if pattern.search(redacted):
            kinds.append(kind)
            redacted = pattern.sub("[REDACTED]", redacted)
    for match in _BASELINE_CARD.finditer(redacted):
        digits = re.sub(r"\D", "", match.group())
        if 13 <= len(digits) <= 19 and _baseline_luhn(digits):
            kinds.append("card number")
            redacted = redacted.replace(match.group(), "[REDACTED]")
    return tuple(dict.fromkeys(kinds)), redacted


def current_scan(text: str) -> tuple[tuple[str, ...], str]:
    scan = scan_secrets(text)
    return scan.kinds, scan.redacted


# --- Scoring ------------------------------------------------------------------------------------
@dataclass
class Row:
    text: str
    secret: bool
    kind: str | None
    values: list[str]
    split: str


@dataclass
class Score:
    precision: float
    recall: float
    value_recall: float
    per_kind: dict[str, tuple[float | None, float | None, int]]  # kind -> (precision, recall, n)
    misses: list[Row]
    false_alarms: list[tuple[Row, tuple[str, ...]]]


def load(path: Path = DATA) -> list[Row]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            item = json.loads(line)
            rows.append(Row(item["text"], item["secret"], item["kind"], item["values"], item["split"]))
    return rows


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def score(rows: list[Row], scan: Callable[[str], tuple[tuple[str, ...], str]]) -> Score:
    flagged = caught = values_total = values_gone = 0
    flagged_true = 0
    by_kind: dict[str, list[int]] = {}  # kind -> [labelled, caught, predicted, predicted on secret]
    misses: list[Row] = []
    false_alarms: list[tuple[Row, tuple[str, ...]]] = []
    for row in rows:
        kinds, redacted = scan(row.text)
        gone = [v for v in row.values if v not in redacted]
        values_total += len(row.values)
        values_gone += len(gone)
        if kinds:
            flagged += 1
            flagged_true += row.secret
            if not row.secret:
                false_alarms.append((row, kinds))
        for kind in kinds:
            counts = by_kind.setdefault(kind, [0, 0, 0, 0])
            counts[2] += 1
            counts[3] += row.secret
        if row.secret and row.kind:
            counts = by_kind.setdefault(row.kind, [0, 0, 0, 0])
            counts[0] += 1
            if kinds and len(gone) == len(row.values):
                caught += 1
                counts[1] += 1
            else:
                misses.append(row)
    secrets = sum(row.secret for row in rows)
    per_kind = {
        kind: (_ratio(c[3], c[2]), _ratio(c[1], c[0]), c[0]) for kind, c in sorted(by_kind.items())
    }
    return Score(
        precision=flagged_true / flagged if flagged else 1.0,
        recall=caught / secrets if secrets else 1.0,
        value_recall=values_gone / values_total if values_total else 1.0,
        per_kind=per_kind,
        misses=misses,
        false_alarms=false_alarms,
    )


def _fmt(value: float | None) -> str:
    return "   -" if value is None else f"{value:.3f}"


def _report(split: str, rows: list[Row]) -> Score:
    current, base = score(rows, current_scan), score(rows, baseline_scan)
    secrets = sum(r.secret for r in rows)
    print(f"\n== {split}: {len(rows)} sentences, {secrets} with a secret, {len(rows) - secrets} without ==")
    print(f"{'kind':<18}{'n':>4}  {'precision':>9} {'recall':>7}   | baseline {'precision':>9} {'recall':>7}")
    for kind in sorted(set(current.per_kind) | set(base.per_kind)):
        p, r, n = current.per_kind.get(kind, (None, None, 0))
        bp, br, _ = base.per_kind.get(kind, (None, None, 0))
        print(f"{kind:<18}{n:>4}  {_fmt(p):>9} {_fmt(r):>7}   |          {_fmt(bp):>9} {_fmt(br):>7}")
    print(
        f"{'overall':<18}{secrets:>4}  {current.precision:>9.3f} {current.recall:>7.3f}   |          "
        f"{base.precision:>9.3f} {base.recall:>7.3f}"
    )
    ratio = current.recall / base.recall if base.recall else float("inf")
    print(
        f"values removed: {current.value_recall:.3f} (baseline {base.value_recall:.3f}); "
        f"recall {ratio:.1f}x the baseline; false alarms {len(current.false_alarms)} "
        f"(baseline {len(base.false_alarms)}), misses {len(current.misses)} (baseline {len(base.misses)})"
    )
    return current


def _report_conversations() -> None:
    """False alarms on real chat: every LoCoMo turn and question (no secrets in them by design)."""
    from bench.locomo_data import DATA_DIR, load_all

    if not DATA_DIR.is_dir():
        print(f"\n(no LoCoMo data at {DATA_DIR}: real-chat false alarms not measured)")
        return
    conversations = load_all()
    texts = [t.content for c in conversations for t in c.turns]
    texts += [q.text for c in conversations for q in c.questions]
    flagged = [t for t in texts if scan_secrets(t).found]
    base = sum(bool(baseline_scan(t)[0]) for t in texts)
    print(f"\nreal chat (LoCoMo turns and questions): {len(flagged)} of {len(texts)} flagged", end="")
    print(f" (baseline {base})")
    for text in flagged[:10]:
        print(f"  {text[:120]!r}")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench secret_detector")
    parser.add_argument("--errors", action="store_true", help="list the dev split's errors")
    args = parser.parse_args(argv)
    rows = load()
    dev = [r for r in rows if r.split == "dev"]
    heldout = [r for r in rows if r.split == "heldout"]
    print(f"secret detector on {DATA.relative_to(DATA.parents[3])} ({len(rows)} sentences)")
    dev_score = _report("dev", dev)
    _report("held-out", heldout)

    _report_conversations()

    texts = [r.text for r in rows]
    started = time.perf_counter()
    rounds = 5
    for _ in range(rounds):
        for text in texts:
            scan_secrets(text)
    per_call = (time.perf_counter() - started) / (rounds * len(texts))
    print(f"\nspeed: {per_call * 1e6:.0f} µs per sentence (mean over {rounds * len(texts)} calls)")

    if args.errors:
        print("\n-- dev misses --")
        for row in dev_score.misses:
            scan = scan_secrets(row.text)
            print(f"  [{row.kind}] {row.text!r} -> values {scan.values}")
        print("-- dev false alarms --")
        for row, kinds in dev_score.false_alarms:
            print(f"  {row.text!r} -> {kinds} {scan_secrets(row.text).values}")
