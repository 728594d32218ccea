"""The fine-tuned encoder: all-MiniLM-L6-v2 trained on the judgement sets with one head a decision
(`encoder_train`), exported to ONNX with 8-bit weights (`encoder.onnx`, about 22 MB, 1-5 ms a
statement on one thread, run only where it can change the decision: `judgement.reaches`). It
reads the whole sentence, word order included, where the linear models see an average vector and
word counts: on batch 30 held out, averaged with the linear model it ranked rules better (recall
at 5 % of other texts held 0.81 -> 0.91; docs/trust.md).

Like the linear models it is named in `manifest.json` with its SHA-256 and refused when the file
differs; it reads the same plain text (`features.plain`). The manifest's `blended` decisions average its
probability with the linear model's; the others are the linear model's alone (it ranked whose
safety fact worse, and secrets alike)."""

from __future__ import annotations

import threading
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


class Encoder:
    """An ONNX session of the fine-tuned encoder: `probabilities(texts)` gives one row of
    `OUTPUTS` a text."""

    def __init__(self, path: Path, *, blended: tuple[str, ...]) -> None:
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

    def probabilities(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, len(OUTPUTS)), dtype=np.float32)
        encodings = self.tokenizer.encode_batch([plain(text) for text in texts])
        feed = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        }
        return np.asarray(self.session.run(None, feed)[0], dtype=np.float32)

    def decision(self, name: str, row: np.ndarray) -> float:
        """A binary decision's probability from one row of `probabilities`."""
        return float(row[OUTPUTS.index(name)])


def tokenizer() -> Tokenizer:
    """The base model's tokenizer (fine-tuning keeps its vocabulary), cut at `MAX_TOKENS`."""
    from tokenizers import Tokenizer  # lazy: loaded with the session, by processes that judge

    loaded = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    loaded.enable_truncation(max_length=MAX_TOKENS)
    loaded.enable_padding()
    return loaded


def load_encoder(directory: Path) -> Encoder | None:
    """The encoder the manifest names, checked against its checksum; None when it names none."""
    entry: dict[str, Any] | None = read_manifest(directory).get("encoder")
    if not entry:
        return None
    path = checked_file(directory, "encoder", entry)
    if tuple(entry.get("outputs", ())) != OUTPUTS:
        raise ModelFileRefused(f"judgement encoder: outputs {entry.get('outputs')} are not {list(OUTPUTS)}")
    return Encoder(path, blended=tuple(entry.get("blended", ())))


_loaded: tuple[Encoder | None] | None = None
_lock = threading.Lock()


def encoder() -> Encoder | None:
    """The encoder of `model_dir()`, loaded and checked once a process (with the linear models)."""
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = (load_encoder(model_dir()),)
    return _loaded[0]


def reset() -> None:
    global _loaded
    with _lock:
        _loaded = None
