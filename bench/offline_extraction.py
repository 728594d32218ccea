"""Offline extraction quality: precision and recall per category of the rule-based extractor on the
labelled utterances, with the original extractor (commit ce8e8c4, `bench/baseline_rules.py`) as
the baseline in the same run; and slot inference (`infer_slot`) on the labelled statements.

Data: `tests/data/extraction/utterances.jsonl` (each message sent at 2026-11-20T10:00:00+00:00)
and `tests/data/extraction/slots.jsonl`; see `tests/data/extraction/README.md`. Splits: `dev`
(tuned on), `heldout` (written with dev, before tuning) and `fresh` (new wordings written after
the rules were tuned on the other two; its first scores, before any fix, are in the README);
each is scored apart. The slot statements have `dev` and `fresh` splits likewise.

Matching, one expected statement to at most one predicted candidate of the same utterance:
- an expected statement with a key matches a candidate of the same category and the same key;
- one without a key (events, "remember that …") matches a candidate of the same category whose
  content is close: the Dice coefficient of their content words (lower-cased words and digit runs,
  each Chinese character a word, without "the", "user", articles and copulas) is at least 0.6,
  and every word of the expected statement that holds a digit (a date, an identifier) is in it.
A matched pair is a true positive of the expected category; an unmatched expectation a false
negative of its category; an unmatched candidate a false positive of the category it claimed.

Slots: a statement's inferred key is right when it equals the labelled one; precision is over
the statements given a key, recall over those labelled with one, and "None kept" is the share of
statements labelled without a slot that got none (a wrong key makes one fact supersede another).
The placeholder `infer_slot` (employer and home_city from two regular expressions, commit
9e1c0bb) is the slot baseline.

`python -m bench offline_extraction [--show-misses]`
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "extraction"
SENT_AT = "2026-11-20T10:00:00+00:00"
CATEGORIES = ("safety", "profile", "preference", "relationship", "event", "task_state", "general", "sop")
_CLOSE = 0.6
_NOT_CONTENT = frozenset(
    [
        "the",
        "user",
        "user's",
        "users",
        "a",
        "an",
        "is",
        "are",
        "was",
        "of",
        "to",
        "their",
        "them",
        "on",
        "in",
        "at",
    ]
)


def load(name: str) -> list[dict[str, Any]]:
    with open(DATA / name, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _words(text: str) -> list[str]:
    tokens = re.findall(r"[\u4e00-\u9fff]|[a-z0-9][a-z0-9'#-]*", text.lower())
    return [token.strip("'") for token in tokens if token.strip("'") not in _NOT_CONTENT]


def close(expected: str, predicted: str) -> bool:
    """Whether two statements without a key say the same thing (see the module docstring)."""
    want, got = _words(expected), _words(predicted)
    if not want or not got:
        return False
    common = sum((Counter(want) & Counter(got)).values())
    numbers = {word for word in want if any(ch.isdigit() for ch in word)}
    return 2 * common / (len(want) + len(got)) >= _CLOSE and numbers <= set(got)


def match(expected: list[dict[str, Any]], predicted: list[dict[str, Any]]) -> tuple[list, list, list]:
    """(matched pairs, missed expectations, unmatched predictions) of one utterance."""
    left = list(predicted)
    pairs, missed = [], []
    for want in expected:
        for got in left:
            if got["category"] != want["category"]:
                continue
            if (want["key"] and got["key"] == want["key"]) or (
                not want["key"] and close(want["content"], got["content"])
            ):
                pairs.append((want, got))
                left.remove(got)
                break
        else:
            missed.append(want)
    return pairs, missed, left


Extract = Callable[[str], list[dict[str, Any]]]


def extractor(module: Any) -> Extract:
    rules = module.RuleBasedExtractor()

    def run(text: str) -> list[dict[str, Any]]:
        found = rules.extract([{"id": "m0", "role": "user", "content": text, "created_at": SENT_AT}])
        return [{"content": c.content, "category": c.category, "key": c.key} for c in found]

    return run


def score(rows: Iterable[dict[str, Any]], run: Extract) -> tuple[dict[str, Counter], list[str]]:
    counts: dict[str, Counter] = {category: Counter() for category in CATEGORIES}
    notes = []
    for row in rows:
        pairs, missed, extra = match(row["expected"], run(row["text"]))
        for want, _ in pairs:
            counts[want["category"]]["tp"] += 1
        for want in missed:
            counts[want["category"]]["fn"] += 1
            notes.append(f"  miss  {row['text']!r}: {want['category']} {want['key'] or want['content']!r}")
        for got in extra:
            counts[got["category"]]["fp"] += 1
            notes.append(f"  extra {row['text']!r}: {got['category']} {got['key']!r} {got['content']!r}")
    return counts, notes


def _ratio(numerator: int, denominator: int) -> str:
    return f"{numerator / denominator:.3f}" if denominator else "  -  "


def _table(title: str, runs: dict[str, dict[str, Counter]]) -> None:
    print(f"\n{title}")
    names = list(runs)
    header = "".join(f" | {name:^25}" for name in names)
    print(f"{'category':<13}{header}")
    print(f"{'':<13}" + " | precision  recall   n  " * len(names))
    for category in (*CATEGORIES, "all"):
        cells = []
        for name in names:
            if category == "all":
                tp, fp, fn = (sum(c[k] for c in runs[name].values()) for k in ("tp", "fp", "fn"))
            else:
                tp, fp, fn = (runs[name][category][k] for k in ("tp", "fp", "fn"))
            cells.append(f" | {_ratio(tp, tp + fp):>9} {_ratio(tp, tp + fn):>7} {tp + fn:>4} ")
        if category == "all" or any(runs[name][category] for name in names):
            print(f"{category:<13}" + "".join(cells))


def slot_scores(rows: list[dict[str, Any]], infer: Callable[[str], Any]) -> tuple[dict[str, str], list[str]]:
    given = right = labelled = none_rows = none_kept = 0
    notes = []
    for row in rows:
        slot = infer(row["statement"])
        got = slot.key if slot is not None else None
        want = row["key"]
        given += got is not None
        labelled += want is not None
        right += got is not None and got == want
        if want is None:
            none_rows += 1
            none_kept += got is None
        if got != want:
            notes.append(f"  {row['statement']!r}: want {want!r}, got {got!r}")
    figures = {
        "precision": _ratio(right, given),
        "recall": _ratio(right, labelled),
        "none_kept": _ratio(none_kept, none_rows),
    }
    return figures, notes


def _placeholder_infer(statement: str) -> Any:
    """The placeholder of commit 9e1c0bb, for the slot baseline."""
    from memory_core.extraction.slots import Slot

    text = statement.strip()
    if re.search(r"^(?:the user|user|i)\s+(?:now\s+)?works?\s+(?:at|for)\s+\S", text, re.I):
        return Slot(key="employer", category="profile")
    if re.search(r"^(?:the user|user|i)\s+(?:now\s+)?lives?\s+in\s+\S", text, re.I):
        return Slot(key="home_city", category="profile")
    return None


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench offline_extraction")
    parser.add_argument("--show-misses", action="store_true", help="list every miss and extra")
    args = parser.parse_args(argv)
    # No database: only the settings (time zone) and the app registry that the schema imports.
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from bench import baseline_rules
    from memory_core.extraction import rules
    from memory_core.extraction.slots import infer_slot

    utterances = load("utterances.jsonl")
    runs = {"rules (now)": extractor(rules), "baseline ce8e8c4": extractor(baseline_rules)}
    print(f"offline extraction: {len(utterances)} labelled utterances, sent at {SENT_AT}")
    for split in dict.fromkeys(row["split"] for row in utterances):
        rows = [row for row in utterances if row["split"] == split]
        results = {name: score(rows, run) for name, run in runs.items()}
        _table(f"{split} ({len(rows)} utterances)", {name: counts for name, (counts, _) in results.items()})
        if args.show_misses:
            print("\n".join(results["rules (now)"][1]))
    lost = list(
        dict.fromkeys(
            row["text"]
            for row in utterances
            for want in row["expected"]
            if want["category"] == "safety" and not match([want], runs["rules (now)"](row["text"]))[0]
        )
    )
    print(f"\nutterances losing a stated safety fact (rules now, all splits): {len(lost)}")
    for text in lost:
        print(f"  {text!r}")

    statements = load("slots.jsonl")
    print(f"\nslot inference: {len(statements)} labelled statements")
    print(f"{'':<32} precision  recall  None kept    n")
    for split in dict.fromkeys(row["split"] for row in statements):
        rows = [row for row in statements if row["split"] == split]
        for name, infer in (("infer_slot (now)", infer_slot), ("placeholder 9e1c0bb", _placeholder_infer)):
            figures, notes = slot_scores(rows, infer)
            print(
                f"{split + ': ' + name:<32} {figures['precision']:>9} {figures['recall']:>7} "
                f"{figures['none_kept']:>10} {len(rows):>4}"
            )
            if args.show_misses and name.endswith("(now)"):
                print("\n".join(notes))
