"""The site's routes plus one that fails, to see the 500 page a bug gives (tests/test_error_pages.py)."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import handler500
from config.urls import urlpatterns as site

__all__ = ["handler500", "urlpatterns"]


def _failing(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("an internal detail: ledger 4471 out of sync")


urlpatterns = [*site, path("__tests__/fail/", _failing)]
