"""REST API under load: recall and batch-create latency and throughput with concurrent clients.

A gunicorn server (`config.wsgi`, `--workers` processes, default 2) on a free loopback port serves
the API from its own database (`bench_api`, emptied first); `--clients` threads (default 16), each
with its own tenant key and end user, send requests for `--seconds` or until `--requests` each,
whichever comes first (requests in flight then finish). The baseline is the same service call made
in this process, one at a time, in the same run: the difference is what HTTP, authentication,
validation and serialisation cost, plus queueing behind the workers (and, on a small machine,
workers and clients competing for the cores the embedding model wants).

Rate limits are lifted for the server (API_RATE_PER_KEY): this measures the API, not the limiter.

`overhead` (issue 33, item 3): the same questions about the same user, one at a time, answered in
this process (`memory_recall`, as the views call it) and by the deployed server (`gunicorn -c
python:config.gunicorn config.asgi:application`, what `make run` starts: uvicorn workers, the
connection pool, the access log, DEBUG off; its rate limits lifted but still counted), alternately
question by question; prints p50/p95 of both, HTTP p95 / in-process p95, and the load average, for
POST /api/v1/recall/ and mem0's POST /v3/memories/search/. The client keeps its connection open, as
SDK clients do. Each question is asked first new (its embedding computed on both sides) and then
again (the query embedding cache's answer on both sides).

`python -m bench.api_load [--clients 16] [--seconds 15] [--requests 200] [--batch 50] [--seed 100]`
`python -m bench.api_load overhead [--questions 120] [--seed 300] [--workers 2]`
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench import common

DB_NAME = "bench_api"
ROOT = Path(__file__).resolve().parent.parent
_SUBJECTS = [
    "coffee",
    "tea",
    "city",
    "sport",
    "book",
    "film",
    "band",
    "dish",
    "language",
    "pet",
    "car",
    "game",
]
_VALUES = ["Lisbon", "jazz", "chess", "ramen", "Dune", "cycling", "Portuguese", "a cat", "oolong", "Kyoto"]


def statements(rng: random.Random, count: int) -> list[str]:
    return [
        f"The user's favourite {rng.choice(_SUBJECTS)} is {rng.choice(_VALUES)} (note {n})."
        for n in (rng.randrange(10**6) for _ in range(count))
    ]


def setup(db_name: str = DB_NAME) -> None:
    """Django on the embedded server's `db_name` database (default `bench_api`), migrated and empty."""
    if os.environ.get("DATABASE_URL"):
        sys.exit("api_load: unset DATABASE_URL; the benchmark uses the embedded server's own database.")
    os.environ["EMBEDDED_DB_NAME"] = db_name
    os.environ.setdefault("DEBUG", "true")  # only for the development secret key
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    if connection.settings_dict["NAME"] != db_name:
        sys.exit(f"api_load: refusing to run against database {connection.settings_dict['NAME']!r}.")
    settings.DEBUG = False  # no query log inside the measured loops
    call_command("migrate", verbosity=0, interactive=False)
    call_command("flush", verbosity=0, interactive=False)


@dataclass
class World:
    keys: list[str]
    subjects: list[Any]  # api.selectors.Subject per client


def seed(clients: int, per_client: int, rng: random.Random) -> World:
    """A tenant, one key and one end user per client, `per_client` memories each (embedded in batches)."""
    from api.models import EntityKind
    from api.selectors import Subject
    from api.services import api_key_issue, tenant_create, tenant_user_ensure
    from memory_core.embeddings import get_embedder
    from memory_core.services import EntryDraft, memory_create

    tenant = tenant_create(name="Bench", slug="bench")
    embedder = get_embedder()
    world = World(keys=[], subjects=[])
    for n in range(clients):
        world.keys.append(api_key_issue(tenant=tenant, scopes=["read", "write"])[1])
        user, namespace = tenant_user_ensure(tenant=tenant, external_id=f"client-{n}")
        world.subjects.append(Subject(user, namespace, EntityKind.USER, f"client-{n}", tenant))
        texts = statements(rng, per_client)
        for text, vector in zip(texts, embedder.embed(texts), strict=True):
            memory_create(namespace=namespace, embedding=vector, draft=EntryDraft(content=text))
    return world


# --- the server ---------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    workers: int, *, db_name: str = DB_NAME, log: IO[bytes] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn on a free loopback port over `db_name`; its stderr (tracebacks) goes to `log` if given."""
    port = _free_port()
    env = {
        **os.environ,
        "EMBEDDED_DB_NAME": db_name,
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "API_RATE_PER_KEY": "100000000/min",
        "LOG_LEVEL": "WARNING",
    }
    command = [
        sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", str(workers),
        "--bind", f"127.0.0.1:{port}", "--timeout", "120", "--log-level", "warning",
    ]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True, stderr=log)
    return server, port


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)  # the gunicorn master we started, and its workers
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def call(port: int, key: str, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Token {key}", "Content-Type": "application/json"}
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def wait_ready(
    port: int, key: str, server: subprocess.Popen[bytes], workers: int, *, user_id: str = "client-0"
) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit("api_load: gunicorn exited during start-up")
        try:
            if call(port, key, "GET", "/v1/ping/")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        sys.exit("api_load: the server did not answer within 120 s")
    # Every worker loads the embedding model on its first recall: do that before measuring.
    warm = [threading.Thread(target=call, args=(port, key, "POST", "/api/v1/recall/",
                                                {"user_id": user_id, "query": "warm up"}))
            for _ in range(workers * 3)]  # fmt: skip
    for thread in warm:
        thread.start()
    for thread in warm:
        thread.join()


# --- load ---------------------------------------------------------------------------------------


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    errors: dict[int, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else float("nan")


def load(
    clients: int, seconds: float, requests: int, request: Callable[[int, int], tuple[int, bytes]]
) -> Run:
    """`clients` threads calling `request(client, i)` until `seconds` pass or `requests` each are done."""
    run, lock = Run(), threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(n: int) -> None:
        for i in range(requests):
            if time.monotonic() >= stop_at:
                return
            start = time.perf_counter()
            status, _ = request(n, i)
            elapsed = time.perf_counter() - start
            with lock:
                if status < 300:
                    run.latencies.append(elapsed)
                else:
                    run.errors[status] = run.errors.get(status, 0) + 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    with common.timed() as elapsed:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    run.seconds = elapsed()
    return run


def in_process(seconds: float, requests: int, call_once: Callable[[int], None]) -> Run:
    """The service called directly, one call at a time: the baseline."""
    run = Run()
    stop_at = time.monotonic() + seconds
    with common.timed() as elapsed:
        for i in range(requests):
            if time.monotonic() >= stop_at:
                break
            start = time.perf_counter()
            call_once(i)
            run.latencies.append(time.perf_counter() - start)
    run.seconds = elapsed()
    return run


def report(title: str, unit: str, per_request: int, http: Run, base: Run, label: str) -> None:
    common.header(title)
    for name, run in (("in-process, 1 caller", base), (label, http)):
        errors = f"  errors {http.errors}" if run is http and run.errors else ""
        print(
            f"{name:22} {common.summary_ms(run.latencies)}  {run.rate:8.1f} req/s "
            f"{run.rate * per_request:9.1f} {unit}/s  n={len(run.latencies)}{errors}"
        )
    p50 = common.ratio(common.percentile(http.latencies, 50), common.percentile(base.latencies, 50))
    p95 = common.ratio(common.percentile(http.latencies, 95), common.percentile(base.latencies, 95))
    print(f"HTTP / in-process: p50 {p50}, p95 {p95}, throughput {common.ratio(http.rate, base.rate)}")


# --- overhead: the deployed server against the same call in this process -----------------------

_TEMPLATES = [
    "What is the user's favourite {}?",
    "Which {} does the user like best?",
    "Tell me about the user's {}.",
    "Do you remember my favourite {}?",
    "What {} should I recommend to them?",
    "Has the user mentioned a {} they love?",
    "Any notes on the user's taste in {}?",
    "Remind me which {} they prefer.",
    "What do we know about their {}?",
    "Is there a {} the user talks about often?",
    "Pick a {} the user would enjoy.",
    "What did they say about {} last time?",
    "Which {} came up in our chats?",
    "Their preferred {}, please.",
    "What kind of {} suits the user?",
    "Summarise what the user thinks of {}.",
    "Is the user into any particular {}?",
    "What {} did the user name as a favourite?",
    "Recall the user's {} preference.",
    "Which {} would make the user happy?",
]


def distinct_questions(count: int) -> list[str]:
    """`count` different questions (so that each is new to both query-embedding caches)."""
    every = [template.format(subject) for template in _TEMPLATES for subject in _SUBJECTS]
    if count > len(every):
        sys.exit(f"api_load overhead: at most {len(every)} distinct questions")
    return random.Random(11).sample(every, count)


class KeptConnection:
    """One HTTP connection kept open across requests, as SDK clients keep theirs (mem0's
    `MemoryClient` holds an httpx client): a run's requests all reach the same worker."""

    def __init__(self, port: int, key: str) -> None:
        self.port, self.key = port, key
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def post(self, path: str, body: Any) -> tuple[int, bytes]:
        headers = {"Authorization": f"Token {self.key}", "Content-Type": "application/json"}
        for attempt in range(2):
            try:
                self.connection.request("POST", path, body=json.dumps(body).encode(), headers=headers)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionError):
                self.connection.close()  # closed by the server while idle: open another, once
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.connection.close()


@dataclass
class Route:
    """A recall route: its request over HTTP, the same recall in this process, and the ids each
    answered (to check that both sides answer alike)."""

    path: str
    body: Callable[[str], dict[str, Any]]
    local: Callable[[str], list[str]]
    answered: Callable[[bytes], list[str]]
    same: int = 0


def _routes(subject: Any) -> list[Route]:
    """POST /api/v1/recall/ and mem0's search, each with the engine call its view makes."""
    from api.mem0.options import addressed, categories_q
    from memory_core.recall import memory_recall

    user_id = subject.external_id

    def v1_local(query: str) -> list[str]:
        result = memory_recall(actor=subject.actor, query=query, limit=10, turn_ref=f"api:{uuid.uuid4()}")
        return [str(item.entry.pk) for item in result.items]

    def mem0_local(query: str) -> list[str]:
        body = {"query": query, "filters": {"user_id": user_id}, "top_k": 10}
        _, _, parsed = addressed(body, body["filters"])
        result = memory_recall(
            actor=subject.actor,
            query=query,
            limit=10,
            turn_ref=f"mem0:bench:{time.time()}",
            where=parsed.where & categories_q(None),
        )
        return [str(item.entry.pk) for item in result.items]

    return [
        Route(
            "/api/v1/recall/",
            lambda query: {"user_id": user_id, "query": query, "limit": 10},
            v1_local,
            lambda raw: [str(item["entry"]["id"]) for item in json.loads(raw)["items"]],
        ),
        Route(
            "/v3/memories/search/",
            lambda query: {"query": query, "filters": {"user_id": user_id}, "top_k": 10},
            mem0_local,
            lambda raw: [str(item["id"]) for item in json.loads(raw)["results"]],
        ),
    ]


def _ask(route: Route, client: KeptConnection, questions: list[str]) -> tuple[list[float], list[float]]:
    """Each question in this process and over HTTP, the order swapped every other question."""
    http_ms, base_ms = [], []
    for i, query in enumerate(questions):
        for side in ("local", "http") if i % 2 == 0 else ("http", "local"):
            started = time.perf_counter()
            if side == "local":
                local_ids = route.local(query)
                base_ms.append(time.perf_counter() - started)
                continue
            status, raw = client.post(route.path, route.body(query))
            http_ms.append(time.perf_counter() - started)
            if status != 200:
                sys.exit(f"api_load overhead: {route.path} answered {status}: {raw[:300]!r}")
            http_ids = route.answered(raw)
        route.same += http_ids == local_ids
    return http_ms, base_ms


def overhead_main(args: argparse.Namespace) -> None:
    from django.conf import settings

    from bench.serving import _production_env, start_web

    setup()
    with common.timed() as seeding:
        world = seed(1, args.seed, random.Random(7))
    subject = world.subjects[0]
    questions = distinct_questions(2 * args.questions)
    db = settings.DATABASES["default"]
    env = _production_env(
        EMBEDDED_DB_NAME=db["NAME"],
        EMBEDDED_PGDATA=str(db["PGDATA"]),
        ACCESS_LOG="true",  # as deployed; its lines go to the log file
        LOG_LEVEL="INFO",
    )
    log = Path(tempfile.mkdtemp(prefix="bench-overhead-")) / "web.log"
    web, port = start_web(env, args.workers, log)
    client = KeptConnection(port, world.keys[0])
    routes = _routes(subject)
    started_load = common.load_average()
    rows = []
    try:
        client.post(routes[0].path, routes[0].body("warm up"))  # the worker's first request
        routes[0].local("warm up")
        for n, route in enumerate(routes):
            own = questions[n :: len(routes)]  # each route its own questions: new to both caches
            for phase in ("new", "asked before"):
                route.same = 0
                http_run, base_run = _ask(route, client, own)
                rows.append((route.path, phase, base_run, http_run, route.same))
    finally:
        client.close()
        web.stop()

    common.header(
        f"HTTP against in-process: recall of one user with {args.seed} memories, one client, "
        f"{args.questions} questions per route and phase"
    )
    print(
        f"server: gunicorn -c python:config.gunicorn config.asgi:application, {args.workers} workers, "
        f"one kept connection; seeded in {seeding():.1f} s; log {log}"
    )
    print(f"{'route':22} {'questions':13} {'in-process p50/p95 ms':>22} {'HTTP p50/p95 ms':>16} "
          f"{'p95 ratio':>9} {'p50 ratio':>9} {'+p50 ms':>8} {'same top 10':>11}")  # fmt: skip
    for path, phase, base_run, http_run, same in rows:
        b50, b95 = (common.percentile(base_run, p) * 1000 for p in (50, 95))
        h50, h95 = (common.percentile(http_run, p) * 1000 for p in (50, 95))
        print(
            f"{path:22} {phase:13} {b50:10.2f} / {b95:7.2f}  {h50:7.2f} / {h95:6.2f} "
            f"{common.ratio(h95, b95):>9} {common.ratio(h50, b50):>9} {h50 - b50:8.2f} "
            f"{same:>5}/{len(base_run)}"
        )
    print(f"at the start: {started_load}; at the end: {common.load_average()}")


def main(argv: list[str]) -> None:
    if argv and argv[0] == "overhead":
        parser = argparse.ArgumentParser(prog="python -m bench.api_load overhead")
        parser.add_argument("--questions", type=int, default=120, help="per route (distinct)")
        parser.add_argument("--seed", type=int, default=300, help="memories of the user")
        parser.add_argument("--workers", type=int, default=2, help="web server workers (WEB_WORKERS)")
        overhead_main(parser.parse_args(argv[1:]))
        return
    parser = argparse.ArgumentParser(prog="python -m bench.api_load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=15.0, help="per phase")
    parser.add_argument("--requests", type=int, default=200, help="per client and phase, at most")
    parser.add_argument("--batch", type=int, default=50, help="memories per batch-create request")
    parser.add_argument("--seed", type=int, default=100, help="memories per client before the run")
    args = parser.parse_args(argv)
    rng = random.Random(7)

    setup()
    from api.services import memories_add
    from memory_core.recall import memory_recall

    with common.timed() as seeding:
        world = seed(args.clients, args.seed, rng)
    print(f"seeded {args.clients} users x {args.seed} memories in {seeding():.1f} s")
    queries = [f"What is the user's favourite {subject}?" for subject in _SUBJECTS]
    server, port = start_server(args.workers)
    try:
        wait_ready(port, world.keys[0], server, args.workers)
        print(f"gunicorn: {args.workers} workers on 127.0.0.1:{port}; {args.clients} clients; "
              f"at most {args.seconds:.0f} s or {args.requests} requests per client and phase")  # fmt: skip

        def recall_http(n: int, i: int) -> tuple[int, bytes]:
            body = {"user_id": f"client-{n}", "query": queries[(n + i) % len(queries)], "limit": 10}
            return call(port, world.keys[n], "POST", "/api/v1/recall/", body)

        def recall_local(i: int) -> None:
            subject = world.subjects[i % len(world.subjects)]
            memory_recall(
                actor=subject.actor, query=queries[i % len(queries)], limit=10, turn_ref=f"bench:{i}"
            )

        base = in_process(args.seconds, args.requests, recall_local)
        http_run = load(args.clients, args.seconds, args.requests, recall_http)
        label = f"HTTP, {args.clients} clients"
        report("recall (POST /api/v1/recall/, limit 10)", "recalls", 1, http_run, base, label)

        def batch(n: int, i: int) -> list[dict[str, str]]:
            return [{"content": text} for text in statements(random.Random(n * 100_003 + i), args.batch)]

        def create_http(n: int, i: int) -> tuple[int, bytes]:
            body = {"user_id": f"client-{n}", "memories": batch(n, i)}
            return call(port, world.keys[n], "POST", "/api/v1/memories/", body)

        def create_local(i: int) -> None:
            items = [{**item, "metadata": {}} for item in batch(10_000 + i, i)]
            memories_add(subject=world.subjects[i % len(world.subjects)], items=items, api_key=True)

        base = in_process(args.seconds, max(1, args.requests // 4), create_local)
        http_run = load(args.clients, args.seconds, max(1, args.requests // 4), create_http)
        report(f"batch create (POST /api/v1/memories/, {args.batch} per request)", "memories", args.batch,
               http_run, base, label)  # fmt: skip
    finally:
        stop_server(server)


if __name__ == "__main__":
    main(sys.argv[1:])
