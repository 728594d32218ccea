"""Shared set-up for the benchmarks: Django on a separate `bench` database, timing helpers."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

BENCH_DB_NAME = "bench"

# Tables the benchmarks fill; emptied before each benchmark so runs never accumulate.
_BENCH_TABLES = (
    "memory_core_recalllog",
    "memory_core_memoryevidence",
    "memory_core_memoryevent",
    "memory_core_flaggedwrite",
    "memory_core_memoryentry",
    # no row trigger fires on TRUNCATE: the words' vectors and pairs go by name
    "memory_core_termvector",
    "memory_core_relatedterm",
    "memory_core_namespacegrant",
    "memory_core_namespace",
    "memory_core_graphchange",  # no foreign key: the graph's rows go with their namespace
)

_ready = False


def setup() -> None:
    """Start Django on the embedded server's `bench` database and bring its schema up to date."""
    global _ready
    if _ready:
        return
    if os.environ.get("DATABASE_URL"):
        sys.exit("bench: unset DATABASE_URL; the benchmarks use the embedded server's own `bench` database.")
    os.environ["EMBEDDED_DB_NAME"] = BENCH_DB_NAME
    os.environ.setdefault("DEBUG", "true")  # only for the development secret key
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    # A .env file could still point elsewhere: refuse to fill anything but the bench database.
    if connection.settings_dict["NAME"] != BENCH_DB_NAME:
        sys.exit(f"bench: refusing to run against database {connection.settings_dict['NAME']!r}.")
    _one_at_a_time(connection)
    # DEBUG would keep a log of every query, which costs time inside the measured loops.
    settings.DEBUG = False
    call_command("migrate", verbosity=0, interactive=False)
    _ready = True


# Held for the life of the process that runs a benchmark: every benchmark empties the bench database
# (`truncate`), so a second one started meanwhile would empty it under the first, whose figures
# (or run) would then be wrong.
_BENCH_LOCK = 0x62656E6368  # "bench"
_lock_holder: Any = None


def _one_at_a_time(connection: Any) -> None:
    """Refuse to start while another benchmark (or a script on `setup`) holds the bench database."""
    import psycopg

    global _lock_holder
    params = {
        k: v for k, v in connection.get_connection_params().items() if k not in ("cursor_factory", "context")
    }
    _lock_holder = psycopg.connect(**params, autocommit=True)
    if not _lock_holder.execute("SELECT pg_try_advisory_lock(%s)", [_BENCH_LOCK]).fetchone()[0]:
        sys.exit(
            "bench: another benchmark is running on the bench database (each empties it before it runs); "
            "run them one at a time."
        )


def truncate() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(_BENCH_TABLES)} CASCADE")


@contextmanager
def timed() -> Iterator[Callable[[], float]]:
    """`with timed() as elapsed: …` then `elapsed()` in seconds."""
    start = time.perf_counter()
    end: list[float] = []
    yield lambda: (end[0] if end else time.perf_counter()) - start
    end.append(time.perf_counter())


def percentile(values: Sequence[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(values: Sequence[float]) -> str:
    """p50 / p95 of durations in seconds, in milliseconds."""
    return f"p50 {percentile(values, 50) * 1000:7.2f} ms  p95 {percentile(values, 95) * 1000:7.2f} ms"


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def load_average() -> str:
    """The machine's load as the figures were taken (on a shared machine, the absolute figures' context)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def header(title: str) -> None:
    print(f"\n=== {title} ===", flush=True)


def one_source(
    scope_where: tuple[str, list[Any]] | None,
    source: str,
    *,
    k: int,
    embedding: list[float] | None = None,
    weights: Any = None,
    scope_size: int | None = None,
) -> list[Any]:
    """One of recall's candidate searches alone, "vector" (by `embedding`) or "keyword" (by the
    term `weights`), through recall's own statement; its rows (`Candidate`) in the search's order."""
    from memory_core import lexical
    from memory_core.recall.candidates import CandidateQuery, fetch_candidates

    if source == "vector":
        search = CandidateQuery(embedding=embedding)
    else:
        search = CandidateQuery(weights=weights or lexical.NO_TERMS)
    found = fetch_candidates(
        scope_where, search=search, k=k, always_k=0, with_context=False, scope_size=scope_size
    )
    if source == "vector":
        return sorted(found, key=lambda row: row.distance)
    return sorted(found, key=lambda row: (row.bm25 or 0.0, row.recorded_at), reverse=True)
