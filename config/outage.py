"""What a client sees while the database cannot be reached: a 503 with `Retry-After`, never a 500.

JSON for API clients (the DRF exception handler calls `database_unavailable_response` too), a
friendly page for people. Nothing here touches the database, so the answer itself cannot fail;
the app recovers on its own: a dead connection is dropped and the next request opens a new one.
"""

from __future__ import annotations

import logging
import sys

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import defaults
from django.views.decorators.csrf import requires_csrf_token

logger = logging.getLogger(__name__)

MESSAGE = "The service is temporarily unavailable (its database cannot be reached). Try again shortly."


def is_database_unavailable(exc: BaseException | None) -> bool:
    """The database cannot be reached or refused to serve (down, restarting, pool exhausted, cancelled
    query): errors a retry a few seconds later can cure. Programming errors are not among them."""
    return isinstance(exc, OperationalError | InterfaceError)


def retry_after() -> str:
    """The `Retry-After` value of an outage answer, in seconds."""
    return str(max(1, int(settings.DATABASE_RETRY_AFTER_SECONDS)))


def note_outage(request: HttpRequest, exc: BaseException | None) -> None:
    """Log the outage (a warning without a traceback: it is not a bug) and drop the broken
    connection now rather than hand it to the next request."""
    logger.warning("database unavailable for %s %s: %s", request.method, request.path, exc)
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.is_usable():
            connection.close()


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or not request.accepts("text/html")


def database_unavailable_response(request: HttpRequest, exc: BaseException | None = None) -> HttpResponse:
    """The 503 itself, JSON or a page."""
    note_outage(request, exc)
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse({"detail": MESSAGE, "code": "service_unavailable", "errors": {}}, status=503)
    else:
        # Rendered without the request: no context processor (and so no session or user) is asked.
        response = HttpResponse(render_to_string("503.html", {"retry_after": retry_after()}), status=503)
    response["Retry-After"] = retry_after()
    return response


class DatabaseUnavailableMiddleware:
    """Turns a database outage raised in a page view into the 503 (the API's handler does its own)."""

    def __init__(self, get_response):  # type: ignore[no-untyped-def]
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_unavailable(exception):
            return database_unavailable_response(request, exception)
        return None


@requires_csrf_token
def server_error(request: HttpRequest) -> HttpResponse:
    """`handler500`: an outage raised outside a view (a middleware saving the session) is still a 503."""
    exc = sys.exc_info()[1]
    if is_database_unavailable(exc):
        return database_unavailable_response(request, exc)
    return defaults.server_error(request)


def healthz(request: HttpRequest) -> HttpResponse:
    """For the proxy and the service manager: 200 when this process can reach the database, else 503."""
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        return database_unavailable_response(request, exc)
    return HttpResponse("ok\n", content_type="text/plain")
