"""Training of the Chinese reader of whose safety fact (`multilingual`): the safety regression's
rows with the e5 vector of every text with Han beside them, the same estimator and labels, its
threshold chosen out of fold on the Chinese rows by the rule every decision's is (`train._threshold`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from . import multilingual
from .model import sha256

# e5 is run over the training texts in batches of this many (the engine's own batch call).
BATCH = 64


def e5_vectors(texts: Sequence[str], *, log: Callable[[str], None]) -> np.ndarray:
    """The e5 vectors of `texts` (zeros where there is no Han: the reader does not read them)."""
    engine = multilingual.Engine(multilingual.weights_file(), threads=os.cpu_count() or 1)
    out = np.zeros((len(texts), multilingual.DIMENSIONS), dtype=np.float32)
    han = [i for i, text in enumerate(texts) if multilingual.reads(text)]
    for start in range(0, len(han), BATCH):
        chosen = han[start : start + BATCH]
        out[chosen] = engine.vectors([texts[i] for i in chosen])
        if start % (BATCH * 100) == 0:
            log(f"e5: {start} of {len(han)} texts with Han")
    return out


def train_reader(
    texts: Sequence[str],
    x: sparse.csr_matrix,
    labels: np.ndarray,
    fit: np.ndarray,
    test: np.ndarray,
    families: np.ndarray,
    positive: np.ndarray,
    ordinary: np.ndarray,
    out: Path,
    *,
    fit_model: Callable[..., tuple[np.ndarray, Any]],
    threshold_of: Callable[[np.ndarray, np.ndarray, np.ndarray, str], float],
    metrics: Callable[[np.ndarray, np.ndarray], dict[str, float]],
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Fit the reader on the rows `fit` of `x` (the safety regression's rows), choose its threshold
    out of fold on the Chinese ones, score it on the Chinese rows of `test`, write its file into
    `out` and return its manifest entry. The fitting, threshold and metrics are `train`'s own."""
    vectors = e5_vectors(texts, log=log)
    han = np.array([multilingual.reads(text) for text in texts])
    mean = vectors[fit][han[fit]].mean(axis=0).astype(np.float32)
    e5 = multilingual.columns(vectors, mean, han)
    wide = sparse.hstack([x, sparse.csr_matrix(e5)], format="csr")
    oof, model = fit_model(wide[fit], labels[fit], families[fit], binary=False)
    classes = [str(k) for k in model.classes_]
    pinned = [classes.index(w) for w in ("user", "dependant")]
    chinese_fit = han[fit]
    score_fit = oof[:, pinned].sum(axis=1)[chinese_fit]
    threshold = threshold_of(score_fit, positive[fit][chinese_fit], ordinary[fit][chinese_fit], "safety")
    chinese_test = test[han[test]]
    score_test = model.predict_proba(wide[chinese_test])[:, pinned].sum(axis=1)
    figures = {
        "out_of_fold_chinese": metrics(score_fit >= threshold, positive[fit][chinese_fit]),
        "test_chinese": metrics(score_test >= threshold, positive[chinese_test]),
    }
    path = out / multilingual.FILE
    np.savez_compressed(
        path,
        weights=np.asarray(model.coef_, dtype=np.float32),
        intercept=np.asarray(model.intercept_, dtype=np.float64),
        mean=mean,
    )
    weights = multilingual.weights_file()
    log(f"safety read in Chinese with e5: threshold {threshold:.3f} " + json.dumps(figures))
    return {
        "file": path.name,
        "sha256": sha256(path),
        "classes": classes,
        "threshold": round(threshold, 6),
        "scale": multilingual.SCALE,
        "reader": {
            "package": multilingual.PACKAGE,
            "version": metadata.version(multilingual.PACKAGE),
            "weights": multilingual.WEIGHTS,
            "sha256": multilingual.weights_sha256(weights),
        },
        "rows": {"fit": len(fit), "fit_chinese": int(chinese_fit.sum()), "test_chinese": len(chinese_test)},
        "scores": figures,
    }


def reader_entry(
    choice: str,
    kept: dict[str, Any] | None,
    everything: Sequence[Any],
    x: sparse.csr_matrix,
    splits: np.ndarray,
    ordinary: np.ndarray,
    out: Path,
    **fitting: Any,
) -> dict[str, Any]:
    """The manifest's entry for the reader (`choice`: "train" on the safety regression's rows `x`
    of `everything` (`train.Row`s) with their labels and splits, "keep" the `kept` one, or
    "none"), as `{multilingual.KEY: entry}`, or nothing. `fitting`: `train_reader`'s own."""
    if choice != "train":
        return {multilingual.KEY: kept} if kept else {}
    labels = np.array(
        [r.labels.get("safety") or ("none" if o else "") for r, o in zip(everything, ordinary, strict=True)]
    )
    labelled = labels != ""
    fit = np.where(labelled & (splits != "test"))[0]
    test = np.where(labelled & (splits == "test"))[0]
    families = np.array([r.family for r in everything])
    positive = np.isin(labels, ["user", "dependant"])
    texts = [r.text for r in everything]
    entry = train_reader(texts, x, labels, fit, test, families, positive, ordinary, out, **fitting)
    return {multilingual.KEY: entry}
