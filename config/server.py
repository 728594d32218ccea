"""The production web server: gunicorn managing uvicorn workers that serve `config.asgi`.

`config/gunicorn.py` is its configuration. The app is imported and warmed up (`warm_up`) in the
gunicorn master *before* it binds the port and forks: every worker, and every worker respawned
after a crash, starts with the embedding model already in memory (shared copy-on-write), so no
request ever waits for it. Uvicorn reads requests on an event loop, so a client that trickles its
headers holds a socket, not a worker.
"""

from __future__ import annotations

import importlib
import logging
import time
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.urls import get_resolver
from django.utils.module_loading import import_string
from uvicorn_worker import UvicornWorker

logger = logging.getLogger(__name__)


def warm_up() -> None:
    """Load what the first request would otherwise pay for: settings.WARM_UP's loaders (the local
    embedding model), every URLconf and view module, and the database server (started here when it
    is the embedded one). A database that is down is logged, not fatal: requests then get a 503
    until it is back. Connections are closed afterwards, so that no forked worker shares one."""
    started = time.monotonic()
    for dotted in settings.WARM_UP:
        import_string(dotted)()
    get_resolver().url_patterns  # noqa: B018  # imports every view module
    try:
        connections["default"].ensure_connection()
    except DatabaseError as exc:
        logger.warning("warm-up: the database cannot be reached yet (%s); serving 503s until it is", exc)
    for connection in connections.all(initialized_only=True):
        connection.close()
        close_pool = getattr(connection, "close_pool", None)
        if close_pool is not None:
            close_pool()  # a pool opened in the master must not be inherited by the workers
    logger.info("warm-up done in %.1f s", time.monotonic() - started)


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def compiled_kwargs() -> dict[str, str]:
    """uvloop's event loop and httptools' HTTP parser (both compiled, requirements.txt) when they
    import, else the standard asyncio loop and the pure-Python h11 parser: the same requests and
    answers either way, the compiled pair taking less of each request's time."""
    return {
        "loop": "uvloop" if _importable("uvloop") else "asyncio",
        "http": "httptools" if _importable("httptools") else "h11",
    }


class Worker(UvicornWorker):
    """Uvicorn's gunicorn worker, on uvloop and httptools when installed (`compiled_kwargs`).
    Lifespan on, and required: each worker starts the MCP server's session manager (`config.asgi`)
    after the fork, and does not serve without it."""

    CONFIG_KWARGS: dict[str, Any] = {**compiled_kwargs(), "lifespan": "on"}
