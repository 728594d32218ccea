"""Several independent reads sent to PostgreSQL as one query string: one round trip.

Recall reads the query's term statistics and its entity-graph candidates while the query
embedding is computed; neither depends on the other, so they travel together. Each statement
still plans and runs on its own (PostgreSQL runs a multi-statement string as one implicit
transaction when none is open); the results come back in order (`cursor.nextset`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connection

T = TypeVar("T")


@dataclass(frozen=True)
class Read(Generic[T]):
    """One SELECT, its parameters, and what its rows mean."""

    sql: str
    params: Sequence[Any]
    parse: Callable[[list[tuple[Any, ...]]], T]


def run_together(reads: Sequence[Read[Any]]) -> list[Any]:
    """Each read's parsed rows, in order, from one round trip (none for no reads)."""
    if not reads:
        return []
    with connection.cursor() as cursor:
        # Client-side binding (Django's default for psycopg) lets one execute carry several
        # statements; their parameters follow one another in the same order.
        cursor.execute("; ".join(read.sql for read in reads), [p for read in reads for p in read.params])
        results = [reads[0].parse(cursor.fetchall())]
        for read in reads[1:]:
            cursor.nextset()
            results.append(read.parse(cursor.fetchall()))
    return results
