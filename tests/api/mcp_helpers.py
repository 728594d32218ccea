"""The MCP server under test, reached with the SDK's own client: over streamable HTTP (config.asgi
served by uvicorn in a thread, lifespan on) or over stdio (`manage.py mcp --user` as a child)."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, TypeVar

import anyio
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.serving.processes import ROOT, free_port, production_env

T = TypeVar("T")

TOOLS = {
    "memory_add",
    "memory_add_messages",
    "memory_search",
    "memory_list",
    "memory_get",
    "memory_correct",
    "memory_erase",
    "memory_erase_all",
    "memory_history",
    "memory_restore",
    "memory_job",
    "entity_list",
    "entity_get",
    "entity_correct",
    "entity_merge",
    "entity_erase",
    "entity_search",
    "entity_observe",
    "relation_list",
    "relation_get",
    "relation_correct",
    "relation_erase",
    "relation_create",
    "graph_read",
    "graph_clear",
}


@contextmanager
def asgi_server() -> Iterator[str]:
    """The site's ASGI app (Django + /mcp/) on a free port; yields the MCP endpoint's URL."""
    from config.asgi import application

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(application, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the ASGI server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp/"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@asynccontextmanager
async def http_client(url: str, credential: str | None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {credential}"} if credential else {}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def stdio_parameters(username: str, **settings: str) -> StdioServerParameters:
    """`manage.py mcp --user` on the test database, with the test settings (tasks run inline) and
    `settings` as environment variables."""
    env = production_env(DJANGO_SETTINGS_MODULE="config.test_settings", DEBUG="true", **settings)
    return StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp", "--user", username], env=env, cwd=str(ROOT)
    )


@asynccontextmanager
async def stdio_client(username: str, **settings: str) -> AsyncIterator[Client]:
    async with Client(stdio_parameters(username, **settings), read_timeout_seconds=120) as client:
        yield client


def orm(query: Callable[[], T]) -> T:
    """An ORM read inside a scenario's event loop. Django gives the loop's context a connection of
    its own; it is closed here, or it would outlive the test database."""
    from django.db import connections

    try:
        return query()
    finally:
        connections.close_all()


async def call(client: Client, tool: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """(failed, body) of a tool call: the structured result, or the error body the API would send."""
    result = await client.call_tool(tool, arguments)
    body = result.structured_content
    if body is None:
        body = json.loads(result.content[0].text)  # type: ignore[union-attr]
    return bool(result.is_error), body


async def ok(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    failed, body = await call(client, tool, **arguments)
    assert not failed, body
    return body


def adds(url: str, token: str, contents: list[str]) -> list[dict[str, Any]]:
    """The answers of `memory_add` to each of `contents`, said in one session over HTTP."""

    async def scenario() -> list[dict[str, Any]]:
        async with http_client(url, token) as client:
            return [await ok(client, "memory_add", content=content) for content in contents]

    return anyio.run(scenario)


async def profile(client: Client, uri: str = "memory://profile") -> dict[str, Any]:
    result = await client.read_resource(uri)
    return json.loads(result.contents[0].text)  # type: ignore[union-attr]
