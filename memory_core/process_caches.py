"""What a process keeps of users' words in memory, and its emptying after an erasure.

Caches keyed by text (query vectors, judgement scores, secret scans, normalised statements,
translations, graph questions, the graphs themselves) would otherwise keep an erased memory's
words, or a question about it, until evicted. Each registers itself here. Once an erasure commits,
it moves the database sequence `memory_erasure_seq` (`erasure_announce`) and empties this
process's caches; every other process (the other web workers, the job
worker) empties its own at its next write or recall after the commit: the statement each of
those sends first reads the sequence too (`ERASURES_SEEN_SQL`, no round trip of its own) and hands
it to `erasures_seen`. A cache that never held text (prepared statements, model weights) stays.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection, transaction

# Each cache's (clear, size): how to empty it, and how many entries it holds now.
_caches: list[tuple[Callable[[], None], Callable[[], int]]] = []
_lock = threading.Lock()
_seen: int | None = None


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
    transaction.on_commit(_erasure_committed, robust=True)


def _erasure_committed() -> None:
    # After the commit, not in the transaction: a sequence moves for every reader at once, and a
    # process that saw it move before the erasure committed could cache the words again.
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval('memory_erasure_seq')")
    caches_clear()


# The sequence's position as a column of a statement the paths send anyway (0 before any erasure).
ERASURES_SEEN_SQL = "(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM memory_erasure_seq)"


def erasures_seen(value: int | None) -> None:
    """The sequence as a write or recall read it: empty this process's caches when an erasure
    committed since it last looked (the first look too: what was cached before is not known)."""
    global _seen
    if value is None:
        return
    with _lock:
        moved, _seen = value != _seen, value
    if moved:
        caches_clear()
