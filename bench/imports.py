"""A large import as a job, and the same user's adds meanwhile, through the public path.

The production web server (`config/gunicorn.py`) and a `manage.py qcluster` on the embedded
server's `bench_api` database. One end user of a tenant: a few adds first (the baseline), then
`POST /api/v1/imports/` with `--lines` statements (a job), and adds for the same user
(`POST /api/v1/memories/`) back to back while the job runs. Prints the import's rate (lines per
second, from the request to `done`) and the p50/p95 latency of the concurrent adds, against the
baseline. Nothing is bypassed: every write goes through the REST API and the cluster.

Also times the dry run of the same input (bounded to IMPORT_PREVIEW_MAX statements).

`python -m bench imports [--lines 5000] [--baseline 20]`
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from bench import common
from bench.serving import Child, _call, _production_env, _seed, start_web

ROOT = Path(__file__).resolve().parent.parent


def _add(port: int, key: str, n: int) -> tuple[int, float]:
    body = {"user_id": "client-0", "content": f"The user ran a concurrent errand number {n}."}
    started = time.perf_counter()
    status, _ = _call(port, key, "POST", "/api/v1/memories/", body)
    return status, time.perf_counter() - started


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench imports")
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--baseline", type=int, default=20, help="adds measured before the import")
    args = parser.parse_args(argv)

    from bench import api_load

    api_load.setup()
    from django.conf import settings

    [key] = _seed(1, 5)
    db = settings.DATABASES["default"]
    env = _production_env(
        EMBEDDED_DB_NAME=db["NAME"],
        EMBEDDED_PGDATA=str(db["PGDATA"]),
        Q_CLUSTER_NAME=f"bench-imports-{uuid.uuid4().hex[:8]}",
        Q_WORKERS="1",
    )
    logs = Path(tempfile.mkdtemp(prefix="bench-imports-"))
    web, port = start_web(env, 2, logs / "web.log")
    cluster = Child([sys.executable, str(ROOT / "manage.py"), "qcluster"], env, logs / "cluster.log")
    try:
        baseline = [_add(port, key, -n) for n in range(1, args.baseline + 1)]
        lines = "\n".join(f"- Has tasted tea number {n} from the import" for n in range(1, args.lines + 1))
        asked = {"user_id": "client-0", "format": "text", "data": lines}
        with common.timed() as previewing:
            status, raw = _call(port, key, "POST", "/api/v1/imports/", {**asked, "dry_run": True})
        preview = json.loads(raw) if status == 200 else {"status": status}
        started = time.monotonic()
        status, body = _call(port, key, "POST", "/api/v1/imports/", asked)
        if status not in (201, 202):
            sys.exit(f"imports: the import was refused ({status}): {body[:300]!r}")
        job = json.loads(body)
        adds: list[tuple[int, float]] = []
        finished = threading.Event()

        def adder() -> None:
            n = 0
            while not finished.is_set():
                n += 1
                adds.append(_add(port, key, n))

        thread = threading.Thread(target=adder)
        thread.start()
        state: dict[str, object] = {}
        while time.monotonic() - started < 1800:
            time.sleep(2)
            _, raw = _call(port, key, "GET", f"/api/v1/imports/{job['id']}/?user_id=client-0")
            state = json.loads(raw) if raw else {}
            if state.get("status") in ("done", "failed"):
                break
        took = time.monotonic() - started
        finished.set()
        thread.join()
    finally:
        cluster.stop()
        web.stop()

    ok = [seconds for status, seconds in adds if 200 <= status < 300]
    base = [seconds for status, seconds in baseline if 200 <= status < 300]
    print("imports: public path (POST /api/v1/imports/, POST /api/v1/memories/ on the production web")
    print("  server, a qcluster with 1 worker; embedded PostgreSQL); nothing bypassed")
    progress = f"{state.get('status')} {state.get('done')}/{state.get('total')}"
    print(f"  import of {args.lines} lines: {progress} in {took:.1f} s = {args.lines / took:.1f} lines/s")
    print(f"  its error: {state.get('error') or '-'}")
    print(f"  its dry run first: {previewing():.2f} s, bounded {preview.get('bounded')}, "
          f"previewed {preview.get('previewed')} of {preview.get('total')}")  # fmt: skip
    print(f"  adds for the same user before it: {len(base)}, {common.summary_ms(base)}")
    print(
        f"  adds for the same user during it: {len(ok)} ok, {len(adds) - len(ok)} failed, "
        f"{common.summary_ms(ok)}, max {max(ok, default=float('nan')) * 1000:.0f} ms"
    )
