"""Server time of the /me/ list at 10,000 memories (issue 13 asks for under 100 ms).

One user with N memories (facts, preferences, events, procedures; active, hidden, superseded),
each with its creation event, bulk-loaded. Timed in-process with Django's test client (routing,
middleware, the queries, rendering): the first page, a page deep in the list, a filtered page,
and a word search (which embeds the query for the meaning half; once with the same query, whose
vector the embedder's cache keeps, and once with a new query each request), with each page's size
and the CPU time of this process (the part a busy machine moves least; the database's is not in
it). Baseline in the same run: the same pages for a user with no memories. Then the request that
opening a row makes.

`python -m bench me_list [--memories N] [--repeat R]`
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bench import common

PAGES = {
    "first page": {},
    "page 100": {"page": "100"},
    "facts, page 20": {"type": "facts", "page": "20"},
    "all statuses, page 50": {"status": "all", "page": "50"},
    "search 'bicycle 77'": {"q": "bicycle 77"},
}
# Each request a query not asked before, so it is embedded (the row above reuses the cached vector).
_asked = iter(range(1_000_000))
NEW_QUERY = "search, new each time"


def _new_query() -> dict[str, str]:
    return {"q": f"bicycle {next(_asked)} shop"}


def _load(user: Any, n: int) -> None:
    from django.utils import timezone

    from memory_core.models import MemoryEntry, MemoryEvent
    from memory_core.services import namespace_for_user

    namespace = namespace_for_user(user=user)
    kinds = [
        ("semantic", "general"),
        ("semantic", "preference"),
        ("episodic", "event"),
        ("procedural", "sop"),
    ]
    statuses = ["active"] * 8 + ["hidden", "superseded"]
    now = timezone.now()
    entries = [
        MemoryEntry(
            namespace=namespace,
            type=kinds[i % 4][0],
            category=kinds[i % 4][1],
            content=f"The user owns bicycle number {i}, bought in shop {i % 97}.",
            source_kind="user_explicit",
            status=statuses[i % 10] if kinds[i % 4][0] != "procedural" else "pending_review",
            recorded_at=now - timedelta(minutes=i),
            valid_from=now - timedelta(minutes=i),
        )
        for i in range(n)
    ]
    MemoryEntry.objects.bulk_create(entries, batch_size=2000)
    MemoryEvent.objects.bulk_create(
        [
            MemoryEvent(namespace=namespace, entry=e, entry_ref=e.pk, action="created", actor_kind="user")
            for e in entries
        ],
        batch_size=2000,
    )


def _time(
    client: Any,
    params: dict[str, str] | Callable[[], dict[str, str]],
    repeat: int,
    url: str = "/me/",
    headers: dict[str, str] | None = None,
) -> Timing:
    def query() -> dict[str, str]:
        return params() if callable(params) else params

    # Warm: the first request compiles templates, loads the embedder.
    client.get(url, query(), headers=headers)
    samples, cpu, size = [], [], 0
    for _ in range(repeat):
        asked = query()
        started = time.process_time()
        with common.timed() as elapsed:
            response = client.get(url, asked, headers=headers)
        cpu.append(time.process_time() - started)
        assert response.status_code == 200, response.status_code
        samples.append(elapsed())
        size = len(response.content)
    return Timing(samples, cpu, size)


@dataclass
class Timing:
    samples: list[float]  # wall clock
    cpu: list[float]  # this process's CPU time (Python: routing, ORM, rendering): less moved by load
    size: int  # bytes of the page

    def __str__(self) -> str:
        cpu = common.percentile(self.cpu, 50) * 1000
        return f"{common.summary_ms(self.samples)} cpu p50 {cpu:6.1f} ms {self.size / 1024:6.1f} KB"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench me_list")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    common.setup()
    common.truncate()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    User = get_user_model()
    users = {}
    for name in ("bench-me-full", "bench-me-empty"):
        User.objects.filter(username=name).delete()
        users[name] = User.objects.create_user(username=name)  # force_login: no password
    _load(users["bench-me-full"], args.memories)
    with connection.cursor() as cursor:
        # What autovacuum does after a bulk load: statistics, and the visibility map that lets the
        # totals read the (namespace, status, type, category) index alone.
        cursor.execute("VACUUM ANALYZE memory_core_memoryentry")
        cursor.execute("VACUUM ANALYZE memory_core_memoryevent")

    common.header(f"/me/ server time, {args.memories:,} memories vs none ({args.repeat} requests each)")
    clients = {}
    for name, user in users.items():
        clients[name] = Client(HTTP_HOST="localhost")
        clients[name].force_login(user)
    pages: dict[str, Any] = {**PAGES, NEW_QUERY: _new_query}
    for label, params in pages.items():
        full = _time(clients["bench-me-full"], params, args.repeat)
        empty = _time(clients["bench-me-empty"], params, args.repeat)
        ratio = common.ratio(common.percentile(full.samples, 50), common.percentile(empty.samples, 50))
        print(f"{label:24s} {full}   empty: {empty}   ratio p50 {ratio}", flush=True)
    # Opening a row loads its body (source, use, history, actions): one request per opened row.
    first = clients["bench-me-full"].get("/me/").content.decode()
    row = re.search(r'hx-get="(/me/memories/[0-9a-f-]+/row/)"', first)
    if row:
        opened = _time(clients["bench-me-full"], {}, args.repeat, url=row[1], headers={"HX-Request": "true"})
        print(f"{'opening one row':24s} {opened}", flush=True)
    for user in users.values():
        user.delete()
    common.truncate()
