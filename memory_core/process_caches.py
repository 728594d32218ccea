"""What a process keeps of users' words in memory, and its emptying after an erasure.

Caches keyed by text (query vectors, judgement scores, secret scans, normalised statements,
translations, graph questions, the graphs themselves) would otherwise keep an erased memory's
words, or a question about it, until evicted. Each registers its `clear` here. An erasure moves
the database sequence `memory_erasure_seq` in its transaction (`erasure_announce`) and, once it
commits, empties this process's caches; every other process (the other web workers, the job
worker) empties its own at its next write or recall after the commit (`erasures_check`), reading
the sequence at most once every `ERASURE_CACHE_CHECK_SECONDS` (one round trip of a few
microseconds of server time). Nothing else is cleared: a cache that never held text (prepared
statements, model weights) stays.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import connection, transaction

ERASURE_CACHE_CHECK_SECONDS = 1.0

# Each cache's (clear, size): how to empty it, and how many entries it holds now.
_caches: list[tuple[Callable[[], None], Callable[[], int]]] = []
_lock = threading.Lock()
_seen: int | None = None
_checked_at = float("-inf")


def register(clear: Callable[[], None], size: Callable[[], int]) -> None:
    """A cache that holds users' words: `clear` is called after every erasure."""
    _caches.append((clear, size))


def register_lru(function: Any) -> None:
    """A `functools.lru_cache` of text."""
    register(function.cache_clear, lambda: function.cache_info().currsize)


def caches_clear() -> None:
    for clear, _size in list(_caches):
        clear()


def held() -> int:
    """How many entries the registered caches hold in all (0 right after an erasure)."""
    return sum(size() for _clear, size in list(_caches))


def erasure_announce() -> None:
    """In an erasure's transaction: every process is to empty its caches once it commits."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval('memory_erasure_seq')")
    transaction.on_commit(caches_clear)


def erasures_check() -> None:
    """Empty this process's caches when an erasure committed since it last looked (throttled)."""
    global _seen, _checked_at
    every = float(getattr(settings, "ERASURE_CACHE_CHECK_SECONDS", ERASURE_CACHE_CHECK_SECONDS))
    now = time.monotonic()
    if now - _checked_at < every:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM memory_erasure_seq")
        (value,) = cursor.fetchone()
    with _lock:
        moved = value != _seen  # the first look too: what was cached before it is not known
        _seen, _checked_at = value, now
    if moved:
        caches_clear()
