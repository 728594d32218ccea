"""The query's embedding, computed on a worker thread while recall reads the database."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from memory_core.embeddings import get_embedder
from memory_core.errors import MemoryServiceError
from memory_core.models import EMBEDDING_DIMENSIONS

_EMBEDDER_POOL: ThreadPoolExecutor | None = None
_EMBEDDER_POOL_LOCK = threading.Lock()


def _forget_pool_after_fork() -> None:
    # A forked process inherits the pool object but not its threads: start a fresh one on first use.
    global _EMBEDDER_POOL, _EMBEDDER_POOL_LOCK
    _EMBEDDER_POOL = None
    _EMBEDDER_POOL_LOCK = threading.Lock()


def embed_async(text: str, given: list[float] | None) -> Future[list[float]]:
    """The query embedding, computed on a worker thread when it is not given (the model releases
    the GIL, so the term statistics are read meanwhile); a finished future when it is."""
    global _EMBEDDER_POOL
    if given is not None:
        done: Future[list[float]] = Future()
        done.set_result(embed(text, given))  # a wrong dimension raises here, before any SQL
        return done
    with _EMBEDDER_POOL_LOCK:
        if _EMBEDDER_POOL is None:
            _EMBEDDER_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="recall-embed")
    return _EMBEDDER_POOL.submit(embed, text, None)


def wait(pending: Future[list[float]]) -> list[float]:
    """The embedding `embed_async` started, waited for."""
    return pending.result()


def embed(text: str, given: list[float] | None) -> list[float]:
    """`given`, checked, or the embedding of `text` by the configured model."""
    if given is None:
        return get_embedder().embed_query(text)
    embedding = [float(x) for x in given]
    if len(embedding) != EMBEDDING_DIMENSIONS:
        raise MemoryServiceError(f"query_embedding must have {EMBEDDING_DIMENSIONS} dimensions.")
    return embedding


os.register_at_fork(after_in_child=_forget_pool_after_fork)
