"""The outage answer as people and API clients see it: the site's own page, or JSON, with Retry-After.

(tests/serving/test_outage.py stops the database under load; this checks the answer's content.)
"""

from __future__ import annotations

import json

from django.db import OperationalError
from django.http import HttpResponse
from django.test import RequestFactory

from config.outage import DatabaseUnavailableMiddleware


def _outage(path: str, accept: str) -> HttpResponse:
    request = RequestFactory().get(path, HTTP_ACCEPT=accept)
    middleware = DatabaseUnavailableMiddleware(lambda request: HttpResponse())
    response = middleware.process_exception(request, OperationalError("connection refused"))
    assert response is not None
    return response


def test_a_page_request_gets_the_site_styled_503_page(settings):
    settings.DATABASE_RETRY_AFTER_SECONDS = 7
    response = _outage("/me/", "text/html,application/xhtml+xml,*/*;q=0.8")
    html = response.content.decode()
    assert response.status_code == 503 and response["Retry-After"] == "7"
    assert response["Content-Type"].startswith("text/html")
    assert "Back in a moment" in html and "try again in 7 seconds" in html
    # The site's template: its stylesheet, favicon and skip link, not a bare error text.
    assert "css/app.css" in html and "favicon.svg" in html and 'class="skip"' in html
    assert "connection refused" not in html  # no internals shown


def test_an_api_request_gets_json_even_when_it_accepts_html(settings):
    settings.DATABASE_RETRY_AFTER_SECONDS = 7
    for path, accept in [("/api/v1/memories/", "text/html"), ("/me/", "application/json")]:
        response = _outage(path, accept)
        assert response.status_code == 503 and response["Retry-After"] == "7"
        assert response["Content-Type"] == "application/json"
        assert json.loads(response.content)["code"] == "service_unavailable"


def test_the_outage_page_speaks_the_readers_language(settings):
    from django.utils import translation

    settings.DATABASE_RETRY_AFTER_SECONDS = 7
    with translation.override("zh-hans"):  # as LocaleMiddleware sets it from the cookie
        html = _outage("/me/", "text/html").content.decode()
    assert "马上回来" in html and "请在 7 秒后再试" in html and "Back in a moment" not in html
