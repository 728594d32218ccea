"""Login throttling: django-axes' database handler (failures counted in PostgreSQL, shared by every
process), with three limits beside axes' own per account and address:

- one account from one address: `LOGIN_FAILURE_LIMIT` (axes' `AXES_FAILURE_LIMIT`), a typo-sized
  limit that cannot lock the owner out from elsewhere;
- one account from any address: `LOGIN_ACCOUNT_FAILURE_LIMIT`, so guessing from many addresses
  (or behind a rotating `X-Forwarded-For`) stops too;
- one address, any accounts: `LOGIN_ADDRESS_FAILURE_LIMIT` failures, or failures on
  `LOGIN_ADDRESS_ACCOUNT_LIMIT` different accounts (password spraying: one password tried on
  many accounts, a few tries each).

Each counts the failures of the cool-off window (`LOGIN_COOLOFF_MINUTES`). A sign-in that succeeds
clears the failures of its own account from its own address only: an attacker signing into an
account of their own cannot wipe the count of what they tried on others.
"""

from __future__ import annotations

from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.conf import settings as axes_settings
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Count, Q, Sum
from django.http import HttpRequest

# axes keeps usernames in a 255-character column; a longer one (no account has one) is recorded by
# its first 255 characters rather than failing the sign-in with a database error.
USERNAME_MAX_CHARS = 255


def attempted_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str | None:
    """The username a sign-in tried (`AXES_USERNAME_CALLABLE`), as axes would read it, cut to fit."""
    source = credentials if credentials else getattr(request, "data", request.POST)
    name = source.get(axes_settings.AXES_USERNAME_FORM_FIELD)
    return None if name is None else str(name)[:USERNAME_MAX_CHARS]


class LoginThrottle(AxesDatabaseHandler):
    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        """The failures of this account from this address; at least the limit (locked) when the
        account, or the address, is over one of its own limits."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address  # type: ignore[attr-defined]
        mine, theirs = Q(username=username), Q(ip_address=address)
        since = get_cool_off_threshold(request)
        recent = AccessAttempt.objects.filter(mine | theirs, attempt_time__gte=since)
        counts = recent.aggregate(
            pair=Sum("failures_since_start", filter=mine & theirs, default=0),
            account=Sum("failures_since_start", filter=mine, default=0),
            address=Sum("failures_since_start", filter=theirs, default=0),
            accounts=Count("username", filter=theirs, distinct=True),
        )
        over = (
            counts["account"] >= settings.LOGIN_ACCOUNT_FAILURE_LIMIT
            or counts["address"] >= settings.LOGIN_ADDRESS_FAILURE_LIMIT
            or counts["accounts"] >= settings.LOGIN_ADDRESS_ACCOUNT_LIMIT
        )
        pair = int(counts["pair"])
        return max(pair, int(settings.AXES_FAILURE_LIMIT)) if over else pair

    def reset_user_attempts(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        """After a successful sign-in: this account's failures from this address only."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address  # type: ignore[attr-defined]
        count, _ = AccessAttempt.objects.filter(username=username, ip_address=address).delete()
        return count
