"""Which of the mem0 client's request options we honour, and the clear refusal of those we cannot:
an unknown parameter or an option value we would otherwise have to ignore is a 400 naming it; a
whole feature we do not serve is a 501 naming it. Nothing the client sends is dropped in silence.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, time
from typing import Any

from django.db.models import Q

from api.mem0.filters import Mem0Filter, bad, parse_filters
from api.mem0.mapping import ENTITY_KEYS, entity_from
from memory_core.errors import MemoryServiceError


class Unsupported(MemoryServiceError):
    """An option of a served call that this system cannot honour (400)."""

    code = "unsupported"


class NotServed(MemoryServiceError):
    """A mem0 feature this system does not offer (501)."""

    status_code = 501
    code = "not_implemented"


def unsupported(name: str, why: str) -> Unsupported:
    return Unsupported(f"{name}: {why}", field_errors={name: [why]})


def reject_unknown(data: Any, allowed: Iterable[str], *, what: str) -> None:
    if not isinstance(data, dict):
        return
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        names = ", ".join(unknown)
        raise Unsupported(
            f"Unknown or unsupported parameter{'s' if len(unknown) > 1 else ''} for {what}: {names}.",
            field_errors={name: ["Not supported here."] for name in unknown},
        )


def addressed(body: dict[str, Any], filters: Any) -> tuple[str | None, str | None, Mem0Filter]:
    """The user or agent a request addresses (top-level ids or the filter's) and the filter itself."""
    parsed = parse_filters(filters)
    ids = {k: body.get(k) for k in ENTITY_KEYS if body.get(k) not in (None, "", "*")}
    for name, value in parsed.entities.items():
        if ids.setdefault(name, value) != value:
            raise bad(f"{name} differs between the request and its filters.")
    user_id, agent_id = entity_from(ids)
    return user_id, agent_id, parsed


def categories_q(categories: list[str] | None) -> Q:
    return Q(category__in=categories) if categories else Q()


def date_range_q(start: Any, end: Any) -> Q:
    """get_all's `start_date` / `end_date` (created on or after / on or before; a date is a whole day)."""
    q = Q()
    for value, op in ((start, "gte"), (end, "lte")):
        if value is None:
            continue
        if isinstance(value, datetime):
            moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        else:
            moment = datetime.combine(value, time.min if op == "gte" else time.max, tzinfo=UTC)
        q &= Q(**{f"created_at__{op}": moment})
    return q


# --- search ---------------------------------------------------------------------------------------

SEARCH_PARAMS = (
    *ENTITY_KEYS,
    "query",
    "filters",
    "top_k",
    "threshold",
    "categories",
    "rerank",
    "keyword_search",
    "fields",
    "show_expired",
    "latest_only",
    "reference_date",
    "metadata",
)


def search_refusals(params: dict[str, Any]) -> None:
    """Options of `search` whose value we cannot honour (the others are honoured as sent)."""
    if params.get("rerank") is False:
        raise unsupported(
            "rerank", "Results are always ranked by the recall blend; rerank=false cannot be honoured."
        )
    if params.get("keyword_search") is False:
        raise unsupported(
            "keyword_search", "Search always blends keyword and vector search; it cannot be turned off."
        )
    if params.get("show_expired") is True:
        raise unsupported("show_expired", "Search covers current memories; list older ones with get_all.")
    if params.get("latest_only") is False:
        raise unsupported(
            "latest_only", "Search returns current versions only; list older ones with get_all."
        )
    if params.get("metadata") is not None:
        raise unsupported("metadata", 'Put metadata conditions in filters, e.g. {"metadata": {"k": "v"}}.')


def project_fields(results: list[dict[str, Any]], fields: list[str] | None) -> list[dict[str, Any]]:
    """Only the requested keys of each result (`fields`), `id` always."""
    if not fields:
        return results
    wanted = {"id", *fields}
    return [{k: v for k, v in row.items() if k in wanted} for row in results]


# --- get_all, delete_all ---------------------------------------------------------------------------

LIST_PARAMS = (
    *ENTITY_KEYS,
    "filters",
    "categories",
    "show_expired",
    "latest_only",
    "start_date",
    "end_date",
)
DELETE_ALL_PARAMS = (*ENTITY_KEYS, "filters", "erase_sources")
ADD_PARAMS = (
    *ENTITY_KEYS,
    "messages",
    "filters",
    "metadata",
    "infer",
    "timestamp",
    "expiration_date",
)
UPDATE_PARAMS = ("text", "metadata", "timestamp", "expiration_date")


def update_refusals(params: dict[str, Any]) -> None:
    """mem0's update: the text (with optional new metadata) is a correction; nothing else changes."""
    for name in ("timestamp", "expiration_date"):
        if name in params:
            raise unsupported(name, "Set when a memory is added; an update corrects its text.")
    if "text" not in params:
        raise unsupported("text", "Required: an update corrects the text (metadata may change with it).")
