"""Which URLs an endpoint may have: HTTPS; plain HTTP only on the loopback (tests, development).

A delivery carries people's memories, so it never travels unencrypted over a network. Literal
private, link-local and reserved addresses are refused too (unless WEBHOOK_ALLOW_PRIVATE_NETWORKS):
an endpoint must not turn the server into a client of its own internal network (cloud metadata
at 169.254.169.254, say). The loopback is allowed while WEBHOOK_ALLOW_LOOPBACK (on with DEBUG).
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from django.conf import settings

from memory_core.errors import MemoryServiceError

URL_MAX_CHARS = 2000
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}


def _bad(message: str) -> MemoryServiceError:
    return MemoryServiceError(message, field_errors={"url": [message]})


def ip_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    address = ip_of(host)
    return address.is_loopback if address is not None else host.rstrip(".").lower() in _LOOPBACK_NAMES


def endpoint_url_check(url: str) -> str:
    """The URL, stripped, if an endpoint may have it; else a 400 that says why."""
    url = (url or "").strip()
    if not url:
        raise _bad("A URL is required.")
    if len(url) > URL_MAX_CHARS:
        raise _bad(f"At most {URL_MAX_CHARS} characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _bad(f"Not a valid URL ({exc}).") from None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if scheme not in ("https", "http"):
        raise _bad(f"Only https:// URLs are allowed (got {scheme or 'no'} scheme).")
    if not host or port == 0 or any(c.isspace() for c in url):
        raise _bad("The URL has no valid host and port.")
    if parts.username or parts.password:
        raise _bad("Credentials in the URL would be stored in clear; the signature authenticates us.")
    if parts.fragment:
        raise _bad("A URL fragment is never sent; remove it.")
    _host_check(scheme, host)
    return url


def _host_check(scheme: str, host: str) -> None:
    loopback = is_loopback(host)
    if scheme == "http" and not loopback:
        raise _bad("Plain http:// is allowed only on the loopback (127.0.0.1, ::1, localhost); use https://.")
    if loopback and not settings.WEBHOOK_ALLOW_LOOPBACK:
        raise _bad("Loopback addresses are not allowed on this server (WEBHOOK_ALLOW_LOOPBACK).")
    address = ip_of(host)
    if (
        address is not None
        and not loopback
        and not address.is_global
        and not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
    ):
        raise _bad(f"{host} is a private, link-local or reserved address; use a public host.")
