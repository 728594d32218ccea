"""Hot paths keep a constant number of queries, whatever the number of memories they return."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from api.services import tenant_user_ensure
from memory_core.services import EntryDraft, memory_create

pytestmark = pytest.mark.django_db


def _queries(client, method: str, url: str, body=None) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(url, body, format="json")
    assert response.status_code == 200, response.content
    return len(captured)


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("get", "/api/v1/memories/?user_id=u1", None),
        ("post", "/api/v1/recall/", {"user_id": "u1", "query": "What does the user play?", "limit": 50}),
        ("post", "/v3/memories/", {"filters": {"user_id": "u1"}}),
        ("post", "/v3/memories/search/", {"query": "What does the user play?", "filters": {"user_id": "u1"}}),
    ],
)
def test_it_does_not_query_per_memory(key_client, tenant, method, url, body):
    _user, namespace = tenant_user_ensure(tenant=tenant, external_id="u1")
    for n in range(2):
        memory_create(namespace=namespace, draft=EntryDraft(content=f"The user plays instrument number {n}."))
    _queries(key_client, method, url, body)  # the first call of a key also records its use
    few = _queries(key_client, method, url, body)
    for n in range(2, 25):
        memory_create(namespace=namespace, draft=EntryDraft(content=f"The user plays instrument number {n}."))
    assert _queries(key_client, method, url, body) == few


def test_bearer_works_for_tenant_keys(tenant, make_key):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {make_key(tenant)}")
    assert client.get("/api/v1/memories/", {"user_id": "u1"}).status_code == 200
