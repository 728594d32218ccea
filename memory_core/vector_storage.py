"""How memory vectors are stored: pgvector's `halfvec`, two bytes a dimension.

A memory row holds two 384-dimension vectors (the statement's and its context's). As `vector`
(float4) they take 3 KB, more than PostgreSQL keeps in a heap row, so both went to TOAST and
every distance read three pages: the row, the TOAST index and the TOAST heap. As `halfvec` they
take 1.5 KB and stay in the row; an exact scan of a namespace reads half the pages, or a quarter
when its rows are spread over the table. Over LoCoMo, half precision changed no one's ten nearest
memories (docs/performance.md). Queries send their vector as text cast to `MEMORY_VECTOR_TYPE`, so
both sides of a distance have the same type and the HNSW indexes (`halfvec_cosine_ops`) serve it.
Entity names keep `vector`: one small row each, never scanned in bulk.
"""

from __future__ import annotations

from typing import Any

from pgvector.django import VectorField

MEMORY_VECTOR_TYPE = "halfvec"
MEMORY_VECTOR_OPCLASS = f"{MEMORY_VECTOR_TYPE}_cosine_ops"  # pgvector names one per type


class HalfVectorField(VectorField):
    """A `halfvec` column read and written as `VectorField` does (a list of floats; text on the
    wire, which PostgreSQL casts), so code reading an entry's vector sees no difference but the
    rounding: each value within 1/2048 of itself (float16's 11 significant bits)."""

    def db_type(self, connection: Any) -> str:
        if self.dimensions is None:
            return MEMORY_VECTOR_TYPE
        return f"{MEMORY_VECTOR_TYPE}({self.dimensions:d})"
