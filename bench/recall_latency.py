"""Recall latency at 10k / 100k entries over 1,000 namespaces and in one namespace of 100k (1M on request).

Synthetic data: unit vectors scattered around 200 random centres (so that neighbourhoods exist,
as with real embeddings) and pseudo-English text with a Zipf word distribution, loaded with a
binary COPY; the HNSW and GIN indexes are dropped before the load and rebuilt afterwards (one
bulk build is several times faster than maintaining the graph row by row). Query embeddings are
synthetic too, so the timings are of the database path alone; the local embedder is timed apart.

Baseline, in the same run: the same vector search as an exact scan (`SET LOCAL enable_indexscan =
off`: every row of the scope is compared). recall@10 compares the HNSW path's ten nearest with
the exact ten.

`--only NAME` runs one scenario (10k, 100k, 100k-one, 1m, 1m-one); `--reuse` keeps the rows already
loaded when their count matches (to measure a layout change on the same data); `--explain` prints
EXPLAIN (ANALYZE, BUFFERS) of the slowest recall's candidates statement, run again.

`python -m bench recall_latency [--scale 1m] [--queries N] [--only NAME] [--reuse] [--explain]`
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from bench import common

DIM = 384
CENTRES = 200
NAMESPACES = 1000
SEED = 20260629
_TABLE = "memory_core_memoryentry"


def _vocabulary(rng: np.random.Generator, size: int = 20_000) -> list[str]:
    onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "ch", "sh", "tr", "br"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ou"]
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.integers(2, 4)
        words.add("".join(rng.choice(onsets) + rng.choice(vowels) for _ in range(syllables)))
    return sorted(words)


class Synth:
    """Deterministic synthetic memories and queries."""

    def __init__(self, seed: int = SEED) -> None:
        self.rng = np.random.default_rng(seed)
        centres = self.rng.standard_normal((CENTRES, DIM)).astype(np.float32)
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        self.words = np.array(_vocabulary(self.rng))
        # Zipf, minus its head: the hundred most frequent English words are stop words that the
        # "english" configuration drops, so the commonest word left is in ~3% of entries.
        weights = 1.0 / np.arange(101, len(self.words) + 101)
        self.word_p = weights / weights.sum()

    def vectors(self, n: int) -> np.ndarray:
        which = self.rng.integers(0, CENTRES, n)
        # Noise of this size puts members at cosine ~0.7 from their centre, like related sentences.
        noisy = self.centres[which] + self.rng.standard_normal((n, DIM)).astype(np.float32) * 0.05
        return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)

    def texts(self, n: int, *, low: int = 8, high: int = 24) -> list[str]:
        lengths = self.rng.integers(low, high, n)
        drawn = self.rng.choice(self.words, size=int(lengths.sum()), p=self.word_p)
        out, start = [], 0
        for length in lengths:
            out.append(" ".join(drawn[start : start + length]))
            start += length
        return out


# Every NOT NULL column without a database default; the nullable ones stay NULL.
_COLUMNS = [
    "id",
    "namespace_id",
    "type",
    "category",
    "key",
    "content",
    "source_kind",
    "source_conversation",
    "source_message_ids",
    "extractor_model",
    "extractor_prompt_version",
    "is_inference",
    "confidence",
    "importance",
    "pinned",
    "evidence_count",
    "status",
    "valid_from",
    "recorded_at",
    "access_count",
    "embedding",
    "embedding_model",
    "metadata",
    "created_at",
    "updated_at",
    "search_context",
]


def _raw_connection() -> Any:
    """A psycopg connection of its own to the bench database, with the vector types registered
    (memory vectors are `halfvec`: the COPY sends each as a `HalfVector`)."""
    import psycopg
    from django.db import connection
    from pgvector.psycopg import register_vector

    connection.ensure_connection()
    raw = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    register_vector(raw)
    return raw


def _indexes(action: str) -> None:
    """Drop or (re)build the HNSW and GIN indexes exactly as the model declares them."""
    from django.db import connection

    from memory_core.models import MemoryEntry

    wanted = {"memory_embedding_hnsw", "memory_search_gin"}
    indexes = [index for index in MemoryEntry._meta.indexes if index.name in wanted]
    with connection.cursor() as cursor:
        # Enough memory for the graph to be built in RAM, and both cores.
        cursor.execute("SET maintenance_work_mem = '2GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 2")
    with connection.schema_editor() as editor:
        for index in indexes:
            if action == "drop":
                editor.execute(f'DROP INDEX IF EXISTS "{index.name}"')
            else:
                editor.add_index(MemoryEntry, index)


@contextlib.contextmanager
def _stats_deferred(raw: Any) -> Iterator[None]:
    """The BM25 statistics' row trigger off during the load, the statistics rebuilt once after it
    (as migration 0016 does): one namespace's statistics row updated per inserted entry makes a
    one-namespace load quadratic (every update walks the row's versions of the same transaction)."""
    raw.execute(f"ALTER TABLE {_TABLE} DISABLE TRIGGER memory_search_stats_insert_delete")
    try:
        yield
    finally:
        raw.execute(f"ALTER TABLE {_TABLE} ENABLE TRIGGER memory_search_stats_insert_delete")
    raw.execute(importlib.import_module("memory_core.migrations.0016_language_search").REBUILD_STATS)


def load(synth: Synth, *, sizes: list[int], chunk: int = 20_000) -> list[tuple[Any, Any]]:
    """Users each owning a namespace with `sizes[i]` entries; returns [(user, namespace)]."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import connection
    from pgvector import HalfVector

    from memory_core.embeddings import LOCAL_MODEL_NAME
    from memory_core.models import MemoryEntry, Namespace

    User = get_user_model()
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {User._meta.db_table} CASCADE")
    common.truncate()
    users = User.objects.bulk_create(
        User(username=f"bench{i:05d}", password=make_password(None)) for i in range(len(sizes))
    )
    namespaces = Namespace.objects.bulk_create(
        Namespace(path=f"user/{user.get_username()}", kind="user", owner=user) for user in users
    )
    _indexes("drop")

    table = MemoryEntry._meta.db_table
    owners = np.repeat(np.array([ns.pk for ns in namespaces]), sizes)
    synth.rng.shuffle(owners)  # rows of a namespace spread over the table, as in real life
    now = datetime.now(UTC)
    with _raw_connection() as raw, _stats_deferred(raw):
        oids = dict(
            raw.execute(
                "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0",
                [table],
            ).fetchall()
        )
        cols = ", ".join(f'"{name}"' for name in _COLUMNS)
        with raw.cursor() as cursor, cursor.copy(f"COPY {table} ({cols}) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types([oids[name] for name in _COLUMNS])
            for start in range(0, len(owners), chunk):
                part = owners[start : start + chunk]
                vectors = synth.vectors(len(part))
                texts = synth.texts(len(part))
                ages = synth.rng.integers(0, 365 * 24, len(part))
                for ns_id, vector, text, age in zip(part, vectors, texts, ages, strict=True):
                    when = now - timedelta(hours=int(age))
                    copy.write_row(
                        (
                            uuid.uuid4(), int(ns_id), "semantic", "general", "", text, "extracted", "", [],
                            "", "", False, 0.9, 0.5, False, 1,
                            "active", when, when, 0, HalfVector(vector), LOCAL_MODEL_NAME, {}, when, when, "",
                        )
                    )  # fmt: skip
    with common.timed() as build:
        _indexes("create")
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM ANALYZE {table}")
    print(f"  loaded {len(owners):,} rows; HNSW + GIN index build {build():.1f} s", flush=True)
    return list(zip(users, namespaces, strict=True))


def _user_scope(user: Any) -> Any:
    """The scope `memory_recall` searches for this user (current entries of their namespaces)."""
    from memory_core.recall import scope as recall_scope

    return recall_scope.read(actor=user)


def _vector_top(scope: Any, embedding: np.ndarray, *, exact: bool, k: int) -> list[Any]:
    """Recall's vector search alone, as recall runs it (`scope.size` picks the exact pass or the
    planner), or `exact`: with index scans off, every row of the scope compared."""
    from django.db import connection, transaction

    with transaction.atomic():
        if exact:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config('enable_indexscan', 'off', true)")
        size = None if exact else scope.size
        rows = common.one_source(scope.where(), "vector", embedding=embedding.tolist(), k=k, scope_size=size)
    return [row.pk for row in rows]


def measure(synth: Synth, label: str, owners: list[tuple[Any, Any]], *, queries: int) -> str:
    """Prints the figures; returns the candidates statement of the slowest recall."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory_core.recall import CANDIDATES_PER_SOURCE, memory_recall

    picks = synth.rng.integers(0, len(owners), queries)
    vectors = synth.vectors(queries)
    texts = synth.texts(queries, low=3, high=7)
    timings: dict[str, list[float]] = {"recall": [], "recorded": [], "hnsw": [], "exact": []}
    overlap = []
    slowest: tuple[float, str] = (0.0, "")
    for i, (pick, vector, text) in enumerate(zip(picks, vectors, texts, strict=True)):
        user, _ = owners[pick]
        scope = _user_scope(user)
        embedding = vector.tolist()
        with CaptureQueriesContext(connection) as captured, common.timed() as t:
            memory_recall(actor=user, query=text, query_embedding=embedding, record=False)
        timings["recall"].append(t())
        if timings["recall"][-1] > slowest[0]:
            statements = [q["sql"] for q in captured.captured_queries if "found AS (" in q["sql"]]
            slowest = (timings["recall"][-1], statements[0] if statements else "")
        if i % 4 == 0:  # recording writes rows; a sample is enough for its cost
            with common.timed() as t:
                memory_recall(actor=user, query=text, query_embedding=embedding, turn_ref=f"bench:{i}")
            timings["recorded"].append(t())
        with common.timed() as t:
            approx = _vector_top(scope, vector, exact=False, k=CANDIDATES_PER_SOURCE)
        timings["hnsw"].append(t())
        with common.timed() as t:
            truth = _vector_top(scope, vector, exact=True, k=CANDIDATES_PER_SOURCE)
        timings["exact"].append(t())
        if truth:
            overlap.append(len(set(approx[:10]) & set(truth[:10])) / min(10, len(truth)))
    hnsw, exact = common.percentile(timings["hnsw"], 50), common.percentile(timings["exact"], 50)
    recall_p50 = common.percentile(timings["recall"], 50)
    print(f"  {label} ({queries} queries)")
    print(f"    memory_recall, no recording     {common.summary_ms(timings['recall'])}")
    print(f"    memory_recall, recording        {common.summary_ms(timings['recorded'])}")
    print(f"    vector top-50 as recall runs it {common.summary_ms(timings['hnsw'])}")
    print(f"    vector top-50, exact (baseline) {common.summary_ms(timings['exact'])}")
    print(
        f"    exact / recall's vector search p50 {common.ratio(exact, hnsw)};  exact vector search / "
        f"full recall p50 {common.ratio(exact, recall_p50)};  recall@10 vs exact {common.mean(overlap):.3f}",
        flush=True,
    )
    return slowest[1]


def explain_analyze(statement: str) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of a captured candidates statement: its HNSW settings (the part
    before "; ") are applied in the same transaction, then the query itself is explained."""
    from django.db import connection, transaction

    settings_sql, _, query = statement.partition("; ")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(settings_sql)
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {query}")
        plan = [row[0] for row in cursor.fetchall()]
    print("  EXPLAIN (ANALYZE, BUFFERS) of the slowest recall's candidates statement, run again:")
    for line in plan:
        print("    " + line)


def _explain(owners: list[tuple[Any, Any]], synth: Synth) -> None:
    """How the planner serves recall's vector search here: HNSW, or the namespace index + exact sort."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    user, _ = owners[0]
    scope = _user_scope(user)
    with CaptureQueriesContext(connection) as captured:
        vector = synth.vectors(1)[0].tolist()
        common.one_source(scope.where(), "vector", embedding=vector, k=50, scope_size=scope.size)
    settings_sql, _, query = captured.captured_queries[-1]["sql"].partition("; ")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(settings_sql)
        cursor.execute(f"EXPLAIN (COSTS OFF) {query}")
        plan = [row[0] for row in cursor.fetchall()]
    scans = [line.strip().removeprefix("->  ") for line in plan if "on memory_core_memoryentry" in line]
    print("  vector query plan: " + " / ".join(scans))


def embedder_timing(samples: int = 50) -> None:
    from memory_core.embeddings import get_embedder

    embedder = get_embedder()
    embedder.embed_query("warm up the model")
    texts = [
        f"did refund RF2026062900{i % 10} arrive, and what should I cook tonight ({i})?"
        for i in range(samples)
    ]
    durations = []
    for text in texts:
        with common.timed() as t:
            embedder.embed_query(text)
        durations.append(t())
    label = f"query embedding ({embedder.name}, local CPU, not in the figures above)"
    print(f"  {label}: {common.summary_ms(durations)}")


SCENARIOS: dict[str, tuple[str, list[int]]] = {
    "10k": ("10k entries over 1,000 namespaces", [10] * NAMESPACES),
    "100k": ("100k entries over 1,000 namespaces", [100] * NAMESPACES),
    "100k-one": ("one namespace of 100k entries", [100_000]),
    "1m": ("1M entries over 1,000 namespaces", [1000] * NAMESPACES),
    "1m-one": ("one namespace of 1M entries", [1_000_000]),
}


def _loaded(sizes: list[int]) -> list[tuple[Any, Any]] | None:
    """The users and namespaces of a previous load of `sizes` (same counts), else None."""
    from memory_core.models import MemoryEntry, Namespace

    namespaces = list(
        Namespace.objects.filter(path__startswith="user/bench").select_related("owner").order_by("pk")
    )
    if len(namespaces) != len(sizes) or MemoryEntry.objects.count() != sum(sizes):
        return None
    return [(ns.owner, ns) for ns in namespaces]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench recall_latency")
    parser.add_argument("--scale", choices=["default", "1m"], default="default")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--only", choices=list(SCENARIOS))
    parser.add_argument("--reuse", action="store_true")
    parser.add_argument("--explain", action="store_true")
    args = parser.parse_args(argv)
    common.setup()
    common.header("Recall latency (database path; query embedding timed apart)")
    synth = Synth()
    names = (
        [args.only]
        if args.only
        else ["10k", "100k", "100k-one"] + (["1m", "1m-one"] if args.scale == "1m" else [])
    )
    for name in names:
        label, sizes = SCENARIOS[name]
        print(f"- {label}")
        owners = _loaded(sizes) if args.reuse else None
        if owners is None:
            owners = load(synth, sizes=sizes)
        else:
            print(f"  reusing the {sum(sizes):,} rows already loaded")
        _explain(owners, synth)
        slowest = measure(synth, label, owners, queries=args.queries)
        if args.explain and slowest:
            explain_analyze(slowest)
    embedder_timing()


if __name__ == "__main__":
    main()
