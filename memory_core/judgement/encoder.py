"""The fine-tuned encoder: all-MiniLM-L6-v2 trained on the judgement sets with one head a decision
(`encoder_train`), exported to ONNX with 8-bit weights (`encoder.onnx`, about 22 MB, 1-5 ms a
statement on one thread, run only where it can change the decision: `judgement.reaches`). It
reads the whole sentence, word order included, where the linear models see an average vector and
word counts: on batch 30 held out, averaged with the linear model it ranked rules better (recall
at 5 % of other texts held 0.81 -> 0.91; docs/trust.md).

Like the linear models it is named in `manifest.json` with its SHA-256 and refused when the file
differs; it reads the same plain text (`features.plain`). The manifest's `blended` decisions average its
probability with the linear model's; the others are the linear model's alone (it ranked whose
safety fact worse, and secrets alike). Whose safety fact has an encoder of its own, the safety
encoder (`SAFETY_FILE`, `load_safety_encoder`), fine-tuned for that decision alone and averaged
with the regression on English text (`judgement._safety_of`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_core.onnx_embedding import model_dir as minilm_dir

from .features import plain
from .model import ModelFileRefused, checked_file, model_dir, read_manifest

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

FILE = "encoder.onnx"
# What the heads return, in order: three binary decisions, then whose safety fact (softmax).
OUTPUTS = (
    "normative",
    "weakening",
    "secret",
    "safety:none",
    "safety:other",
    "safety:user",
    "safety:dependant",
)
# Statements are short: longer ones are cut here (training cut them at the same length).
MAX_TOKENS = 96
# The second encoder, fine-tuned for whose safety fact alone (`encoder_train.fine_tune_safety`):
# the joint encoder ranked it worse than the regression, its loss swamped by the ordinary talk
# weighed ten times for the rules; trained on that decision alone it ranks it better averaged
# with the regression (docs/trust.md, "A safety encoder").
SAFETY_FILE = "safety_encoder.onnx"
SAFETY_OUTPUTS = OUTPUTS[3:]


class Encoder:
    """An ONNX session of a fine-tuned encoder: `probabilities(texts)` gives one row of its
    `outputs` a text."""

    def __init__(self, path: Path, *, blended: tuple[str, ...], outputs: tuple[str, ...] = OUTPUTS) -> None:
        import onnxruntime  # lazy: loaded with the models, by processes that judge

        options = onnxruntime.SessionOptions()
        # One statement at a time, on the request's thread: more threads cost more than they save.
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self.session: InferenceSession = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer: Tokenizer = tokenizer()
        self.blended = blended
        self.outputs = outputs
        self.threshold = 0.0  # the safety encoder's: where its average with the regression pins

    def probabilities(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, len(self.outputs)), dtype=np.float32)
        encodings = self.tokenizer.encode_batch([plain(text) for text in texts])
        feed = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        }
        return np.asarray(self.session.run(None, feed)[0], dtype=np.float32)

    def decision(self, name: str, row: np.ndarray) -> float:
        """A binary decision's probability from one row of `probabilities`."""
        return float(row[self.outputs.index(name)])


def tokenizer() -> Tokenizer:
    """The base model's tokenizer (fine-tuning keeps its vocabulary), cut at `MAX_TOKENS`."""
    from tokenizers import Tokenizer  # lazy: loaded with the session, by processes that judge

    loaded = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    loaded.enable_truncation(max_length=MAX_TOKENS)
    loaded.enable_padding()
    return loaded


def load_encoder(directory: Path) -> Encoder | None:
    """The encoder the manifest names, checked against its checksum; None when it names none."""
    return _load(directory, "encoder", OUTPUTS)


def load_safety_encoder(directory: Path) -> Encoder | None:
    """The safety encoder the manifest names (with the threshold of its average with the
    regression), checked against its checksum; None when it names none."""
    return _load(directory, "safety_encoder", SAFETY_OUTPUTS)


def _load(directory: Path, key: str, outputs: tuple[str, ...]) -> Encoder | None:
    entry: dict[str, Any] | None = read_manifest(directory).get(key)
    if not entry:
        return None
    path = checked_file(directory, key, entry)
    if tuple(entry.get("outputs", ())) != outputs:
        raise ModelFileRefused(f"judgement {key}: outputs {entry.get('outputs')} are not {list(outputs)}")
    threshold = entry.get("threshold", 0.0)
    if key == "safety_encoder" and not (isinstance(threshold, float | int) and 0 < threshold < 1):
        raise ModelFileRefused(f"judgement {key}: no threshold for its average with the regression")
    reader = Encoder(path, blended=tuple(entry.get("blended", ())), outputs=outputs)
    reader.threshold = float(threshold)
    return reader


_loaded: dict[str, Encoder | None] = {}
_lock = threading.Lock()


def encoder() -> Encoder | None:
    """The encoder of `model_dir()`, loaded and checked once a process (with the linear models)."""
    return _once("encoder", load_encoder)


def safety_encoder() -> Encoder | None:
    """The safety encoder of `model_dir()`, loaded and checked once a process."""
    return _once("safety_encoder", load_safety_encoder)


def _once(key: str, load: Callable[[Path], Encoder | None]) -> Encoder | None:
    if key not in _loaded:
        with _lock:
            if key not in _loaded:
                _loaded[key] = load(model_dir())
    return _loaded[key]


def reset() -> None:
    with _lock:
        _loaded.clear()
