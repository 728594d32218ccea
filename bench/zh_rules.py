"""Chinese without a model: the offline extractor, slot inference (what a REST or mem0 add is
classified by), the secret guard and the policy guard on the labelled Chinese utterances in
`tests/data/zh_rules/labelled.jsonl`, precision and recall per category, each split apart.

Splits: `dev` (written first; the rules were tuned on it) and `heldout` (written after tuning,
scored as it came; see `tests/data/zh_rules/README.md` for the first scores of each).

Extraction: each row's `facts` are the statements the extractor must yield from the message:
`{"key", "pinned"}` (a keyed fact; a key ending in `.*` matches any key with that prefix, for
preferences whose topic is the user's own words) or `{"key": "", "has"}` (a statement without a
slot whose content holds `has`: a plain denial, an explicit "记住…"). A fact matches one candidate
with the same key and the same pinning. An expected fact counts in its row's category; an extra
candidate in the category its key names. A candidate the write pipeline would refuse (it holds a
secret) is not counted: it never becomes a memory. "Leaks" are candidates that hold a secret value
of the message and that the guard would not refuse; there must be none.

Safety: recall over the expected pinned facts (allergies, intolerances, foods avoided, conditions,
medication, of the user or a relative), precision over the pinned candidates.

Slots: rows with exactly one keyed fact (no wildcard): `infer_slot(text)` — what classifies a REST
or mem0 add without a key — gives that key and pinning.

Secrets: `scan_secrets(text).found` against `secret` on every row. Policy: `policy_check(text)`:
`weakens` against `policy == "weakening"`, `is_rule` against `policy in ("weakening", "rule")`, on
every row (a fact that reads as a rule waits for an operator: a false positive).

Baseline, in the same run: the same predictions from the product at commit 57643a7 (main before
this work), exported with `git archive` and run in a subprocess (`--predict`); skipped without git.

`python -m bench zh_rules [--show-misses] [--no-baseline]`
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "zh_rules" / "labelled.jsonl"
SENT_AT = "2026-11-20T10:00:00+00:00"
BASELINE = "57643a7"  # main when issue 17's Chinese rules started: the Chinese reader as it was


def load() -> list[dict[str, Any]]:
    with open(DATA, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def key_category(key: str, fallback: str) -> str:
    """The category a predicted key counts in."""
    if not key:
        return fallback
    head = key.split(".")[0]
    if head in ("family", "pet"):
        return "family"
    if key.startswith(("health.allergy", "health.intolerance", "diet")):
        return "allergy"
    if key.startswith("health.medication"):
        return "medication"
    if head == "health":
        return "condition"
    return {
        "home_city": "home",
        "employer": "work",
        "job": "work",
        "name": "name",
        "preferred_name": "name",
        "preference": "preference",
    }.get(head, "other")


def _matches(want: dict[str, Any], got: Any) -> bool:
    if not want["key"]:
        return not got.key and want["has"] in got.content
    wildcard = want["key"].endswith(".*")
    same = got.key.startswith(want["key"][:-1]) if wildcard else got.key == want["key"]
    return same and got.pinned == want["pinned"]


class Score:
    def __init__(self) -> None:
        self.tp: Counter[str] = Counter()
        self.fp: Counter[str] = Counter()
        self.fn: Counter[str] = Counter()
        self.misses: list[str] = []

    def add(self, category: str, tp: int = 0, fp: int = 0, fn: int = 0) -> None:
        self.tp[category] += tp
        self.fp[category] += fp
        self.fn[category] += fn

    def line(self, category: str) -> str:
        tp, fp, fn = self.tp[category], self.fp[category], self.fn[category]
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        return f"  {category:<12} precision {precision:.3f}  recall {recall:.3f}  (tp {tp}, fp {fp}, fn {fn})"

    def categories(self) -> list[str]:
        return sorted(set(self.tp) | set(self.fp) | set(self.fn))


def predict(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the product says of each row, as plain data (so that an older checkout can say it too)."""
    from memory_core.extraction.rules import RuleBasedExtractor
    from memory_core.extraction.slots import infer_slot
    from memory_core.guards.policy import policy_check
    from memory_core.guards.secrets import scan_secrets

    out = []
    for index, row in enumerate(rows):
        message = {"role": "user", "id": str(index), "content": row["text"], "created_at": SENT_AT}
        candidates = [
            {"content": c.content, "key": c.key, "pinned": c.pinned, "refused": scan_secrets(c.content).found}
            for c in RuleBasedExtractor().extract([message])
        ]
        slot = infer_slot(row["text"])
        scan, check = scan_secrets(row["text"]), policy_check(row["text"])
        out.append(
            {
                "candidates": candidates,
                "slot": [slot.key, slot.pinned] if slot else None,
                "secret": scan.found,
                "values": list(scan.values),
                "weakens": check.weakens,
                "is_rule": check.is_rule,
            }
        )
    return out


class _Got:
    def __init__(self, fields: dict[str, Any]) -> None:
        self.content, self.key, self.pinned = fields["content"], fields["key"], fields["pinned"]


def extraction(rows: list[dict[str, Any]], said: list[dict[str, Any]]) -> tuple[Score, Score, int]:
    """(per category, safety, leaks)."""
    score, safety, leaks = Score(), Score(), 0
    for row, prediction in zip(rows, said, strict=True):
        kept = []
        for fields in prediction["candidates"]:
            if fields["refused"]:
                continue  # refused by the write pipeline's guard
            if any(value in fields["content"] for value in prediction["values"]):
                leaks += 1
                score.misses.append(f"LEAK {row['text']!r}: {fields['content']!r}")
            kept.append(_Got(fields))
        for want in row["facts"]:
            hit = next((got for got in kept if _matches(want, got)), None)
            pinned = want.get("pinned", False)
            if hit is None:
                score.add(row["category"], fn=1)
                safety.add("safety", fn=int(pinned))
                score.misses.append(f"MISS [{row['category']}] {row['text']!r}: {want}")
                continue
            kept.remove(hit)
            score.add(row["category"], tp=1)
            safety.add("safety", tp=int(pinned))
        for got in kept:
            score.add(key_category(got.key, row["category"]), fp=1)
            safety.add("safety", fp=int(got.pinned))
            score.misses.append(f"EXTRA [{row['category']}] {row['text']!r}: {got.content!r} {got.key!r}")
    return score, safety, leaks


def slots(rows: list[dict[str, Any]], said: list[dict[str, Any]]) -> tuple[int, int, list[str]]:
    right, total, misses = 0, 0, []
    for row, prediction in zip(rows, said, strict=True):
        keyed = [want for want in row["facts"] if want["key"]]
        if len(row["facts"]) != 1 or len(keyed) != 1 or keyed[0]["key"].endswith(".*"):
            continue
        total += 1
        if prediction["slot"] == [keyed[0]["key"], keyed[0]["pinned"]]:
            right += 1
        else:
            misses.append(f"SLOT {row['text']!r}: {prediction['slot']} != {keyed[0]}")
    return right, total, misses


def guards(rows: list[dict[str, Any]], said: list[dict[str, Any]]) -> tuple[Score, list[str]]:
    score, misses = Score(), []
    for row, prediction in zip(rows, said, strict=True):
        for name, flagged, truth in (
            ("secret", prediction["secret"], row["secret"]),
            ("weakening", prediction["weakens"], row["policy"] == "weakening"),
            ("rule", prediction["is_rule"], row["policy"] in ("weakening", "rule")),
        ):
            score.add(
                name, tp=int(flagged and truth), fp=int(flagged and not truth), fn=int(truth and not flagged)
            )
            if flagged != truth:
                misses.append(f"{name.upper()} {'EXTRA' if flagged else 'MISS'} {row['text']!r}")
    return score, misses


def baseline(rows: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The same predictions from the product at BASELINE (exported with `git archive`, run apart)."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tree:
        try:
            archive = subprocess.run(
                [
                    "git",
                    "-C",
                    str(root),
                    "archive",
                    BASELINE,
                    "memory_core",
                    "config",
                    "chat",
                    "privacy",
                    "api",
                ],
                check=True,
                capture_output=True,
            ).stdout
            subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        shutil.copytree(root / "bench", Path(tree) / "bench")
        env = {**os.environ, "PYTHONPATH": tree, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "config.settings"}
        done = subprocess.run(
            [sys.executable, "-m", "bench", "zh_rules", "--predict"],
            cwd=tree,
            env=env,
            input=json.dumps(rows),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            print(done.stderr[-2000:])
            return None
        return json.loads(done.stdout)


def _report(title: str, rows: list[dict[str, Any]], said: list[dict[str, Any]], show: bool) -> None:
    score, safety, leaks = extraction(rows, said)
    right, total, slot_misses = slots(rows, said)
    guard, guard_misses = guards(rows, said)
    print(f" {title}")
    print("  extraction (RuleBasedExtractor, per category)")
    everything = Score()
    for category in score.categories():
        print(" " + score.line(category))
        everything.add("all", tp=score.tp[category], fp=score.fp[category], fn=score.fn[category])
    print(" " + everything.line("all"))
    print("  safety facts (pinned)")
    print(" " + safety.line("safety"))
    print(f"    secret values leaked into a kept statement: {leaks}")
    print(f"  slots (infer_slot, REST/mem0 add): {right}/{total} = {right / max(total, 1):.3f}")
    print("  guards")
    for name in ("secret", "weakening", "rule"):
        print(" " + guard.line(name))
    if show:
        print("\n".join(score.misses + slot_misses + guard_misses))


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench zh_rules")
    parser.add_argument("--show-misses", action="store_true", help="list every miss and extra")
    parser.add_argument("--no-baseline", action="store_true", help=f"skip the baseline ({BASELINE})")
    parser.add_argument("--predict", action="store_true", help="rows on stdin, predictions on stdout")
    args = parser.parse_args(argv)
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if args.predict:
        print(json.dumps(predict(json.load(sys.stdin))))
        return
    rows = load()
    said = predict(rows)
    before = None if args.no_baseline else baseline(rows)
    print(f"Chinese rules without a model: {len(rows)} labelled utterances ({DATA.name})")
    for split in dict.fromkeys(row["split"] for row in rows):
        index = [i for i, row in enumerate(rows) if row["split"] == split]
        part = [rows[i] for i in index]
        print(f"\n{split}: {len(part)} utterances")
        _report("now", part, [said[i] for i in index], args.show_misses)
        if before is not None:
            _report(
                f"baseline {BASELINE} (before the Chinese rules of issue 17)",
                part,
                [before[i] for i in index],
                False,
            )
