"""API rate limits hold across processes: two web servers share the counters (rows in the
database, `api.throttling`), so a client alternating between them gets no more than the limit."""

from __future__ import annotations

import pytest

from api.models import RateCount
from api.services import user_token_issue
from tests.serving.processes import WebServer, get, production_env, running

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 6


def test_two_server_processes_count_one_limit(make_user, tmp_path):
    token = user_token_issue(user=make_user("alice")).key
    RateCount.objects.all().delete()  # counters of earlier tests
    env = production_env(API_RATE_PER_USER=f"{LIMIT}/min", EMBEDDING_BACKEND="openai")
    servers = [WebServer(tmp_path / f"web-{n}.log", workers=1, env=env) for n in range(2)]
    with running(*servers):
        for server in servers:
            server.wait_ready()
        headers = {"Authorization": f"Token {token}", "Accept": "application/json"}
        answers = [get(servers[n % 2].port, "/api/v1/memories/", headers=headers) for n in range(2 * LIMIT)]

    statuses = [status for status, _ in answers]
    assert statuses == [200] * LIMIT + [429] * LIMIT
    assert all(int(response.getheader("Retry-After")) > 0 for _, response in answers[LIMIT:])
