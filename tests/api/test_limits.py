"""Rate limits per key and per person (429 with Retry-After), and body limits (413)."""

from __future__ import annotations

import pytest

from tests.api.conftest import client_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def tight_rates(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api_key": "3/min", "api_user": "2/min"},
    }


def test_it_limits_each_key_on_its_own(tight_rates, tenant, make_key):
    first, second = client_with(make_key(tenant)), client_with(make_key(tenant))
    statuses = [first.get("/api/v1/memories/", {"user_id": "u"}).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = first.get("/api/v1/memories/", {"user_id": "u"})
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert "throttled" in limited.json()["code"]
    assert second.get("/api/v1/memories/", {"user_id": "u"}).status_code == 200


def test_it_limits_each_person(tight_rates, owner_client, other_client):
    assert [owner_client.get("/api/v1/memories/").status_code for _ in range(3)] == [200, 200, 429]
    assert other_client.get("/api/v1/memories/").status_code == 200


def test_the_body_limit_is_a_setting(settings, owner_client):
    settings.API_MAX_BODY_BYTES = 100
    response = owner_client.post("/api/v1/memories/", {"content": "x" * 200}, format="json")
    assert response.status_code == 413 and "100 bytes" in response.json()["detail"]
