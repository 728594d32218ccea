"""Constants tuned in code rather than set by an operator (thresholds, weights, windows, retry
shapes): each lives beside the code that uses it, with the reason for its value, and is never
read from the environment. Tests and benches change one through the Django setting of the same
name (`override_settings`), which `tuned` looks at first. docs/configuration.md lists them
(tests/test_configuration.py derives the list from the calls to `tuned`).
"""

from __future__ import annotations

from typing import TypeVar

from django.conf import settings

T = TypeVar("T")


def tuned(name: str, value: T) -> T:
    """`value`, the constant in code, unless a test or bench set the Django setting `name`."""
    return getattr(settings, name, value)  # type: ignore[no-any-return]
