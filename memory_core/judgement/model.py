"""The judgement models on disk: one linear model a decision (`<name>.npz`: weights, intercept,
classes) and `manifest.json` naming each file's SHA-256, its threshold and the scores it was
trained to. A file whose checksum differs from the manifest is refused (`ModelFileRefused`): a
model nobody trained here, or a damaged one, never decides what the write path keeps."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from scipy import sparse

from .features import WIDTH
from .spans import SPAN_WIDTH

DEFAULT_DIR = Path(__file__).resolve().parent / "models"
MANIFEST = "manifest.json"
# What a model reads: a text's row (`features`) or a candidate span's (`spans`), by its width.
FEATURE_WIDTHS = {"text": WIDTH, "span": SPAN_WIDTH}


class ModelFileRefused(ImproperlyConfigured):
    """A judgement model file is missing, damaged, or not the one its manifest names."""


@dataclass(frozen=True)
class LinearModel:
    """A logistic regression: `weights` (classes x WIDTH, one row for a binary model), `intercept`,
    `classes` (the labels, positive last for a binary model), `threshold` for the positive class."""

    name: str
    weights: np.ndarray
    intercept: np.ndarray
    classes: tuple[str, ...]
    threshold: float
    features: str = "text"

    def probabilities(self, rows: sparse.csr_matrix) -> np.ndarray:
        """One row of class probabilities a text (binary: the positive class only, one column)."""
        return self.from_products(rows @ self.weights.T)

    def from_products(self, products: np.ndarray) -> np.ndarray:
        """`probabilities` from `rows @ weights.T` (computed with other models' weights stacked
        under these: the same sums, `stacked`)."""
        logits = np.asarray(products, dtype=np.float64) + self.intercept
        if len(self.classes) == 2:
            return 1.0 / (1.0 + np.exp(-logits))
        logits -= logits.max(axis=1, keepdims=True)
        odds = np.exp(logits)
        return odds / odds.sum(axis=1, keepdims=True)


def stacked(loaded: dict[str, LinearModel]) -> tuple[np.ndarray, dict[str, slice]]:
    """Every model's weights in one matrix, and each model's columns of `rows @ matrix.T`: one
    product a text instead of one a model (each sum runs over the row's entries in the same order,
    so the results are the separate products' to the bit)."""
    global _stacked
    if _stacked is None or _stacked[0] is not loaded:
        columns: dict[str, slice] = {}
        start = 0
        texts = {name: model for name, model in loaded.items() if model.features == "text"}
        for name, model in texts.items():
            columns[name] = slice(start, start + model.weights.shape[0])
            start += model.weights.shape[0]
        weights = np.vstack([model.weights for model in texts.values()])
        _stacked = (loaded, weights, columns)
    return _stacked[1], _stacked[2]


_stacked: tuple[dict[str, LinearModel], np.ndarray, dict[str, slice]] | None = None


def model_dir() -> Path:
    return Path(settings.JUDGEMENT_MODEL_DIR or DEFAULT_DIR)


def sha256(path: Path) -> str:
    with path.open("rb") as file:  # read in blocks: the encoder is 22 MB
        return hashlib.file_digest(file, "sha256").hexdigest()


def read_manifest(directory: Path) -> dict[str, Any]:
    try:
        return json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelFileRefused(f"judgement manifest unreadable in {directory}: {exc}") from exc


def checked_file(directory: Path, name: str, entry: dict[str, Any]) -> Path:
    """The file a manifest entry names, refused when it is missing or its checksum differs."""
    path = directory / entry["file"]
    if not path.is_file():
        raise ModelFileRefused(f"judgement model {name}: {path} is missing")
    if sha256(path) != entry["sha256"]:
        raise ModelFileRefused(
            f"judgement model {name}: {path.name} does not match the checksum in {MANIFEST}; "
            "train it again with `manage.py train_judgement`"
        )
    return path


def load_models(directory: Path) -> dict[str, LinearModel]:
    """Every model the manifest names, each checked against its checksum and shape (the width of
    what it reads: a text's row or a span's)."""
    manifest = read_manifest(directory)
    models: dict[str, LinearModel] = {}
    for name, entry in manifest.get("models", {}).items():
        path = checked_file(directory, name, entry)
        with np.load(path, allow_pickle=False) as data:
            weights = data["weights"].astype(np.float32)
            intercept = data["intercept"].astype(np.float64)
        features = entry.get("features", "text")
        width = FEATURE_WIDTHS.get(features)
        if width is None or weights.ndim != 2 or weights.shape[1] != width:
            raise ModelFileRefused(
                f"judgement model {name}: weights of shape {weights.shape} for {features!r} features, "
                f"expected (k, {width})"
            )
        models[name] = LinearModel(
            name=name,
            weights=weights,
            intercept=intercept,
            classes=tuple(entry["classes"]),
            threshold=float(entry["threshold"]),
            features=features,
        )
    return models


_loaded: dict[str, LinearModel] | None = None
_lock = threading.Lock()


def models() -> dict[str, LinearModel]:
    """The models of `model_dir()`, loaded and checked once a process (at start-up, `apps.ready`)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = load_models(model_dir())
    return _loaded


def reset() -> None:
    """Forget the loaded models (a test that points JUDGEMENT_MODEL_DIR elsewhere)."""
    global _loaded
    with _lock:
        _loaded = None
