"""MCP search over streamable HTTP beside the REST recall call: what the MCP layer costs.

One production web server (gunicorn, `--workers` uvicorn workers, default 1, the embedding model
loaded before the port opens) serves both from the `bench_mcp` database: a tenant key, one end user
with `--memories` statements. The same queries go, alternately, to `POST /api/v1/recall/` (one
keep-alive HTTP client) and to the `memory_search` tool through the official SDK client (one
session, JSON answers): both authenticate, embed the query, recall and log it. Baseline: the REST
call, in the same run. The ratio is MCP / REST at p50 and p95.

`python -m bench mcp [--memories 300] [--queries 200] [--workers 1]`
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from bench import api_load, common, serving

DB_NAME = "bench_mcp"
QUERIES = [
    "What is the user's favourite coffee?",
    "Which city does the user like?",
    "What sport does the user play?",
    "Which book did the user enjoy?",
    "What does the user like to eat?",
    "Which language is the user learning?",
    "Does the user have a pet?",
    "What music does the user listen to?",
]


async def _measure(port: int, key: str, queries: int, warm_up: int) -> tuple[list[float], list[float]]:
    import httpx
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    rest_times: list[float] = []
    mcp_times: list[float] = []
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as rest,
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(f"{base}/mcp/", http_client=http)) as client,
    ):
        for n in range(warm_up + queries):
            query = QUERIES[n % len(QUERIES)]
            body = {"query": query, "user_id": "client-0", "limit": 10}
            started = time.perf_counter()
            response = await rest.post("/api/v1/recall/", json=body)
            rest_elapsed = time.perf_counter() - started
            assert response.status_code == 200, response.text
            started = time.perf_counter()
            result = await client.call_tool("memory_search", body)
            mcp_elapsed = time.perf_counter() - started
            assert not result.is_error, result.content
            if n >= warm_up:
                rest_times.append(rest_elapsed)
                mcp_times.append(mcp_elapsed)
    return rest_times, mcp_times


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench mcp")
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)

    import logging

    import anyio

    for name in ("httpx", "httpx2"):  # a line per request otherwise
        logging.getLogger(name).setLevel(logging.WARNING)
    api_load.setup(DB_NAME)
    world = api_load.seed(1, args.memories, random.Random(100))
    env = serving._production_env(EMBEDDED_DB_NAME=DB_NAME)
    log = Path(tempfile.mkdtemp(prefix="bench-mcp-")) / "web.log"
    web, port = serving.start_web(env, args.workers, log)
    try:
        rest_times, mcp_times = anyio.run(_measure, port, world.keys[0], args.queries, 10)
    finally:
        web.stop()

    p50 = common.percentile(mcp_times, 50) / common.percentile(rest_times, 50)
    p95 = common.percentile(mcp_times, 95) / common.percentile(rest_times, 95)
    print(f"MCP search vs REST recall: {args.memories} memories, {args.queries} queries each, "
          f"{args.workers} worker(s), sequential")  # fmt: skip
    print(f"  REST POST /api/v1/recall/      {common.summary_ms(rest_times)}")
    print(f"  MCP  tools/call memory_search  {common.summary_ms(mcp_times)}")
    extra = (common.percentile(mcp_times, 50) - common.percentile(rest_times, 50)) * 1000
    print(f"  MCP / REST                     p50 x{p50:.2f}  p95 x{p95:.2f}  (p50 {extra:+.2f} ms)")
