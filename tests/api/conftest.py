"""API fixtures: tenants and their keys, personal tokens, API clients for each kind of caller."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from api.models import Tenant
from api.services import api_key_issue, tenant_create, user_token_issue
from tests.api.world import World, build_world

# mem0's client reads these at import: no telemetry (it would call PostHog), config in a temp dir.
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("MEM0_DIR", os.path.join(tempfile.gettempdir(), "mem0-test-config"))

ALL_SCOPES = ["read", "write", "erase", "moderate"]


@pytest.fixture
def tenant(db, operator) -> Tenant:
    return tenant_create(name="Acme", slug="acme", created_by=operator)


@pytest.fixture
def other_tenant(db) -> Tenant:
    return tenant_create(name="Globex", slug="globex")


@pytest.fixture
def make_key(db) -> Callable[..., str]:
    def _make(tenant: Tenant, scopes: list[str] | None = None) -> str:
        return api_key_issue(tenant=tenant, scopes=scopes or ALL_SCOPES)[1]

    return _make


def client_with(credential: str | None) -> APIClient:
    client = APIClient()
    if credential:
        client.credentials(HTTP_AUTHORIZATION=f"Token {credential}")
    return client


@pytest.fixture
def key_client(tenant, make_key) -> APIClient:
    """The tenant's client, with every scope."""
    return client_with(make_key(tenant))


@pytest.fixture
def owner_client(owner) -> APIClient:
    return client_with(user_token_issue(user=owner).key)


@pytest.fixture
def other_client(other_user) -> APIClient:
    return client_with(user_token_issue(user=other_user).key)


@pytest.fixture
def closed_connections() -> Iterator[None]:
    """Connections closed after each request while the test runs: a live or MCP server answers each
    request in a worker thread, and a connection kept open there would outlive the test database."""
    from django.db import connections

    conf = connections.settings["default"]
    previous = conf.get("CONN_MAX_AGE", 0)
    conf["CONN_MAX_AGE"] = 0
    yield
    conf["CONN_MAX_AGE"] = previous


@pytest.fixture
def live_url(live_server, closed_connections) -> str:
    """The live server's URL, with connections closed after each request (`closed_connections`)."""
    return live_server.url


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    """Built once per module (embedding its texts is the slow part); tests that use it also take
    `db`, so each runs in a transaction that is rolled back and sees the world as it was built."""
    with django_db_blocker.unblock():
        make = get_user_model().objects.create_user
        alice, bob = make("alice", password="pw-alice"), make("bob", password="pw-bob")
        olga = make("olga", password="pw-olga", is_staff=True)
        built = build_world(alice=alice, bob=bob, olga=olga)
    yield built
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(scope="session")
def mcp_url() -> Iterator[str]:
    """The site's ASGI app with the MCP server, once per run: the SDK's session manager can be
    started only once in a process, so every MCP test module shares it."""
    from tests.api.mcp_helpers import asgi_server

    with asgi_server() as url:
        yield url
