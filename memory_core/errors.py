"""The one application error type; the API maps it to JSON, the pages to messages."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Wording:
    """A message as its English template (marked with `gettext_noop` where it is written) and the
    values it is built from, so that a page can say it in its own language while the API and the
    logs keep the English (`str`). A value that is itself a Wording is said the same way."""

    template: str
    values: Mapping[str, Any] = field(default_factory=dict)

    def say(self, translate: Callable[[str], str] | None = None) -> str:
        text = translate(self.template) if translate is not None else self.template
        if not self.values:
            return text
        return text % {
            name: value.say(translate) if isinstance(value, Wording) else value
            for name, value in self.values.items()
        }

    def __str__(self) -> str:
        return self.say()


class MemoryServiceError(Exception):
    """A request the memory system refuses, with a message fit to show to its caller (English;
    `wording` keeps how it was built when a page may say it in another language)."""

    status_code = 400
    code = "invalid"

    def __init__(self, message: str | Wording, *, field_errors: dict[str, list[str]] | None = None) -> None:
        self.wording = message if isinstance(message, Wording) else None
        self.message = str(message)
        super().__init__(self.message)
        self.field_errors = field_errors or {}


class NotFound(MemoryServiceError):
    """Missing and someone else's are answered alike, so ids cannot be probed."""

    status_code = 404
    code = "not_found"


class PermissionDenied(MemoryServiceError):
    status_code = 403
    code = "forbidden"


class Conflict(MemoryServiceError):
    status_code = 409
    code = "conflict"
