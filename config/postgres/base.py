"""Django's PostgreSQL backend, with a connection pool that fails fast while the server is down.

psycopg's pool makes a request wait DB_POOL_TIMEOUT_SECONDS for a connection, even when the server
is down and none can be made: every client would wait that long for its 503. Here a request that
gets no connection within a quarter of a second makes one direct attempt (a refused socket answers
in microseconds): if the server is not there the request fails at once, and the client gets its
503 (config.outage); if it is, the pool is only busy and the request keeps waiting its turn.

With health checks on (CONN_HEALTH_CHECKS), a pooled connection is checked before it is handed
out (`check_connection`), without a round trip when its socket is quiet.
"""

from __future__ import annotations

import select
from typing import Any

import psycopg
from django.db.backends.base.base import NO_DB_ALIAS  # type: ignore[attr-defined]  # not in the stubs
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool, PoolTimeout

_FIRST_WAIT_SECONDS = 0.25
_PROBE_KEYS = ("host", "port", "dbname", "user", "password", "sslmode", "sslrootcert", "options")


def check_connection(conn: psycopg.Connection[Any]) -> None:
    """psycopg_pool's check (an empty query, a round trip to the server) when the connection's
    socket has something to say. A server that went away (stopped, restarted, crashed, or this
    backend ended) closes the socket, after a last message, which leaves it readable; the check
    then fails and the pool replaces the connection, as before. A healthy idle connection's socket
    is quiet and it is handed out without asking the server: that round trip cost every request
    p50 0.3 / p95 4 ms on a busy machine."""
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)  # POLLHUP and POLLERR are always reported
        quiet = not poller.poll(0)
    except (OSError, ValueError, psycopg.Error):
        quiet = False
    if not quiet:
        ConnectionPool.check_connection(conn)


class FailFastPool(ConnectionPool):
    def __init__(self, *args: Any, probe_params: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probe_params = probe_params

    def getconn(self, timeout: float | None = None) -> Any:
        total = self.timeout if timeout is None else timeout
        first = min(_FIRST_WAIT_SECONDS, total)
        try:
            return super().getconn(timeout=first)
        except PoolTimeout:
            self._probe()
            return super().getconn(timeout=max(0.0, total - first))

    def _probe(self) -> None:
        try:
            psycopg.connect(**self.probe_params, connect_timeout=2, autocommit=True).close()
        except psycopg.Error as exc:
            raise psycopg.OperationalError(f"the database server cannot be reached: {exc}") from exc


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> ConnectionPool | None:
        """Django's pool property, building a `FailFastPool` (same options, same lifetime)."""
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not pool_options:
            return None
        wrapper: Any = self  # Django's private pool attributes are not in the stubs
        pools: dict[str, ConnectionPool] = wrapper._connection_pools
        if self.alias not in pools:
            pool_options = {} if pool_options is True else pool_options
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # Django sets it properly later on, as in its own
            probe = {
                key: connect_kwargs[key] for key in _PROBE_KEYS if connect_kwargs.get(key) not in (None, "")
            }
            pool = FailFastPool(
                kwargs=connect_kwargs,
                open=False,
                configure=wrapper._configure_connection,
                check=check_connection if self.settings_dict["CONN_HEALTH_CHECKS"] else None,
                probe_params=probe,
                **pool_options,
            )
            pools.setdefault(self.alias, pool)
        return pools[self.alias]
