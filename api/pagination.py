"""`?limit=&offset=` pagination with both bounded (a huge offset would overflow PostgreSQL's bigint)."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 10_000_000


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200

    def get_offset(self, request: Any) -> int:
        return min(super().get_offset(request), MAX_OFFSET)
