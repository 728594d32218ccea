"""JSON bodies only, and at most API_MAX_BODY_BYTES (2 MB by default) of them: a larger body is
a 413 before any of it is parsed; one nested deeper than the parser recurses is a 400."""

from __future__ import annotations

import io
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from api.errors import PayloadTooLarge


def max_body_bytes() -> int:
    return int(settings.API_MAX_BODY_BYTES)


class LimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = max_body_bytes()
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        too_large = PayloadTooLarge(f"The request body is larger than {limit} bytes.")
        if declared and declared.isdigit() and int(declared) > limit:
            raise too_large
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise too_large
        try:
            return super().parse(io.BytesIO(data), media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
