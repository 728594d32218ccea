"""gunicorn configuration of the web server: `gunicorn -c python:config.gunicorn config.asgi:application`.

Read from the environment (docs/configuration.md, docs/deploy.md): HOST/PORT or BIND, WEB_WORKERS,
REQUEST_TIMEOUT_SECONDS, GRACEFUL_TIMEOUT_SECONDS, FORWARDED_ALLOW_IPS, WEB_MAX_REQUESTS.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from config.env import env_int, env_str, load_dotenv

load_dotenv(Path(__file__).resolve().parent.parent / ".env")  # as the settings do, read before them
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Each ASGI request runs in its own thread context, where persistent connections would leak:
# the web processes always use psycopg's connection pool (config/settings.py).
os.environ["DB_POOL"] = "true"

bind = [env_str("BIND") or f"{env_str('HOST', '127.0.0.1')}:{env_int('PORT', 8000)}"]
workers = env_int("WEB_WORKERS", 2)
worker_class = "config.server.Worker"
# Import and warm the app in the master before the port opens and the workers fork (on_starting).
preload_app = True
# A worker whose event loop does not check in for this long is killed and replaced (a runaway
# request blocking the loop); requests themselves are cut by config.asgi's RequestTimeout.
timeout = env_int("REQUEST_TIMEOUT_SECONDS", 120) + 30
# On SIGTERM a worker stops accepting, finishes what is in flight for up to this long, then exits.
graceful_timeout = env_int("GRACEFUL_TIMEOUT_SECONDS", 30)
keepalive = 5
# Recycle workers after this many requests (0: never); cheap, since they fork from a warm master.
max_requests = env_int("WEB_MAX_REQUESTS", 0)
max_requests_jitter = max(1, max_requests // 10) if max_requests else 0
# Only these proxies may set the client address and scheme (X-Forwarded-For / -Proto); none unless
# configured: a process on this machine (the loopback) would otherwise choose its own address.
forwarded_allow_ips = env_str("FORWARDED_ALLOW_IPS", "")
accesslog = "-" if env_str("ACCESS_LOG", "true").lower() in {"1", "true", "yes", "on"} else None
errorlog = "-"
loglevel = env_str("LOG_LEVEL", "info").lower()
proc_name = "memory-web"
# gunicorn's control socket defaults to one path per user: two servers on a machine would collide.
control_socket_disable = True


def on_starting(server: Any) -> None:
    """Runs in the master after the app is imported (preload_app) and before the port is bound."""
    from config.server import warm_up

    warm_up()
