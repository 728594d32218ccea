"""The production web server (gunicorn + uvicorn workers, lifespan on) serves the MCP endpoint next
to the REST API: each worker runs the SDK's session manager, and any worker answers any call."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import anyio
import pytest

from api.services import user_token_issue
from memory_core.services import EntryDraft, memory_create, namespace_for_user
from tests.api import mcp_helpers as m
from tests.serving.processes import WebServer, get, production_env, running

pytestmark = pytest.mark.django_db(transaction=True)


def test_gunicorn_workers_serve_mcp_beside_the_api(make_user, tmp_path):
    alice = make_user("alice")
    token = user_token_issue(user=alice).key
    memory_create(
        namespace=namespace_for_user(user=alice), draft=EntryDraft(content="The user plays the cello.")
    )
    server = WebServer(tmp_path / "web.log", workers=2, env=production_env(EMBEDDING_BACKEND="openai"))

    async def calls(url: str) -> list[dict]:
        answers = []
        for _ in range(6):  # new connections: the two workers share them
            async with m.http_client(url, token) as client:
                answers.append(await m.ok(client, "memory_list"))
        return answers

    with running(server):
        server.wait_ready()
        # In a thread of its own: an earlier test (a browser's sync API) may leave this thread's loop set.
        with ThreadPoolExecutor(1) as pool:
            answers = pool.submit(anyio.run, calls, f"http://127.0.0.1:{server.port}/mcp/").result()
        status, _ = get(server.port, "/api/v1/memories/", headers={"Authorization": f"Token {token}"})
        assert status == 200
        assert server.alive(), server.tail()

    assert [[r["content"] for r in a["results"]] for a in answers] == [["The user plays the cello."]] * 6
