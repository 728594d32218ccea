"""Context-aware indexing: a statement from a conversation turn is also indexed with what it answers.

"Lisbon, no question - the food alone is worth it!" answers "Where should I go in the spring?";
alone, neither its words nor its vector match "Which city did Ana suggest for the spring trip?".
An entry written from a turn keeps the preceding turn as `search_context`: its words join the
entry's `search_vector` (weight D, counted at `lexical.CONTEXT_TF`) and the embedding of
`context_document` becomes the entry's `context_embedding` (with `CONTEXT_VECTOR = "pooled"`,
`pooled_context` of the statement's and the context's vectors instead: no second model pass; with
"deferred", the default, the pooled vector at once and the document's own embedding later, from a
job in batches: `memory_core.context_vectors`).
The stored statement and everything shown stay the statement alone; the context is content all
the same (redacted on the way in, erased with the entry, listed in exports).
"""

from __future__ import annotations

from collections.abc import Sequence

# Enough for a question or two; a long preceding turn would drown the statement's own meaning.
CONTEXT_MAX_CHARS = 500


def clipped(context: str) -> str:
    """The context as stored: one line, at most `CONTEXT_MAX_CHARS`, the end kept (nearest the turn)."""
    flat = " ".join(context.split())
    return flat[-CONTEXT_MAX_CHARS:]


def context_document(context: str, statement: str) -> str:
    """The text the context embedding is computed from: the context, then the statement."""
    return f"{context}\n{statement}" if context else statement


def preceding_turns(turns: Sequence[str]) -> list[str]:
    """The context of each turn of one conversation in order: the turn before it ("" for the first)."""
    return ["", *[clipped(turn) for turn in turns[:-1]]] if turns else []


# `CONTEXT_VECTOR = "pooled"`: the context vector is normalise(v(statement) + w·v(context)), both
# vectors already computed (the turn before is a stored turn, a statement of the same batch, or in
# the query cache), instead of a second transformer pass over `context_document`. w chosen on
# LoCoMo dev (`python -m bench context_pooling`, vectors only): evidence recall is flat for
# w in 0.4-1.0 and at or above the document's there; 0.6, its middle, is the only weight at or
# above it on R@5, R@10 and R@20 at once. Below 0.4 the turn before barely counts (w = 0 is the
# statement alone: R@10 -0.023); above 1 it drowns the statement.
POOLED_CONTEXT_WEIGHT = 0.6


def pooled_context(statement: Sequence[float], context: Sequence[float]) -> list[float]:
    """The pooled context vector of a statement and its context (both unit vectors)."""
    mixed = [s + POOLED_CONTEXT_WEIGHT * c for s, c in zip(statement, context, strict=True)]
    norm = sum(x * x for x in mixed) ** 0.5
    return [x / norm for x in mixed] if norm else list(statement)
