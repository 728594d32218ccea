"""Memory vectors are stored in half precision (`memory_core.vector_storage`)."""

from __future__ import annotations

from collections.abc import Sequence

# float16 keeps 11 significant bits: a value rounds to within 2**-12 of itself. The bound is twice
# that, plus 1e-6 for values near zero and for the few ulps by which one text embedded alone and in
# a batch differ.
HALF_RELATIVE = 2**-11
HALF_ABSOLUTE = 1e-6


def stored_as(stored: Sequence[float], expected: Sequence[float]) -> bool:
    """Whether `stored` is `expected` as a memory's vector column keeps it."""
    return all(
        abs(a - b) <= abs(b) * HALF_RELATIVE + HALF_ABSOLUTE for a, b in zip(stored, expected, strict=True)
    )
