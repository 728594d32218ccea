"""Management commands: create a tenant, issue and revoke keys, issue personal tokens."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from api.models import ApiKey, Tenant
from tests.api.conftest import client_with

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def test_it_creates_a_tenant_and_issues_a_working_key(operator):
    run("create_tenant", "acme", "--name", "Acme Inc", "--by", operator.username)
    assert Tenant.objects.get(slug="acme").created_by == operator

    key = run("issue_api_key", "--tenant", "acme", "--scopes", "read,write")
    stored = ApiKey.objects.get()
    assert key.startswith(stored.prefix + "_") and stored.scopes == ["read", "write"]
    assert key not in stored.secret_hash  # only the hash is kept
    client = client_with(key)
    assert client.get("/api/v1/memories/", {"user_id": "u"}).status_code == 200

    run("revoke_api_key", stored.prefix)
    response = client.get("/api/v1/memories/", {"user_id": "u"})
    assert response.status_code == 401 and "revoked" in response.json()["detail"]


def test_it_refuses_bad_arguments():
    with pytest.raises(CommandError):
        run("create_tenant", "Not A Slug")
    run("create_tenant", "acme")
    with pytest.raises(CommandError):
        run("create_tenant", "acme")
    with pytest.raises(CommandError):
        run("issue_api_key", "--tenant", "acme", "--scopes", "read,fly")
    with pytest.raises(CommandError):
        run("issue_api_key", "--tenant", "nope")
    with pytest.raises(CommandError):
        run("revoke_api_key", "mk_00000000")


def test_it_issues_personal_tokens(owner):
    first = run("issue_user_token", owner.username)
    second = run("issue_user_token", owner.username)
    assert client_with(first).get("/api/v1/memories/").status_code == 401  # replaced
    assert client_with(second).get("/api/v1/memories/").status_code == 200
    with pytest.raises(CommandError):
        run("issue_user_token", "nobody")


def test_a_forged_key_with_a_real_prefix_fails(tenant, make_key):
    key = make_key(tenant)
    assert client_with(key[:-4] + "AAAA").get("/api/v1/memories/", {"user_id": "u"}).status_code == 401
    assert client_with("mk_nothing").get("/api/v1/memories/").status_code == 401
