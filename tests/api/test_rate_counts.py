"""Rate limits counted in the database, one statement per request (`api.throttling`): a refused
request uses nothing up, the limit comes back as the window slides, Retry-After says when, and
requests of one key arriving at once get exactly the limit between them."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext

from api import throttling
from api.models import RateCount
from tests.api.conftest import client_with


@pytest.fixture
def rates(settings):
    def _set(per_key: str, per_user: str = "100/min") -> None:
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {"api_key": per_key, "api_user": per_user},
        }

    return _set


def _statuses(client, count: int) -> list[int]:
    return [client.get("/api/v1/memories/", {"user_id": "u"}).status_code for _ in range(count)]


@pytest.mark.django_db
def test_refused_requests_use_nothing_up_and_the_limit_comes_back(rates, key_client):
    rates("3/s")
    time.sleep(1 - time.time() % 1 + 0.02)  # start at the beginning of a one-second window

    assert _statuses(key_client, 3) == [200, 200, 200]
    assert _statuses(key_client, 5) == [429] * 5
    # Halfway through the next second the three allowed weigh 1.5: one more fits. Had the five
    # refusals counted, the eight would weigh 4 and none would.
    time.sleep(1 - time.time() % 1 + 0.5)
    assert _statuses(key_client, 2) == [200, 429]
    time.sleep(2.05)  # two windows on: the old counts weigh nothing
    assert _statuses(key_client, 4) == [200, 200, 200, 429]


@pytest.mark.django_db
def test_retry_after_says_when_one_more_request_fits(rates, key_client):
    rates("2/min")

    assert _statuses(key_client, 2) == [200, 200]
    refused = key_client.get("/api/v1/memories/", {"user_id": "u"})

    # This minute's two requests still weigh 2 x (1 - t/60) into the next minute: one more fits
    # 30 s into it, so between 30 and 90 s from now, whatever second of the minute this is.
    assert refused.status_code == 429
    assert 30 <= int(refused["Retry-After"]) <= 90


@pytest.mark.django_db
def test_a_request_costs_one_counting_statement_whoever_asks(rates, key_client, owner_client):
    rates("100/min")
    key_client.get("/api/v1/memories/", {"user_id": "u"})  # the key's first use is recorded once
    owner_client.get("/api/v1/memories/")

    for client, query in ((key_client, {"user_id": "u"}), (owner_client, {})):
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/api/v1/memories/", query).status_code == 200
        counting = [q["sql"] for q in captured.captured_queries if "api_ratecount" in q["sql"]]
        assert len(counting) == 1
        assert not [q for q in captured.captured_queries if '"cache"' in q["sql"]]
    assert RateCount.objects.count() == 2  # one row per key, one per person


@pytest.mark.django_db(transaction=True)
def test_requests_of_one_key_at_once_get_exactly_the_limit(rates, tenant, make_key):
    rates("5/min")
    key = make_key(tenant)
    client_with(key).get("/api/v1/memories/", {"user_id": "u"})  # one of the five, before the rush
    clients = 8
    barrier = threading.Barrier(clients)
    statuses: list[int] = []
    lock = threading.Lock()

    def ask() -> None:
        client = client_with(key)
        barrier.wait()
        status = client.get("/api/v1/memories/", {"user_id": "u"}).status_code
        with lock:
            statuses.append(status)
        connections.close_all()

    threads = [threading.Thread(target=ask) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(statuses) == [200] * 4 + [429] * 4


@pytest.mark.django_db
def test_a_rate_of_zero_refuses_everything(rates, key_client):
    rates("0/min")

    refused = key_client.get("/api/v1/memories/", {"user_id": "u"})

    assert refused.status_code == 429 and int(refused["Retry-After"]) == 60
    assert not RateCount.objects.exists()


def _synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_a_count_on_its_own_is_seen_at_once_and_changes_no_setting():
    """Outside any transaction the count commits without waiting for the WAL flush: other
    connections (the other workers) see it at once, the limit holds, and the session's own
    setting stays as it was for whatever it writes next."""
    assert not connection.in_atomic_block

    with CaptureQueriesContext(connection) as captured:
        assert throttling.take("k", limit=2, duration=60, now=time.time()) is None
    assert throttling.take("k", limit=2, duration=60, now=time.time()) is None
    assert throttling.take("k", limit=2, duration=60, now=time.time()) is not None
    (counting,) = captured.captured_queries
    assert counting["sql"].startswith("SELECT set_config('synchronous_commit', 'off', true);")
    assert _synchronous_commit() == "on"
    seen: list[int] = []

    def other_connection() -> None:
        seen.append(RateCount.objects.get(key="k").count)
        connections.close_all()

    reader = threading.Thread(target=other_connection)
    reader.start()
    reader.join()
    assert seen == [2]


@pytest.mark.django_db
def test_inside_a_callers_transaction_the_count_commits_as_the_caller_does():
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        assert throttling.take("k", limit=5, duration=60, now=time.time()) is None
        assert _synchronous_commit() == "on"  # the caller's other writes still wait for the flush
    assert "synchronous_commit" not in captured.captured_queries[0]["sql"]
    assert RateCount.objects.get(key="k").count == 1
