"""gunicorn configuration of the web server: `gunicorn -c python:config.gunicorn config.asgi:application`.

From the environment's settings (config.conf; docs/configuration.md, docs/deploy.md): HOST/PORT or
BIND, WEB_WORKERS, REQUEST_TIMEOUT_SECONDS, GRACEFUL_TIMEOUT_SECONDS, FORWARDED_ALLOW_IPS,
WEB_MAX_REQUESTS, ACCESS_LOG, LOG_LEVEL.
"""

from __future__ import annotations

import math
import os
from typing import Any

from config import conf

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Each ASGI request runs in its own thread context, where persistent connections would leak:
# the web processes always use psycopg's connection pool (config/settings.py).
os.environ["DB_POOL"] = "true"
env = conf.load()  # the settings the app then reads too: the same, read once

bind = [env.BIND or f"{env.HOST}:{env.PORT}"]
workers = env.WEB_WORKERS
worker_class = "config.server.Worker"
# Import and warm the app in the master before the port opens and the workers fork (on_starting).
preload_app = True
# A worker whose event loop does not check in for this long is killed and replaced (a runaway
# request blocking the loop); requests themselves are cut by config.asgi's RequestTimeout.
timeout = math.ceil(env.REQUEST_TIMEOUT_SECONDS) + 30
# On SIGTERM a worker stops accepting, finishes what is in flight for up to this long, then exits.
graceful_timeout = env.GRACEFUL_TIMEOUT_SECONDS
keepalive = 5
# Recycle workers after this many requests (0: never); cheap, since they fork from a warm master.
max_requests = env.WEB_MAX_REQUESTS
max_requests_jitter = max(1, max_requests // 10) if max_requests else 0
# Only these proxies may set the client address and scheme (X-Forwarded-For / -Proto); none unless
# configured: a process on this machine (the loopback) would otherwise choose its own address.
forwarded_allow_ips = env.FORWARDED_ALLOW_IPS
accesslog = "-" if env.ACCESS_LOG else None
errorlog = "-"
loglevel = env.LOG_LEVEL.lower()
proc_name = "memory-web"
# gunicorn's control socket defaults to one path per user: two servers on a machine would collide.
control_socket_disable = True


def on_starting(server: Any) -> None:
    """Runs in the master after the app is imported (preload_app) and before the port is bound."""
    from config.server import warm_up  # lazy: Django loads with the app (preload_app), not the config

    warm_up()
