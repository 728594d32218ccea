"""Rate limits per tenant key and per person, from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
(`api_key`, `api_user`). A 429 carries `Retry-After`.

The counters are rows of `RateCount` in the database, shared by every worker, process and machine,
and each request costs one statement: an INSERT … ON CONFLICT that rolls the window over, checks
the limit and counts the request, atomically (a request refused is not counted). DRF's own
throttle kept a list of every request's time in Django's cache: with the default database cache
that was six statements per request, rewriting a pickled list of up to a thousand timestamps, and
two concurrent requests could each overwrite the other's.

The limit is a sliding window estimated from two fixed ones (as Cloudflare and nginx-style limiters
do): the requests of the current window, plus those of the window before weighted by how much of it
still overlaps the last `duration` seconds.
"""

from __future__ import annotations

import math
import time
from types import SimpleNamespace
from typing import Any, cast

from django.db import connection
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from api.models import ApiKey, RateCount

_TABLE = RateCount._meta.db_table

# The values of the row as they are once rolled over to the current window.
_PREVIOUS = (
    "CASE WHEN r.window_start = EXCLUDED.window_start THEN r.previous "
    "WHEN r.window_start = EXCLUDED.window_start - %(duration)s THEN r.count ELSE 0 END"
)
_COUNT = "CASE WHEN r.window_start = EXCLUDED.window_start THEN r.count ELSE 0 END"
_TAKE = f"""
INSERT INTO {_TABLE} AS r (key, window_start, count, previous) VALUES (%(key)s, %(window)s, 1, 0)
ON CONFLICT (key) DO UPDATE SET
    previous = {_PREVIOUS}, count = {_COUNT} + 1, window_start = EXCLUDED.window_start
WHERE {_PREVIOUS} * %(weight)s + {_COUNT} + 1 <= %(limit)s
RETURNING count
"""  # noqa: S608  # the table name from the model; every value is a parameter


# A count is a record of use, not user data: standing alone (no caller's transaction) its statement
# commits without waiting for the WAL flush (`synchronous_commit` off for this transaction only, in
# the same query string), as the recall log's does. The flush was most of what the statement cost:
# p50 3.0 -> 0.8 ms on a busy machine. A crash of the database server may lose the counts of the
# last fraction of a second (a few requests more for a key after the restart); the count stays atomic.
_ASYNC_COMMIT = "SELECT set_config('synchronous_commit', 'off', true); "


def take(key: str, *, limit: int, duration: int, now: float) -> float | None:
    """Count one request against `limit` per `duration` seconds: None when it is allowed, else
    the seconds to wait before one would be."""
    if limit <= 0:  # "0/min": nothing is allowed
        return float(duration)
    window = int(now // duration) * duration
    weight = 1.0 - (now - window) / duration
    params: dict[str, Any] = {
        "key": key, "window": window, "duration": duration, "weight": weight, "limit": limit,
    }  # fmt: skip
    with connection.cursor() as cursor:
        if connection.in_atomic_block:  # the caller's transaction decides how it commits
            cursor.execute(_TAKE, params)
        else:
            cursor.execute(_ASYNC_COMMIT + _TAKE, params)
            cursor.nextset()
        if cursor.fetchone() is not None:
            return None
        cursor.execute(f"SELECT window_start, count, previous FROM {_TABLE} WHERE key = %s", [key])  # noqa: S608
        row = cursor.fetchone()
    return _wait(row, limit=limit, duration=duration, now=now)


def _wait(row: tuple[int, int, int] | None, *, limit: int, duration: int, now: float) -> float:
    """Seconds until one more request fits: the previous window's share decays as time passes; a
    full current window has to roll over and then decay in turn."""
    if row is None:
        return 1.0
    start, count, previous = row
    elapsed = now - start
    if count + 1 > limit:
        # Into the next window, this window's count weighs count * (1 - x / duration).
        decayed = duration * (1 - (limit - 1) / count) if count else 0.0
        return max(1.0, duration - elapsed + decayed)
    needed = duration * (1 - (limit - count - 1) / previous) if previous else 0.0
    return max(1.0, needed - elapsed)


class _CountedThrottle(SimpleRateThrottle):
    # Set by SimpleRateThrottle.__init__ from the rate (the stubs do not declare them).
    num_requests: int | None
    duration: int | None

    def get_rate(self) -> str | None:
        # DRF binds THROTTLE_RATES at import; read it per request so settings changes apply.
        # The stubs type the rates as numbers; DRF's are "N/period" strings.
        rates = cast("dict[str, str | None]", api_settings.DEFAULT_THROTTLE_RATES)
        return rates.get(self.scope) if self.scope is not None else None

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        self.waiting = take(key, limit=self.num_requests, duration=self.duration, now=time.time())
        return self.waiting is None

    def wait(self) -> float | None:
        waiting = getattr(self, "waiting", None)
        return None if waiting is None else math.ceil(waiting)


class ApiKeyThrottle(_CountedThrottle):
    scope = "api_key"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if isinstance(request.auth, ApiKey):
            return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
        return None


class ApiUserThrottle(_CountedThrottle):
    scope = "api_user"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        if isinstance(request.auth, ApiKey) or not request.user.is_authenticated:
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


def refusal(*, user: Any, auth: Any) -> float | None:
    """The REST API's rate limits for a caller that does not come through DRF (the MCP server's tool
    calls over HTTP): counted against the same rows, so a key's REST requests and tool calls share
    one limit. The seconds to wait when over it (the call is then not counted), else None."""
    request = SimpleNamespace(user=user, auth=auth)
    waits: list[float] = []
    # DRF imports the dotted paths of the setting; the stubs type them as the strings.
    for throttle_class in cast("list[type[BaseThrottle]]", api_settings.DEFAULT_THROTTLE_CLASSES):
        throttle = throttle_class()
        if not throttle.allow_request(request, None):  # type: ignore[arg-type]  # reads .user and .auth only
            waits.append(throttle.wait() or 1)
    return max(waits) if waits else None
