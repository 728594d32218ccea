"""Training the judgement models (`manage.py train_judgement`): every labelled set in, split by
paraphrase family, one logistic regression a decision, its threshold chosen on the dev split for
the recall it must reach, scored once on the test split, written with its checksum.

Sources: `data/*.jsonl` (families written for these models), the older labelled sets under
tests/data (each row its own family) and the turns of LoCoMo conversation 26 as ordinary
conversation (each session a family; conversation 30 is never trained on: it is the test split's,
so its figure is held out). A family's split is a hash of its id: no paraphrase of a test sentence
is ever trained on. The fine-tuned encoder (`encoder_train`) is trained on every split but dev, and
the threshold of each decision averaged with it is chosen again on the dev split (`_blend`); the
safety encoder likewise, for whose safety fact on English text (`_blend_safety`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.stats.mstats import hdquantiles
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, cross_val_predict

from memory_core.embeddings import LocalEmbedder
from memory_core.judgement import safety_encoder_reads

from .encoder import FILE as ENCODER_FILE
from .encoder import OUTPUTS, SAFETY_FILE, SAFETY_OUTPUTS, Encoder
from .encoder_train import fine_tune, fine_tune_safety, labels_of
from .features import NGRAM_FEATURES, PRESENCE_FEATURES, PRESENCE_START, WIDTH, matrix
from .model import MANIFEST, read_manifest, sha256
from .spans import SPAN_WIDTH, span_matrix, value_spans

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo"
TRAINED_CONVERSATIONS = ("26",)
HELD_OUT_CONVERSATIONS = ("30",)

DECISION_NAMES = ("normative", "weakening", "secret", "safety")
# The recall each decision must keep on its dev split (the trust targets of docs/trust.md).
TARGET_RECALL = {"normative": 0.97, "weakening": 0.98, "secret": 0.98, "safety": 0.98}
# The value model's: of the texts with a secret and a candidate span, the share that keeps one.
VALUE_RECALL = 0.99
# How often ordinary conversation may be flagged, out of fold: a rule held for review, a turn
# refused as a secret, a remark pinned as a safety fact.
ORDINARY_BUDGET = {"normative": 0.005, "weakening": 0.002, "secret": 0.005, "safety": 0.005}
ORDINARY_SOURCES = ("chitchat", "locomo/")
# How much each ordinary turn weighs in the fit, against one labelled text. The threshold is raised
# until ordinary talk is flagged within its budget, so talk the fit treats as one text among fifty
# thousand (the assistant's how-to replies, "always stretch first, trust me") lifts it, and every
# rule just under it is lost. Weighed ten times, the fit itself keeps talk below the line. Chosen
# with batch 27 and chit-chat 8 held out (trained on what came before them), 1 against 10: rules,
# out-of-fold recall at the same budget 0.782 → 0.834, batch 27 0.814 → 0.851 (its non-rules held
# 0.013 → 0.027), chit-chat 8 held 0.022 → 0.020; weakening 0.862 → 0.892, batch 27 0.900 →
# 0.914, LoCoMo 30 flagged 0.0027 → 0; secrets the same recall, batch 27's non-secrets refused
# 0.007 → 0.005, chit-chat 8 0.008 → 0.005. Whose safety fact keeps 1: weighted, batch 27's
# recall rose 0.759 → 0.805 but its precision fell 0.904 → 0.854.
ORDINARY_WEIGHT = {"normative": 10.0, "weakening": 10.0, "secret": 10.0, "safety": 1.0}
# The decisions whose probability is the linear model's and the fine-tuned encoder's averaged
# (`encoder`). Chosen on batch 30 held out (both trained on what came before it): averaged, rules
# ranked better (average precision 0.954 -> 0.967; recall with 5 % of its other texts held 0.81 ->
# 0.91). Relaxations ranked better on average (0.936 -> 0.954) but not at the threshold the dev
# split chose, which flagged tightening rules in Chinese as relaxations ("以后凡是给客户退款, 都必须
# 先经过财务主管签字"); secrets alike (0.987 -> 0.991) and whose safety fact worse (0.926 -> 0.907;
# again on the dev split once batches 30 and 31 were in it: 0.937 -> 0.916, the encoder alone 0.766):
# those stay the linear models'.
BLENDED = ("normative",)
# Sets the linear models are not trained on (the encoders are); none now. Batches 36-45 and chit-chat
# 17-26 were held back while a retrain with them was a wash (batch 39's comparison; again at batch
# 46: trained on everything but batch 45 and chit-chat 26, scored on them, the same figures within
# a text). The regressions were retrained on everything once `frames_contrast` showed where they
# failed: the Chinese safety model read the frame "我有..." as a condition ("我有驾照" pinned at 1.00)
# and a condition named in an appointment as none; with the set, on batch 45 held out, safety pinned
# 77 -> 83 of 110 at precision 0.928 -> 0.943 (docs/trust.md, "Batch 46").
LINEAR_HELD_BACK: tuple[str, ...] = ()
ENCODER_CHOICES = ("train", "keep", "none")
# The decisions that read the words-present block (`features.PRESENCE_FEATURES`); the others are
# fitted with it zeroed, so their weights there are zero and they read the rows as before. Chosen with
# batch 33 and chit-chat 14 held out (trained on the same 62,558 texts, every decision reading it
# against none): rules on the dev split, averaged with the encoder at the same ordinary-talk budget,
# 0.803 -> 0.824 of them held; batch 33 rules 145 -> 146 of 155, non-rules held 13 -> 12 of 305,
# relaxations flagged 62 -> 64 of 67, chit-chat 14 the same. Whose safety fact read it worse on
# ordinary talk (its test split's ordinary turns pinned 0.37 % -> 0.67 %, LoCoMo 30's 0 -> 0.8 %;
# chit-chat 14 24 against 26 of 26 pinned, eight false pins against six) and secrets no better
# (chit-chat 14 four false refusals against three).
PRESENCE_READERS = ("normative", "weakening")


def _presence_mask() -> np.ndarray:
    """1 on every column but the words-present block's."""
    mask = np.ones(WIDTH, dtype=np.float32)
    mask[PRESENCE_START : PRESENCE_START + PRESENCE_FEATURES] = 0.0
    return mask


@dataclass
class Row:
    text: str
    family: str
    lang: str
    labels: dict[str, Any] = field(default_factory=dict)
    source: str = ""


def split_of(family: str) -> str:
    """train (80 %), dev (10 %) or test (10 %), by a stable hash of the family id."""
    if family.startswith("locomo-") and family.split("-")[1] in HELD_OUT_CONVERSATIONS:
        return "test"
    bucket = int(hashlib.sha256(family.encode()).hexdigest(), 16) % 10
    return "dev" if bucket == 8 else "test" if bucket == 9 else "train"


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _lang(text: str) -> str:
    return "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"


def rows(*, held_back: tuple[str, ...] = ()) -> list[Row]:
    """Every labelled row, one per distinct text (the first label seen wins), but those of the
    data sets named in `held_back`."""
    found = _data_rows(held_back)
    tests = ROOT / "tests" / "data"
    for i, item in enumerate(_jsonl(tests / "policy" / "labelled.jsonl")):
        label = item["label"]
        labels = {"normative": int(label != "fact"), "weakening": int(label == "weakening")}
        found.append(Row(item["text"], f"policy-{i}", _lang(item["text"]), labels, "tests/policy"))
    for i, item in enumerate(_jsonl(tests / "secrets" / "labelled.jsonl")):
        found.append(
            Row(
                item["text"],
                f"secrets-{i}",
                _lang(item["text"]),
                {"secret": int(item["secret"])},
                "tests/secrets",
            )
        )
    for i, item in enumerate(_jsonl(tests / "zh_rules" / "labelled.jsonl")):
        policy = item.get("policy", "fact")
        labels = {
            "normative": int(policy != "fact"),
            "weakening": int(policy == "weakening"),
            "secret": int(bool(item.get("secret"))),
        }
        found.append(Row(item["text"], f"zh-{i}", "zh", labels, "tests/zh_rules"))
    # The extractor's labelled utterances and statements: facts with ids, dates and numbers in them,
    # none of them a secret unless its note says so.
    for i, item in enumerate(_jsonl(tests / "extraction" / "utterances.jsonl")):
        secret = int("secret" in item.get("note", ""))
        found.append(
            Row(item["text"], f"utterance-{i}", _lang(item["text"]), {"secret": secret}, "tests/extraction")
        )
    for i, item in enumerate(_jsonl(tests / "extraction" / "slots.jsonl")):
        found.append(
            Row(item["statement"], f"slot-{i}", _lang(item["statement"]), {"secret": 0}, "tests/extraction")
        )
    for conversation in (*TRAINED_CONVERSATIONS, *HELD_OUT_CONVERSATIONS):
        found += list(locomo_rows(conversation))
    unique: dict[str, Row] = {}
    for row in found:
        unique.setdefault(row.text.strip(), row)
    return list(unique.values())


def _data_rows(held_back: tuple[str, ...]) -> list[Row]:
    """The rows of the sets in `data/` (families written for these models)."""
    found: list[Row] = []
    for path in sorted(DATA.glob("*.jsonl")):
        if path.stem in held_back:
            continue
        for item in _jsonl(path):
            labels: dict[str, Any] = {k: item[k] for k in DECISION_NAMES if k in item}
            found.append(
                Row(item["text"], item["family"], item.get("lang", _lang(item["text"])), labels, path.stem)
            )
    return found


def locomo_rows(conversation: str) -> Iterator[Row]:
    """The turns of one LoCoMo conversation: ordinary talk, no rule, no secret, no weakening."""
    path = LOCOMO / f"{conversation}.json"
    if not path.exists():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    for name, turns in data.items():
        if not name.startswith("session_") or not isinstance(turns, list):
            continue
        for turn in turns:
            text = (turn.get("text") or "").strip()
            if text:
                labels = {"normative": 0, "weakening": 0, "secret": 0}
                yield Row(text, f"locomo-{conversation}-{name}", "en", labels, f"locomo/{conversation}")


# The averaged rule decision's threshold is chosen on the dev split alone (the encoder has seen every
# other row), where the ordinary-talk budget is six or seven turns of about 1,400: the single order
# statistic there moved with one turn more or less, and a retrain's rule recall with it (batch 36's:
# 0.616 -> 0.673). Each quantile is Harrell and Davis's estimate instead (scipy's `hdquantiles`: a
# weighted average of the order statistics around it, the expected value of the order statistic over
# resamples of the rows), the same rule with no single turn deciding it (the single order statistic
# is `tests/memory_core/test_judgement_thresholds.py`'s comparison). On the dev split of
# batches 36-38's retrain its spread over resamples of the rows was 0.056 against 0.077.
def _quantile(values: np.ndarray, share: float, *, empty: float) -> float:
    """The `share` quantile of `values` by Harrell and Davis's estimate (`empty` for fewer than two)."""
    return float(hdquantiles(values, prob=[share])[0]) if len(values) > 1 else empty


def _threshold(scores: np.ndarray, positive: np.ndarray, ordinary: np.ndarray, name: str) -> float:
    """The threshold of a decision, from scores no model was fitted on: the highest that keeps the
    recall the decision must reach, raised when needed so that ordinary conversation is flagged no
    more often than its budget (ordinary talk held as a rule or refused as a secret is the failure
    users see), each quantile estimated by Harrell and Davis's method (see above)."""
    positives = scores[positive]
    talk = scores[ordinary & ~positive]
    by_recall = _quantile(positives, 1 - TARGET_RECALL[name], empty=0.5)
    by_budget = _quantile(talk, 1 - ORDINARY_BUDGET[name], empty=0.0)
    return float(np.clip(max(by_recall, by_budget), 0.05, 0.95))


def _metrics(predicted: np.ndarray, positive: np.ndarray) -> dict[str, float]:
    tp = int((predicted & positive).sum())
    return {
        "n": len(positive),
        "positives": int(positive.sum()),
        "recall": round(tp / max(int(positive.sum()), 1), 4),
        "precision": round(tp / max(int(predicted.sum()), 1), 4),
        "false_positive_rate": round(int((predicted & ~positive).sum()) / max(int((~positive).sum()), 1), 4),
    }


DECISIONS: dict[str, Callable[[Row], Any]] = {
    "normative": lambda r: r.labels.get("normative"),
    "weakening": lambda r: r.labels.get("weakening"),
    "secret": lambda r: r.labels.get("secret"),
    "safety": lambda r: r.labels.get("safety"),
}


def train(
    out: Path,
    *,
    c: float = 16.0,
    folds: int = 5,
    encoder: str = "train",
    safety_encoder: str = "train",
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Fit, choose thresholds out of fold, score once on the test split, and write every model and
    the manifest into `out`. `encoder`: "train" fine-tunes the encoder again (half an hour),
    "keep" keeps the one in `out` (the linear models and the averaged thresholds are new), "none"
    leaves it out (the linear models decide alone). `safety_encoder` likewise for the encoder of
    whose safety fact (a quarter of an hour)."""
    kept = _kept(out, "encoder", ENCODER_FILE, encoder)
    kept_safety = _kept(out, "safety_encoder", SAFETY_FILE, safety_encoder)
    everything = rows(held_back=LINEAR_HELD_BACK)
    log(
        f"{len(everything)} labelled texts from {len({r.source for r in everything})} sources "
        f"(held back from the linear models: {', '.join(LINEAR_HELD_BACK)})"
    )
    vectors = LocalEmbedder().embed([r.text for r in everything])
    x_all = matrix([r.text for r in everything], vectors)
    x_without_presence = x_all @ sparse.diags(_presence_mask()).tocsr()
    splits = np.array([split_of(r.family) for r in everything])
    families = np.array([r.family for r in everything])
    ordinary_all = np.array([r.source.startswith(ORDINARY_SOURCES) for r in everything])
    secret_scores = np.zeros(len(everything))
    out_of_fold: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"features": {"width": WIDTH, "ngram_features": NGRAM_FEATURES}, "models": {}}
    for name, label_of in DECISIONS.items():
        if name == "safety":  # ordinary conversation is no safety fact, unless labelled one
            labels = np.array(
                [label_of(r) or ("none" if ordinary_all[i] else "") for i, r in enumerate(everything)]
            )
            positive_all = np.isin(labels, ["user", "dependant"])
        else:
            labels = np.array([str(int(label_of(r))) if label_of(r) is not None else "" for r in everything])
            positive_all = labels == "1"
        labelled = labels != ""
        fit = np.where(labelled & (splits != "test"))[0]
        test = np.where(labelled & (splits == "test"))[0]
        weights = np.where(ordinary_all[fit] & ~positive_all[fit], ORDINARY_WEIGHT[name], 1.0)
        x = x_all if name in PRESENCE_READERS else x_without_presence
        oof, model = _fit(
            x[fit], labels[fit], families[fit], binary=name != "safety", c=c, folds=folds, weights=weights
        )
        classes = [str(k) for k in model.classes_]
        columns = (
            [classes.index(w) for w in ("user", "dependant")] if name == "safety" else [classes.index("1")]
        )
        score_fit = oof[:, columns].sum(axis=1)
        threshold = _threshold(score_fit, positive_all[fit], ordinary_all[fit], name)
        score_test = model.predict_proba(x[test])[:, columns].sum(axis=1)
        out_of_fold[name] = (fit, score_fit, positive_all)
        if name == "secret":  # the value model reads them: out of fold where it fits
            secret_scores[fit], secret_scores[test] = score_fit, score_test
        figures = {
            "out_of_fold": _metrics(score_fit >= threshold, positive_all[fit]),
            "out_of_fold_ordinary_flagged": _rate(
                score_fit >= threshold, ordinary_all[fit] & ~positive_all[fit]
            ),
            "test": _metrics(score_test >= threshold, positive_all[test]),
            "test_ordinary_flagged": _rate(score_test >= threshold, ordinary_all[test] & ~positive_all[test]),
        }
        held = np.array([everything[i].source == f"locomo/{HELD_OUT_CONVERSATIONS[0]}" for i in test])
        if held.any():
            figures["locomo_30_flagged"] = _rate(score_test >= threshold, held)
        path = out / f"{name}.npz"
        np.savez_compressed(
            path,
            weights=np.asarray(model.coef_, dtype=np.float32),
            intercept=np.asarray(model.intercept_, dtype=np.float64),
        )
        manifest["models"][name] = {
            "file": path.name,
            "sha256": sha256(path),
            "classes": classes,
            "threshold": round(threshold, 6),
            "rows": {"fit": len(fit), "test": len(test)},
            "scores": figures,
        }
        log(f"{name}: threshold {threshold:.3f} " + json.dumps(figures))
    manifest["models"]["value"] = _train_value(
        everything, splits, secret_scores, out, c=c, folds=folds, log=log
    )
    if encoder != "none":
        manifest["encoder"] = _blend(
            everything, splits, ordinary_all, out_of_fold, manifest, out, kept=kept, log=log
        )
    if safety_encoder != "none":
        manifest["safety_encoder"] = _blend_safety(
            everything, splits, ordinary_all, out_of_fold["safety"], out, kept=kept_safety, log=log
        )
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def _blend(
    everything: list[Row],
    splits: np.ndarray,
    ordinary: np.ndarray,
    out_of_fold: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    manifest: dict[str, Any],
    out: Path,
    *,
    kept: dict[str, Any] | None,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The encoder (fine-tuned on every labelled row outside the dev split, or kept), and each `BLENDED`
    decision's threshold chosen again on the dev split for the average of the linear model's
    out-of-fold score and the encoder's (neither saw those rows), by the same rule as alone."""
    path = out / ENCODER_FILE
    if kept is None:  # every labelled set, those held back from the linear models too
        every = [r for r in rows() if split_of(r.family) != "dev"]
        ordinary_every = np.array([r.source.startswith(ORDINARY_SOURCES) for r in every])
        targets = np.array([labels_of(r.labels, bool(o)) for r, o in zip(every, ordinary_every, strict=True)])
        weights = np.where(ordinary_every, ORDINARY_WEIGHT["normative"], 1.0)
        fine_tune([r.text for r in every], targets, weights, path, log=log)
    reader = Encoder(path, blended=())
    figures: dict[str, Any] = {}
    for name in BLENDED:
        fit, linear, positive_all = out_of_fold[name]
        dev = fit[splits[fit] == "dev"]
        linear_dev = linear[splits[fit] == "dev"]
        read = _read(reader, [everything[i].text for i in dev])[:, OUTPUTS.index(name)]
        averaged = (linear_dev + read) / 2
        threshold = _threshold(averaged, positive_all[dev], ordinary[dev], name)
        alone = manifest["models"][name]["threshold"]
        manifest["models"][name]["threshold"] = round(threshold, 6)
        figures[name] = {
            "threshold": round(threshold, 6),
            "dev": _metrics(averaged >= threshold, positive_all[dev]),
            "dev_ordinary_flagged": _rate(averaged >= threshold, ordinary[dev] & ~positive_all[dev]),
            "dev_linear_alone": _metrics(linear_dev >= alone, positive_all[dev]),
        }
        log(f"{name} averaged with the encoder: threshold {threshold:.3f} " + json.dumps(figures[name]))
    return {
        "file": ENCODER_FILE,
        "sha256": sha256(path),
        "outputs": list(OUTPUTS),
        "blended": list(BLENDED),
        "trained_on": "every labelled row outside the dev split",
        "rows": kept["rows"] if kept else len(every),
        "scores": figures,
    }


def _kept(out: Path, key: str, file: str, choice: str) -> dict[str, Any] | None:
    """The manifest entry of the encoder to keep (`choice` "keep"), refusing a choice not known
    or an encoder that is not there."""
    if choice not in ENCODER_CHOICES:
        raise ValueError(f"{key} must be one of {ENCODER_CHOICES}, not {choice!r}")
    kept = read_manifest(out).get(key) if choice == "keep" else None
    if choice == "keep" and not (kept and (out / file).is_file()):
        raise ValueError(f"no {key} to keep in {out}: train one with {key}='train'")
    return kept


def _blend_safety(
    everything: list[Row],
    splits: np.ndarray,
    ordinary: np.ndarray,
    out_of_fold: tuple[np.ndarray, np.ndarray, np.ndarray],
    out: Path,
    *,
    kept: dict[str, Any] | None,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The safety encoder (fine-tuned on every row outside the dev split, or kept), and the
    threshold of its probability that the fact is the user's or a dependant's averaged with the
    regression's, chosen by the same rule as alone on the rows of the dev split it reads at run
    time (`judgement.safety_encoder_reads`: no Han, kana or Hangul; neither model saw them)."""
    path = out / SAFETY_FILE
    rows_trained = kept["rows"] if kept else 0
    if kept is None:
        every = [r for r in rows() if split_of(r.family) != "dev"]
        talk = [r.source.startswith(ORDINARY_SOURCES) for r in every]
        whose = [r.labels.get("safety") or ("none" if o else "") for r, o in zip(every, talk, strict=True)]
        known = [i for i, w in enumerate(whose) if w]
        _, rows_trained = fine_tune_safety(
            [every[i].text for i in known], [whose[i] for i in known], path, log=log
        )
    reader = Encoder(path, blended=(), outputs=SAFETY_OUTPUTS)
    fit, linear, positive_all = out_of_fold
    read_here = np.array([safety_encoder_reads(" ".join(everything[i].text.split())) for i in fit])
    dev = fit[(splits[fit] == "dev") & read_here]
    linear_dev = linear[(splits[fit] == "dev") & read_here]
    read = _read(reader, [everything[i].text for i in dev])
    pinned = read[:, SAFETY_OUTPUTS.index("safety:user")] + read[:, SAFETY_OUTPUTS.index("safety:dependant")]
    averaged = (linear_dev + pinned) / 2
    threshold = _threshold(averaged, positive_all[dev], ordinary[dev], "safety")
    figures = {
        "threshold": round(threshold, 6),
        "dev": _metrics(averaged >= threshold, positive_all[dev]),
        "dev_ordinary_flagged": _rate(averaged >= threshold, ordinary[dev] & ~positive_all[dev]),
    }
    log(f"safety averaged with its encoder: threshold {threshold:.3f} " + json.dumps(figures))
    return {
        "file": SAFETY_FILE,
        "sha256": sha256(path),
        "outputs": list(SAFETY_OUTPUTS),
        "threshold": round(threshold, 6),
        "trained_on": "every row outside the dev split with a condition, and a draw of the others",
        "rows": rows_trained,
        "scores": figures,
    }


def _read(reader: Encoder, texts: list[str], batch: int = 64) -> np.ndarray:
    """The encoder's probabilities for many texts, in batches of similar length."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    found = np.zeros((len(texts), len(reader.outputs)), dtype=np.float32)
    for start in range(0, len(order), batch):
        chosen = order[start : start + batch]
        found[chosen] = reader.probabilities([texts[i] for i in chosen])
    return found


def _train_value(
    everything: list[Row],
    splits: np.ndarray,
    secret_scores: np.ndarray,
    out: Path,
    *,
    c: float,
    folds: int,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """The value model (`spans`): every candidate span of a text labelled for secrets, positive
    when the text carries one (weighted by its number of candidates: one of them is the value),
    with the secret model's score of the text (out of fold where the model was fitted).
    Its threshold keeps `VALUE_RECALL` of the texts with a secret out of fold; the figures say how
    many texts without one still keep a span (out of fold and on the test split)."""
    items: list[tuple[str, int, int, float]] = []
    labels, weights, texts, families, split = [], [], [], [], []
    for i, r in enumerate(everything):
        if r.labels.get("secret") is None:
            continue
        spans = value_spans(r.text, 0, len(r.text), set_aside=True)
        for a, b in spans:
            items.append((r.text, a, b, float(secret_scores[i])))
            labels.append(int(r.labels["secret"]))
            weights.append(1.0 / len(spans) if r.labels["secret"] else 1.0)
            texts.append(i)
            families.append(r.family)
            split.append(splits[i])
    x = span_matrix(items)
    y, w, text_of, groups = np.array(labels), np.array(weights), np.array(texts), np.array(families)
    fit, test = np.array(split) != "test", np.array(split) == "test"
    oof_both, model = _fit(x[fit], y[fit], groups[fit], binary=True, c=c, folds=folds, weights=w[fit])
    oof = oof_both[:, 1]
    kept_fit, secret_fit = _best_span(oof, text_of[fit], y[fit])
    positives = np.sort(kept_fit[secret_fit])
    threshold = float(positives[int(np.floor(len(positives) * (1 - VALUE_RECALL)))] - 1e-6)
    kept_test, secret_test = _best_span(model.predict_proba(x[test])[:, 1], text_of[test], y[test])
    figures = {
        "out_of_fold": _metrics(kept_fit >= threshold, secret_fit),
        "test": _metrics(kept_test >= threshold, secret_test),
        "spans": {"fit": int(fit.sum()), "test": int(test.sum())},
    }
    path = out / "value.npz"
    np.savez_compressed(
        path,
        weights=np.asarray(model.coef_, dtype=np.float32),
        intercept=np.asarray(model.intercept_, dtype=np.float64),
    )
    log(f"value: threshold {threshold:.3f} " + json.dumps(figures))
    return {
        "file": path.name,
        "sha256": sha256(path),
        "classes": [str(k) for k in model.classes_],
        "threshold": round(threshold, 6),
        "features": "span",
        "width": SPAN_WIDTH,
        "rows": {"fit": int(fit.sum()), "test": int(test.sum())},
        "scores": figures,
    }


def _best_span(scores: np.ndarray, text_of: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A text's best span score and whether the text carries a secret, one entry a text."""
    best: dict[int, float] = {}
    secret: dict[int, bool] = {}
    for score, text, label in zip(scores, text_of, labels, strict=True):
        best[int(text)] = max(best.get(int(text), 0.0), float(score))
        secret[int(text)] = bool(label)
    order = sorted(best)
    return np.array([best[t] for t in order]), np.array([secret[t] for t in order])


def _fit(
    x: Any,
    y: np.ndarray,
    groups: np.ndarray,
    *,
    binary: bool,
    c: float,
    folds: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, Any]:
    """Out-of-fold probabilities (folds grouped by family) and the model fitted on all of `x`."""
    fit_params = {} if weights is None else {"sample_weight": weights}
    oof = cross_val_predict(
        _estimator(c=c, binary=binary),
        x,
        y,
        groups=groups,
        cv=GroupKFold(folds),
        method="predict_proba",
        params=fit_params,
    )
    return oof, _estimator(c=c, binary=binary).fit(x, y, **fit_params)


def _rate(flagged: np.ndarray, among: np.ndarray) -> float:
    return round(float(flagged[among].mean()), 4) if among.any() else 0.0


def _estimator(*, c: float, binary: bool) -> Any:
    # Whose safety fact (four classes) is fitted without balanced class weights: weighting the rare
    # "user" and "dependant" classes up lent every first-person remark their probability (a recipe,
    # a race, a diet pinned). Chosen with batches 10 and 11 held out (trained on what came before
    # them): AP 0.970 / 0.953 against 0.966 / 0.936 balanced, precision at recall 0.9 0.947 / 0.895
    # against 0.947 / 0.850 (docs/trust.md).
    return LogisticRegression(
        C=c,
        class_weight="balanced" if binary else None,
        max_iter=3000,
        solver="liblinear" if binary else "lbfgs",
        random_state=0,
    )
