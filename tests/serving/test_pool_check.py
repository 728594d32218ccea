"""`config.postgres`: a pooled connection is checked before it is handed out, with a round trip
only when its socket is not quiet: a healthy idle connection goes out without asking the server,
and one whose backend ended while it waited in the pool is noticed and replaced."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import connection

from config.postgres.base import FailFastPool, check_connection

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def pool() -> Iterator[FailFastPool]:
    params = connection.get_connection_params()
    params["autocommit"] = True
    probe = {key: params[key] for key in ("host", "dbname", "user") if params.get(key)}
    pool = FailFastPool(
        kwargs=params, min_size=1, max_size=1, check=check_connection, probe_params=probe, open=True
    )
    pool.wait()
    yield pool
    pool.close()


def _activity(pid: int) -> Any:
    """The backend's last statement as the server saw it, or None when the backend is gone."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return None if row is None else row[0]


def test_a_healthy_idle_connection_goes_out_without_a_round_trip(pool):
    with pool.connection() as conn:
        conn.execute("SELECT 'the last statement'")
        pid = conn.info.backend_pid

    with pool.connection() as conn:
        assert conn.info.backend_pid == pid  # the same connection, checked before it came out
        assert _activity(pid) == "SELECT 'the last statement'"  # and the server was not asked
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_connection_whose_backend_ended_in_the_pool_is_replaced(pool):
    with pool.connection() as conn:
        pid = conn.info.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    deadline = time.monotonic() + 10
    while _activity(pid) is not None and time.monotonic() < deadline:
        time.sleep(0.05)

    with pool.connection() as conn:
        assert conn.info.backend_pid != pid
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_closed_connection_fails_the_check():
    conn = psycopg.connect(**{**connection.get_connection_params(), "autocommit": True})
    conn.close()

    with pytest.raises(psycopg.OperationalError):
        check_connection(conn)
