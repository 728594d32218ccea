"""How the privacy pages answer an engine error: its text for a message, and 404 / 403 for access."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404

from memory_core.errors import MemoryServiceError, NotFound, PermissionDenied


def error_text(exc: MemoryServiceError) -> str:
    details = [f"{name}: {' '.join(errors)}" for name, errors in exc.field_errors.items()]
    return " ".join([exc.message, *details])


def raise_for_access(exc: MemoryServiceError) -> None:
    """Missing and someone else's answer 404 alike; read-only and operator-only answer 403."""
    if isinstance(exc, NotFound):
        raise Http404(exc.message) from exc
    if isinstance(exc, PermissionDenied):
        raise DjangoPermissionDenied(exc.message) from exc
