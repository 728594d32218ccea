"""What the erasure disk pass costs: the debounced vacuum pass and the nightly rewrite of every
table (VACUUM FULL: each table locked while it is copied, indexes, HNSW included, rebuilt), at a
few sizes of the memory table. The figures size `ERASURE_REWRITE_NOW_MAX_MB` and tell whether the
nightly rewrite fits in the django-q task timeout (`Q_TIMEOUT`) or belongs in cron.

Rows are bulk-inserted with random unit vectors (the embedding model is not what is measured).

`python -m bench erasure_rewrite [--counts 5000,20000]`
"""

from __future__ import annotations

import argparse
import random

from bench import common


def _fill(count: int) -> tuple[object, list[object]]:
    from django.contrib.auth import get_user_model

    from memory_core.models import EMBEDDING_DIMENSIONS, MemoryEntry
    from memory_core.services import namespace_for_user

    user, _ = get_user_model().objects.get_or_create(username="bench-eraser")
    namespace = namespace_for_user(user=user)
    rng = random.Random(7)

    def vector() -> list[float]:
        values = [rng.gauss(0, 1) for _ in range(EMBEDDING_DIMENSIONS)]
        norm = sum(v * v for v in values) ** 0.5
        return [v / norm for v in values]

    rows = MemoryEntry.objects.bulk_create(
        (
            MemoryEntry(
                namespace=namespace,
                type="semantic",
                content=f"The user mentioned fact number {i} about their week, with a few more words.",
                source_kind="extracted",
                embedding=vector(),
                embedding_model="bench-random",
            )
            for i in range(count)
        ),
        batch_size=1000,
    )
    return user, [row.pk for row in rows[:: max(1, count // 20)]]


def _size_mb(table: str) -> float:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s::regclass)", [table])
        return int(cursor.fetchone()[0]) / 1024 / 1024


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench erasure_rewrite")
    parser.add_argument("--counts", default="5000,20000", help="Memory-table sizes, comma-separated.")
    args = parser.parse_args(argv)
    common.setup()
    from django.test import override_settings

    from memory_core.compaction import compaction_run
    from memory_core.erasure import memory_erase

    common.header("Erasure disk pass (memory table with HNSW + GIN indexes)")
    columns = ("memories", "table MB", "erase one", "vacuum pass", "rewrite pass", "MB/s")
    print(" ".join(f"{name:>{width}}" for name, width in zip(columns, (9, 9, 10, 12, 13, 6), strict=True)))
    for count in (int(c) for c in args.counts.split(",")):
        common.truncate()
        user, ids = _fill(count)
        compaction_run(rewrite_all=True)  # start from clean files, as after a night
        size = _size_mb("memory_core_memoryentry")
        with common.timed() as erase_time:
            for pk in ids:
                memory_erase(actor=user, memory_id=pk)
        with override_settings(ERASURE_REWRITE_NOW_MAX_MB=0), common.timed() as vacuum_time:
            compaction_run()  # every table vacuumed, none rewritten: the pass of a big install
        with common.timed() as rewrite_time:
            report = compaction_run(rewrite_all=True)
        assert report.complete, report.as_dict()
        print(
            f"{count:>9} {size:>9.1f} {erase_time() / len(ids) * 1000:>8.1f}ms {vacuum_time():>11.2f}s "
            f"{rewrite_time():>12.2f}s {size / rewrite_time():>6.1f}",
            flush=True,
        )
    common.truncate()
