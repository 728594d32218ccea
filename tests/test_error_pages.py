"""Error pages as a person meets them with DEBUG off: the site's own page (its stylesheet, favicon,
navigation), a plain sentence and a way back, never a bare "403 Forbidden" or an internal detail.
(The 503 of an outage: tests/test_outage_page.py.)"""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from tests.chat.helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _production(settings):
    settings.DEBUG = False
    settings.ROOT_URLCONF = "tests.error_urls"


def site_page(html: str) -> bool:
    return "css/app.css" in html and "favicon.svg" in html and 'class="skip"' in html and 'href="/"' in html


def test_a_missing_page_is_the_sites_404(owner):
    response = client_for(owner).get(f"/me/memories/{uuid.uuid4()}/")
    html = response.content.decode()
    assert response.status_code == 404 and site_page(html)
    assert "Error 404" in html and "alice" in html  # still signed in, with the menu


def test_a_page_for_operators_is_the_sites_403(owner):
    response = client_for(owner).get("/me/moderation/")
    html = response.content.decode()
    assert response.status_code == 403 and site_page(html) and "Not allowed" in html
    assert "Forbidden" not in html


def test_an_unreadable_request_is_the_sites_400():
    response = Client(HTTP_HOST="unknown.example").get("/me/")
    html = response.content.decode()
    assert response.status_code == 400 and site_page(html) and "Error 400" in html
    assert "unknown.example" not in html and "ALLOWED_HOSTS" not in html


def test_a_bug_is_the_sites_500_without_internals(owner):
    response = client_for(owner, raise_request_exception=False).get("/__tests__/fail/")
    html = response.content.decode()
    assert response.status_code == 500 and site_page(html) and "Error 500" in html
    assert "4471" not in html and "RuntimeError" not in html and "Traceback" not in html


def test_the_error_pages_speak_the_readers_language(owner):
    client = client_for(owner)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    missing = client.get(f"/me/memories/{uuid.uuid4()}/").content.decode()
    assert "错误 404" in missing and "未找到" in missing and "返回聊天" in missing
    assert "Not found" not in missing and "Back to the chat" not in missing
    refused = client.get("/me/moderation/").content.decode()
    assert "不允许访问" in refused and "Not allowed" not in refused
    broken = client_for(owner, raise_request_exception=False)
    broken.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    html = broken.get("/__tests__/fail/").content.decode()
    assert "我们这边出了问题" in html and "Something went wrong" not in html
