"""Template context shared by every page: whether the app runs without a language model, and the
limits forms must state (one home for each: the engine)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

from memory_core.models import CONTENT_MAX_CHARS


def offline_mode(request: HttpRequest) -> dict[str, Any]:
    # base.html shows the offline banner from this; read per request so settings changes apply.
    return {"offline_mode": not settings.OPENAI_API_KEY}


def limits(request: HttpRequest) -> dict[str, Any]:
    return {"content_max_chars": CONTENT_MAX_CHARS}
