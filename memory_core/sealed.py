"""Secrets the app must read back (webhook signing secrets) kept encrypted at rest: Fernet tokens
(AES-128-CBC + HMAC-SHA256) under keys derived from configuration, so a database dump, a backup
or a replica alone does not hold them.

The keys are `SEALING_KEYS` (the first seals, every one opens), or, when it is empty, Django's
`SECRET_KEY` followed by `SECRET_KEY_FALLBACKS`. Rotation (docs/deploy.md): put the new key first
and keep the old one after it, run `manage.py reseal_secrets`, then drop the old key.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.utils.crypto import salted_hmac

_SALT = "memory_core.sealed"


class SealError(ImproperlyConfigured):
    """No configured key opens a sealed value: the key it was sealed with is no longer configured."""


def sealing_keys() -> list[str]:
    """The configured key material, the sealing one first."""
    configured = [key for key in settings.SEALING_KEYS if key]
    return configured or [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]


@lru_cache(maxsize=8)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    # Any string becomes a Fernet key through an HMAC under a fixed salt (Django's `salted_hmac`),
    # so SECRET_KEY itself never is the encryption key.
    digests = [salted_hmac(_SALT, "fernet-key", secret=key, algorithm="sha256").digest() for key in keys]
    return MultiFernet([Fernet(base64.urlsafe_b64encode(digest)) for digest in digests])


def _box() -> MultiFernet:
    keys = tuple(sealing_keys())
    if not keys or not all(keys):
        raise ImproperlyConfigured("No key to seal secrets with: set SECRET_KEY (or SEALING_KEYS).")
    return _fernet(keys)


def seal(text: str) -> str:
    """`text` encrypted under the first key ("" stays "": nothing to hide)."""
    return _box().encrypt(text.encode()).decode() if text else ""


def unseal(token: str) -> str:
    if not token:
        return ""
    try:
        return _box().decrypt(token.encode()).decode()
    except InvalidToken:
        raise SealError(
            "A sealed secret cannot be opened with the configured keys (SEALING_KEYS, or SECRET_KEY "
            "and SECRET_KEY_FALLBACKS): keep the key it was sealed with until `reseal_secrets` ran."
        ) from None


def reseal(token: str) -> str:
    """The same secret sealed again under the first key (after a rotation)."""
    return _box().rotate(token.encode()).decode() if token else ""


class SealedTextField(models.TextField):
    """A text column holding a Fernet token; the model sees the clear text. Equality lookups cannot
    work (each seal is different), so the field is never filtered on."""

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> str | None:
        return None if value is None else unseal(value)

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return seal(value) if isinstance(value, str) else value
