"""Whose address a sign-in comes from, on the production web server: `X-Forwarded-For` is believed
only from the proxies in FORWARDED_ALLOW_IPS, and by default from none, so a process on this
machine rotating that header is still one address and is throttled as one. Behind a configured
proxy the header is believed, and guessing one account from many addresses stops at the
account's own limit."""

from __future__ import annotations

import re
from http.cookies import SimpleCookie
from urllib.parse import urlencode

import pytest
from django.conf import settings

from tests.serving.processes import WebServer, production_env, request, running

pytestmark = pytest.mark.django_db(transaction=True)


def _sign_in(port: int, password: str, forwarded_for: str) -> int:
    """The status of one sign-in as alice through the real form, claiming `forwarded_for`."""
    status, page = request(port, "GET", "/accounts/login/")
    assert status == 200
    csrf = SimpleCookie(page.getheader("Set-Cookie"))["csrftoken"].value
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body).group(1).decode()
    body = urlencode({"username": "alice", "password": password, "csrfmiddlewaretoken": token}).encode()
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={csrf}",
        "X-Forwarded-For": forwarded_for,
    }
    status, _ = request(port, "POST", "/accounts/login/", body=body, headers=headers)
    return status


def _rotating(port: int, attempts: int) -> list[int]:
    return [_sign_in(port, f"guess-{n}", f"198.18.{n // 250}.{n % 250 + 1}") for n in range(attempts)]


def test_a_forged_forwarded_for_is_not_believed_unless_the_proxy_is_configured(make_user, tmp_path):
    make_user("alice")
    pair, account = settings.AXES_FAILURE_LIMIT, settings.LOGIN_ACCOUNT_FAILURE_LIMIT
    env = production_env(EMBEDDING_BACKEND="openai")
    env["FORWARDED_ALLOW_IPS"] = ""  # the default (set: a developer's .env may trust the loopback)

    with running(server := WebServer(tmp_path / "default.log", env=env)):
        server.wait_ready()
        by_default = _rotating(server.port, pair + 2)
    # Every attempt is the loopback's: the account-and-address limit applies.
    assert by_default[: pair - 1] == [200] * (pair - 1) and set(by_default[pair:]) == {429}

    from axes.models import AccessAttempt

    AccessAttempt.objects.all().delete()
    env["FORWARDED_ALLOW_IPS"] = "127.0.0.1"
    with running(server := WebServer(tmp_path / "proxied.log", env=env)):
        server.wait_ready()
        behind_proxy = _rotating(server.port, account + 2)
        owner_elsewhere = _sign_in(server.port, "pw-alice", "192.0.2.99")
    # Each attempt from its own (believed) address; the account's limit stops the rotation.
    assert behind_proxy[: account - 1] == [200] * (account - 1) and set(behind_proxy[account:]) == {429}
    assert owner_elsewhere == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) >= {"198.18.0.1", "198.18.0.2"}
