"""The two lookups every tenant request makes, read by hand-written SQL (`api.rows`): the key with
its tenant, and the subject's namespace with its owner. Each is one statement, makes the instances
the ORM makes, and reaches only what the ORM query it replaces reached."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import exceptions

from api.auth import Caller, api_key_authenticate
from api.models import ApiKey, EntityKind, Tenant, TenantNamespace
from api.rows import Columns, fetch_one
from api.selectors import subject_for
from api.services import api_key_issue, api_key_revoke, tenant_agent_ensure, tenant_user_ensure
from memory_core.models import MemoryEntry, Namespace
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def _fields(instance: Any) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


def _caller(raw: str) -> Caller:
    user, key = api_key_authenticate(raw)
    return Caller(user, key)


def test_a_key_and_its_tenant_are_read_in_one_statement_as_the_orm_reads_them(tenant):
    raw = api_key_issue(tenant=tenant, scopes=["read", "write"])[1]
    api_key_authenticate(raw)  # the first use is recorded (once a minute)

    with CaptureQueriesContext(connection) as captured:
        client, key = api_key_authenticate(raw)
        assert client.tenant.slug == "acme"

    assert len(captured.captured_queries) == 1
    stored = ApiKey.objects.select_related("tenant").get(pk=key.pk)
    assert _fields(key) == _fields(stored) and key.scopes == ["read", "write"]
    assert _fields(key.tenant) == _fields(stored.tenant) and isinstance(key.tenant, Tenant)
    assert not key._state.adding and key._state.db == "default"


def test_a_wrong_secret_an_unknown_prefix_and_a_revoked_key_are_refused(tenant):
    key, raw = api_key_issue(tenant=tenant, scopes=["read"])

    for wrong in (raw[:-1] + ("0" if raw[-1] != "0" else "1"), "mk_00000000_" + "x" * 32):
        with pytest.raises(exceptions.AuthenticationFailed, match="Invalid API key"):
            api_key_authenticate(wrong)
    api_key_revoke(prefix=key.prefix)
    with pytest.raises(exceptions.AuthenticationFailed, match="revoked"):
        api_key_authenticate(raw)


def test_a_subject_is_read_in_one_statement_with_its_namespace_and_owner(tenant, make_key):
    user, namespace = tenant_user_ensure(tenant=tenant, external_id="u1")
    caller = _caller(make_key(tenant))

    with CaptureQueriesContext(connection) as captured:
        subject = subject_for(caller, user_id="u1", agent_id=None)
        assert subject is not None
        assert subject.namespace.owner == user  # read with the namespace, no further query

    assert len(captured.captured_queries) == 1
    assert subject.actor == user and _fields(subject.actor) == _fields(user)
    assert _fields(subject.namespace) == _fields(Namespace.objects.get(pk=namespace.pk))
    assert (subject.kind, subject.external_id, subject.tenant) == (EntityKind.USER, "u1", tenant)


def test_another_tenants_user_and_an_unknown_id_are_no_subject(tenant, other_tenant, make_key):
    tenant_user_ensure(tenant=other_tenant, external_id="u1")
    caller = _caller(make_key(tenant))

    assert subject_for(caller, user_id="u1", agent_id=None) is None
    assert subject_for(caller, user_id="nobody", agent_id=None) is None
    own, _ = tenant_user_ensure(tenant=tenant, external_id="u1")
    subject = subject_for(caller, user_id="u1", agent_id=None)
    assert subject is not None and subject.actor == own


def test_an_agent_namespace_without_its_owner_is_no_subject(tenant, make_key):
    """Only a user's namespace must have an owner (a constraint); an agent's without one is no subject."""
    caller = _caller(make_key(tenant))
    owner, namespace = tenant_agent_ensure(tenant=tenant, agent_id="helper")
    subject = subject_for(caller, user_id=None, agent_id="helper")
    assert subject is not None and subject.actor == owner and subject.kind == EntityKind.AGENT

    Namespace.objects.filter(pk=namespace.pk).update(owner=None)

    assert TenantNamespace.objects.filter(tenant=tenant, external_id="helper").exists()
    assert subject_for(caller, user_id=None, agent_id="helper") is None


def test_columns_convert_values_as_the_orm_does(owner):
    """A JSON field arrives as text and is parsed by its converter, as the ORM's compiler does."""
    entry = remember(owner, "The user prefers oolong tea.", metadata={"origin": "intake", "n": [1, 2]})
    columns = Columns(MemoryEntry, "e")

    row = fetch_one(f"SELECT {columns.sql} FROM {MemoryEntry._meta.db_table} e WHERE e.id = %s", [entry.pk])  # noqa: S608
    assert row is not None
    built = columns.instance(row)

    assert built.metadata == {"origin": "intake", "n": [1, 2]}
    assert _fields(built) == _fields(MemoryEntry.objects.get(pk=entry.pk))
