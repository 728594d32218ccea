"""Signatures of deliveries: HMAC-SHA256 over "<timestamp>.<body>" with the endpoint's secret.

The request carries `Webhook-Signature: t=<unix seconds>,v1=<hex digest>` (a second `v1=` made
with the previous secret while a rotation's grace period lasts; one matching `v1` is enough). A
receiver recomputes the digest over the raw body, compares in constant time, and refuses a
timestamp outside its tolerance window: a captured request replayed later fails, and one replayed
within the window carries an event id (`Webhook-Id`) the receiver has already seen. `signature_verify` is the
reference implementation (docs/api.md has a standalone copy for receivers).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
SIGNATURE_HEADER = "Webhook-Signature"
DEFAULT_TOLERANCE_SECONDS = 300


class SignatureError(ValueError):
    """The request was not signed with the secret, or its timestamp is outside the window."""


def secret_generate() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature_digest(*, secret: str, timestamp: int, body: bytes) -> str:
    signed = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


def signature_header(*, secrets: list[str], timestamp: int, body: bytes) -> str:
    signatures = ",".join(f"v1={signature_digest(secret=s, timestamp=timestamp, body=body)}" for s in secrets)
    return f"t={timestamp},{signatures}"


def signature_verify(
    *,
    secret: str,
    header: str,
    body: bytes,
    tolerance: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> int:
    """The request's timestamp if `header` signs `body` with `secret` within `tolerance` seconds."""
    timestamp: int | None = None
    digests: list[str] = []
    for part in (header or "").split(","):
        name, _, value = part.strip().partition("=")
        if name == "t" and value.isdigit():
            timestamp = int(value)
        elif name == "v1" and value:
            digests.append(value)
    if timestamp is None or not digests:
        raise SignatureError("No timestamp or signature in the header.")
    age = (time.time() if now is None else now) - timestamp
    if abs(age) > tolerance:
        raise SignatureError(f"Timestamp outside the {tolerance} s tolerance window ({age:.0f} s).")
    expected = signature_digest(secret=secret, timestamp=timestamp, body=body)
    if not any(hmac.compare_digest(expected, digest) for digest in digests):
        raise SignatureError("The signature does not match.")
    return timestamp
