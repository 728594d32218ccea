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


# --- Wider limits: one account from anywhere, one address on many accounts -----------------------


def _people(make_user, count: int) -> list[str]:
    return [make_user(f"member{n:02d}").username for n in range(count)]


def test_one_password_sprayed_across_accounts_from_one_address_is_stopped(make_user, owner):
    """23 accounts, one password each, four rounds: refused once the address has failed on
    LOGIN_ADDRESS_ACCOUNT_LIMIT accounts, for every account, the right password included."""
    names = _people(make_user, 23)
    limit = settings.LOGIN_ADDRESS_ACCOUNT_LIMIT
    answers = [_sign_in(name, "Summer2026!", ATTACKER)[0] for _round in range(4) for name in names]

    assert answers[: limit - 1] == [200] * (limit - 1)
    assert set(answers[limit:]) == {429}
    assert _sign_in("alice", "pw-alice", ATTACKER)[:1] == (429,)  # the address, whatever the account
    assert _sign_in("alice", "pw-alice", OWNER_ADDRESS)[2]  # the owners elsewhere are not


def test_guessing_one_account_from_many_addresses_is_stopped(owner):
    """A rotating address (a botnet, or a forged X-Forwarded-For a proxy passed on) never reaches
    the per-address limit; the account's own limit stops it, and its owner waits too."""
    limit = settings.LOGIN_ACCOUNT_FAILURE_LIMIT
    answers = [_sign_in("alice", f"guess-{n}", f"203.0.113.{n + 1}")[0] for n in range(limit + 5)]

    assert answers[: limit - 1] == [200] * (limit - 1)
    assert set(answers[limit:]) == {429}
    assert _sign_in("alice", "pw-alice", OWNER_ADDRESS)[:1] == (429,)


def test_many_wrong_passwords_from_one_address_on_few_accounts_are_stopped(make_user):
    names = _people(make_user, 8)
    per_account = settings.AXES_FAILURE_LIMIT - 1  # each pair stays under its own limit
    answers = [_sign_in(name, f"guess-{n}", ATTACKER)[0] for n in range(per_account) for name in names]
    assert len(answers) >= settings.LOGIN_ADDRESS_FAILURE_LIMIT
    assert answers[: settings.LOGIN_ADDRESS_FAILURE_LIMIT - 1] == [200] * (
        settings.LOGIN_ADDRESS_FAILURE_LIMIT - 1
    )
    assert _sign_in(names[0], "pw-" + names[0], ATTACKER)[:1] == (429,)


def test_signing_into_an_own_account_does_not_wipe_what_was_tried_on_others(make_user):
    names = _people(make_user, 12)
    limit = settings.LOGIN_ADDRESS_ACCOUNT_LIMIT
    for name in names[: limit - 1]:
        _sign_in(name, "Summer2026!", ATTACKER)
    mine = make_user("mallory").username
    assert _sign_in(mine, "pw-mallory", ATTACKER)[2]

    assert _sign_in(names[limit - 1], "Summer2026!", ATTACKER)[0] in (200, 429)
    assert _sign_in(names[limit], "Summer2026!", ATTACKER)[0] == 429


def test_a_form_without_a_username_or_with_an_odd_one_is_answered(owner):
    client = Client(REMOTE_ADDR=ATTACKER)
    for data in ({}, {"password": "x"}, {"username": "a" * 5000, "password": "x"}, {"username": "\x00"}):
        response = client.post("/accounts/login/", data)
        assert response.status_code in (200, 400), (data, response.status_code)
    assert _sign_in("alice", "pw-alice", OWNER_ADDRESS)[2]
