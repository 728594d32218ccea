"""Login throttling (django-axes): after LOGIN_FAILURE_LIMIT wrong passwords for one username from
one address, that address cannot sign into it for a while, even with the right password; the owner
signing in from elsewhere is not locked out."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

pytestmark = pytest.mark.django_db

ATTACKER = "203.0.113.7"
OWNER_ADDRESS = "198.51.100.20"


def _sign_in(username: str, password: str, address: str) -> tuple[int, str, bool]:
    client = Client(REMOTE_ADDR=address)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return response.status_code, response.content.decode(), "_auth_user_id" in client.session


def test_it_stops_trying_passwords_after_the_limit(owner):
    limit = settings.AXES_FAILURE_LIMIT
    answers = [_sign_in("alice", f"guess-{n}", ATTACKER)[0] for n in range(60)]

    # The wrong passwords below the limit get the form again; from the limit on, a 429.
    assert answers[: limit - 1] == [200] * (limit - 1)
    assert set(answers[limit:]) == {429}
    status, page, signed_in = _sign_in("alice", "pw-alice", ATTACKER)
    assert (status, signed_in) == (429, False)
    assert "Too many failed sign-ins" in page


def test_the_owner_elsewhere_is_not_locked_out(owner):
    for n in range(settings.AXES_FAILURE_LIMIT + 2):
        _sign_in("alice", f"guess-{n}", ATTACKER)

    status, _, signed_in = _sign_in("alice", "pw-alice", OWNER_ADDRESS)

    assert (status, signed_in) == (302, True)


def test_a_success_clears_the_count(owner):
    for n in range(settings.AXES_FAILURE_LIMIT - 1):
        _sign_in("alice", f"typo-{n}", OWNER_ADDRESS)
    assert _sign_in("alice", "pw-alice", OWNER_ADDRESS)[2]

    answers = [
        _sign_in("alice", f"typo-again-{n}", OWNER_ADDRESS)[0] for n in range(settings.AXES_FAILURE_LIMIT - 1)
    ]

    assert set(answers) == {200}
