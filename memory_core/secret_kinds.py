"""The names of the kinds of secret that are refused (`guards.secrets`, `judgement`, `screening`).

They are recorded in English where they are kept: a refusal's reason ("contains a secret (pin)"),
an import row's `secret_kinds`, the API's answers. A page or the chat says them in the reader's
language with `kinds_said`, joined as that language lists words ("pin, password" / "PIN 码、密码").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import pgettext, pgettext_lazy

KIND_NAMES: dict[str, Any] = {
    "password": pgettext_lazy("secret kind", "password"),
    "pin": pgettext_lazy("secret kind", "pin"),
    "one-time code": pgettext_lazy("secret kind", "one-time code"),
    "api key or token": pgettext_lazy("secret kind", "api key or token"),
    "card number": pgettext_lazy("secret kind", "card number"),
    "iban": pgettext_lazy("secret kind", "iban"),
    "national id": pgettext_lazy("secret kind", "national id"),
    # `judgement.LEARNED_SECRET`: the learned model's call, no keyword or form named it.
    "secret (learned)": pgettext_lazy("secret kind", "secret (learned)"),
    # `screening`: a statement built from a redacted source (a job's payload).
    "a secret from its source": pgettext_lazy("secret kind", "a secret from its source"),
}
# How a reason or a sentence joins the kinds it names (as `SecretScan.kinds` are joined).
SEPARATOR = ", "


def kinds_said(kinds: Iterable[str]) -> str:
    """The kinds in the active language; a kind without a name here as it is."""
    names = [str(KIND_NAMES.get(kind, kind)) for kind in kinds]
    return pgettext("between secret kinds", ", ").join(names)


def recorded_kinds(text: str) -> list[str] | None:
    """The kinds a recorded reason names ("pin, password"), or None when it names another thing."""
    kinds = text.split(SEPARATOR)
    return kinds if all(kind in KIND_NAMES for kind in kinds) else None
