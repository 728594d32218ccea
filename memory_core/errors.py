"""The one application error type; the API maps it to JSON, the pages to messages."""

from __future__ import annotations


class MemoryServiceError(Exception):
    """A request the memory system refuses, with a message fit to show to its caller."""

    status_code = 400
    code = "invalid"

    def __init__(self, message: str, *, field_errors: dict[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
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
