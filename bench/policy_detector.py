"""Precision and recall of the policy-rule detector (`memory_core.guards.policy`) on a labelled set.

`tests/data/policy/labelled.jsonl` holds statements labelled weakening / rule / fact, split into
`dev` (used while tuning) and `heldout` (written at the same time, measured only). Per split:

- weakening recall and precision: `weakens` against the weakening label (rules and facts negative);
- rule accuracy: `is_rule` against rule + weakening vs fact;
- facts kept: the share of facts classed as not-rule (they must stay facts);
- control: the share of detected weakening rules whose control is one the label accepts;
- the time of one call, after a first pass over the set.

Baseline, in the same run: the detector as it was at commit ce8e8c4 (its patterns are copied below).

`python -m bench policy_detector [--split dev|heldout] [--errors dev|heldout|all]`: --errors also
lists the statements the detector gets wrong in that split.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import common

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "policy" / "labelled.jsonl"

# --- Baseline: memory_core/guards/policy.py at commit ce8e8c4, verbatim patterns -------------------

_BASE_WEAKENING = [
    re.compile(r"\bno longer (?:need|needs|require|requires|has to|have to|must)\b", re.I),
    re.compile(
        r"\b(?:don'?t|do not|never|no need to|needn'?t)\s+(?:need to\s+)?"
        r"(?:ask|check|verify|require|get|wait)"
        r"\b.{0,30}\b(?:approv|confirm|verif|author|consent|review|id\b|identity)",
        re.I,
    ),
    re.compile(
        r"\b(?:skip|bypass|ignore|disable|override|turn off)\b.{0,20}"
        r"\b(?:approv|verif|check|review|polic|rule"
        r"|safety|limit|guardrail|instruction)",
        re.I,
    ),
    re.compile(
        r"\bwithout (?:any )?(?:approval|verification|authori[sz]ation|confirmation|review|checks?)\b", re.I
    ),
    re.compile(r"\b(?:always|automatically) (?:approve|grant|accept|refund)\b", re.I),
    re.compile(r"\bignore (?:all |any )?(?:previous|prior|earlier|above) (?:instructions|rules)\b", re.I),
    re.compile(
        r"\b(?:approval|verification|review)s? (?:is|are) (?:no longer|not) (?:needed|required|necessary)\b",
        re.I,
    ),
]
_BASE_RULE_LEAD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|also|note|please|remember|keep in mind|don'?t forget|do not forget)\b"
    r"(?:\s+that\b)?\s*[:,\u2014-]?\s*)+",
    re.I,
)
_BASE_RULE_IMPERATIVE = re.compile(
    r"^(?:always|never|from now on|henceforth|going forward|don'?t|do not|you should|you must|"
    r"you (?:can|may|need to|no longer need)|stop|only|make sure|no need to|there is no need|"
    r"skip|bypass|ignore|disable|override|turn off|approve|grant|accept|refund|feel free to)\b",
    re.I,
)
_BASE_RULE_PROCESS = re.compile(
    r"\bno longer (?:needs?|requires?|has to|have to|must)\s+(?:to\s+)?(?:be\s+)?(?:\w+\s+){0,2}?"
    r"(?:approv|verif|authori[sz]|confirm|review|check|sign[- ]?off|consent|id\b|identity|escalat)"
    r"|\b(?:refunds?|tickets?|approvals?|verifications?|checks|polic(?:y|ies)|rules?|procedures?|sops?"
    r"|guardrails?|instructions|authori[sz]ations?|escalations?|kyc)\b",
    re.I,
)


def baseline_reads_as_rule(text: str) -> bool:
    body = _BASE_RULE_LEAD.sub("", text.strip(), count=1)
    return bool(_BASE_RULE_IMPERATIVE.match(body) or _BASE_RULE_PROCESS.search(body))


def baseline_weakens_policy(text: str) -> bool:
    if not any(pattern.search(text) for pattern in _BASE_WEAKENING):
        return False
    return baseline_reads_as_rule(text)


# --- Scoring ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    is_rule: bool
    weakens: bool
    control: str


@dataclass(frozen=True)
class Scores:
    n: int
    recall: float
    precision: float
    rule_accuracy: float
    facts_kept: float
    control_agreement: float
    micros_per_call: float


def load(path: Path = DATA) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        if row.get("label") not in ("weakening", "rule", "fact") or row.get("split") not in (
            "dev",
            "heldout",
        ):
            raise ValueError(f"{path}: bad label or split in {row!r}")
    return rows


def _share(hits: int, total: int) -> float:
    return hits / total if total else float("nan")


def score(rows: list[dict[str, str]], detect: Callable[[str], Verdict]) -> tuple[Scores, list[str]]:
    """Scores of `detect` on `rows`, and a line for each statement it gets wrong."""
    tp = fp = fn = rule_right = facts = facts_kept = control_right = 0
    errors: list[str] = []
    verdicts = [detect(row["text"]) for row in rows]  # the first pass compiles and warms the caches
    start = time.perf_counter()
    for row in rows:
        detect(row["text"])
    elapsed = time.perf_counter() - start
    for row, verdict in zip(rows, verdicts, strict=True):
        weakening = row["label"] == "weakening"
        rule = row["label"] != "fact"
        tp += weakening and verdict.weakens
        fp += not weakening and verdict.weakens
        fn += weakening and not verdict.weakens
        rule_right += verdict.is_rule == rule
        if not rule:
            facts += 1
            facts_kept += not verdict.is_rule
        if weakening and verdict.weakens:
            control_right += verdict.control in row["control"].split("|")
        wrong = verdict.weakens != weakening or verdict.is_rule != rule
        if wrong or (weakening and verdict.weakens and verdict.control not in row["control"].split("|")):
            got = "weakening" if verdict.weakens else "rule" if verdict.is_rule else "fact"
            errors.append(f"  {row['label']:>9} -> {got:<9} {verdict.control or '-':<14} {row['text']}")
    return (
        Scores(
            n=len(rows),
            recall=_share(tp, tp + fn),
            precision=_share(tp, tp + fp),
            rule_accuracy=_share(rule_right, len(rows)),
            facts_kept=_share(facts_kept, facts),
            control_agreement=_share(control_right, tp),
            micros_per_call=elapsed / max(1, len(rows)) * 1e6,
        ),
        errors,
    )


def _detector(text: str) -> Verdict:
    from memory_core.guards.policy import policy_check

    check = policy_check(text)
    return Verdict(check.is_rule, check.weakens, check.control)


def _baseline(text: str) -> Verdict:
    return Verdict(baseline_reads_as_rule(text), baseline_weakens_policy(text), "")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench policy_detector")
    parser.add_argument(
        "--errors", choices=["dev", "heldout", "all"], help="list the misclassified statements"
    )
    parser.add_argument("--split", choices=["dev", "heldout"], help="measure one split only")
    args = parser.parse_args(argv)
    rows = load()
    common.header(f"Policy-rule detector ({len(rows)} labelled statements, {DATA.name})")
    print(
        f"{'split':<8} {'detector':<20} {'n':>4} {'weak recall':>11} {'weak prec':>9} {'rule acc':>8}"
        f" {'facts kept':>10} {'control':>7} {'us/call':>8}"
    )
    for split in [args.split] if args.split else ["dev", "heldout"]:
        part = [row for row in rows if row["split"] == split]
        for name, detect in (("policy_check", _detector), ("baseline ce8e8c4", _baseline)):
            figures, errors = score(part, detect)
            control = f"{figures.control_agreement:7.2f}" if detect is _detector else f"{'-':>7}"
            print(
                f"{split:<8} {name:<20} {figures.n:>4} {figures.recall:>11.2f} {figures.precision:>9.2f}"
                f" {figures.rule_accuracy:>8.2f} {figures.facts_kept:>10.2f} {control}"
                f" {figures.micros_per_call:>8.1f}"
            )
            if detect is _detector and args.errors in (split, "all") and errors:
                print(f"  misclassified ({len(errors)}): label -> verdict, control, text")
                print("\n".join(errors))
    print("targets on heldout: weakening recall >= 0.95, precision >= 0.90, facts kept >= 0.90")
