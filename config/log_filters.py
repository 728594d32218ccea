"""Logs without user text. Access logs lose their query strings: search terms (`/me/?q=…`,
`/api/v1/memories/?q=…`), ids and anything else a URL carries. Tracebacks of database errors lose
their DETAIL lines, which quote row data ("Failing row contains (…)", "Key (…)=(…)").

`install()` adds the filter to the access loggers of the servers that may serve the app: Django's
`runserver` (`django.server`, what `make run` uses), gunicorn (`gunicorn.access`) and uvicorn
(`uvicorn.access`). A logger filter, not a dictConfig entry: configuring a server's logger in
LOGGING would drop the handlers the server gave it.
"""

from __future__ import annotations

import logging
import re
from typing import Any

ACCESS_LOGGERS = ("django.server", "gunicorn.access", "uvicorn.access")
_QUERY = re.compile(r"\?[^\s\"']*")
# gunicorn's access atoms that hold the query string alone ("q") or a whole URL ("f": the referer).
_GUNICORN_QUERY_ATOMS = ("q", "{query_string}e")


def strip_query(value: Any) -> Any:
    """`GET /me/?q=secret HTTP/1.1` → `GET /me/?… HTTP/1.1`; anything not a string as it is."""
    return _QUERY.sub("?…", value) if isinstance(value, str) else value


class StripQueryStrings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict):
            record.args = {
                key: ("" if key in _GUNICORN_QUERY_ATOMS else strip_query(value))
                for key, value in record.args.items()
            }
        elif isinstance(record.args, tuple):
            record.args = tuple(strip_query(arg) for arg in record.args)
        elif not record.args:
            record.msg = strip_query(record.msg)
        return True


_DETAIL = re.compile(r"(?m)^(\s*DETAIL:).*$")


class RedactRowData(logging.Filter):
    """On a handler: a record's traceback is formatted once, without DETAIL lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = _DETAIL.sub(r"\1 (left out: it may quote row data)", record.exc_text)
        return True


def install() -> None:
    """Idempotent: each logger or handler gets its filter once."""
    for name in ACCESS_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, StripQueryStrings) for f in logger.filters):
            logger.addFilter(StripQueryStrings())
    # Every handler configured so far (root's, Django's): records propagate to them from anywhere.
    handlers = [h for name in ("", "django", "django.request") for h in logging.getLogger(name).handlers]
    for handler in handlers:
        if not any(isinstance(f, RedactRowData) for f in handler.filters):
            handler.addFilter(RedactRowData())
