"""Whether a clause the reader reads names a secret (a clause that does is left out).

A message read for its facts (the extractor, "remember that …") is new text: each clause is
judged by the keyword list, the secret patterns and the learned secret model
(`judgement.secrets`). A written statement read for its slot (`read_statement`: the write
pipeline's `infer_slot`, `states_safety`, the work facets of stored memories) was judged whole by
the same model when it was written (`screening.guard_secrets`, before any slot is read): its
clauses are parts of that text, read for a key and a category, never stored apart. They are
checked by the keywords and the patterns alone, not embedded and scored again: on LoCoMo turns
that was 3.4 of the 4.7 texts an add sent through the embedding model (docs/performance.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from memory_core import judgement
from memory_core.guards.secrets import scan_secrets
from memory_core.reading.words import SECRET_WORDS

_judged_whole: ContextVar[bool] = ContextVar("statement_judged_whole", default=False)


@contextmanager
def statement_judged_whole() -> Iterator[None]:
    """Within: the text being read is a statement the secret model has judged whole."""
    token = _judged_whole.set(True)
    try:
        yield
    finally:
        _judged_whole.reset(token)


def names_secret(clause: str) -> bool:
    """A keyword, a secret's pattern, or (in new text) the learned model's call."""
    if SECRET_WORDS.search(clause):
        return True
    if _judged_whole.get():
        return scan_secrets(clause).found
    return judgement.secrets(clause).found
