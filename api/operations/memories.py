"""Memories for the API and MCP alike: a page of the subject's memories, and writing statements."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from rest_framework.request import Request

from api.auth import Caller, tenant_of
from api.selectors import memories_filtered, subject_for
from api.services import memories_add, subject_ensure
from api.subjects import Subject
from memory_core.models import MemoryEntry
from memory_core.outcomes import AddOutcome
from memory_core.selectors import memory_list

# The list's date ranges, as the API's query string and the MCP tool name them.
DATE_FILTERS = (
    "recorded_after",
    "recorded_before",
    "updated_after",
    "updated_before",
    "valid_after",
    "valid_before",
)


def memory_rows(request: Request | Caller, params: dict[str, Any]) -> tuple[list[MemoryEntry], int]:
    """One page of the subject's memories matching `params` (a validated MemoryListQuerySerializer),
    and how many match in all; the API and MCP alike."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return [], 0
    qs = memory_list(
        actor=subject.actor,
        types=params.get("type"),
        statuses=params.get("status"),
        category=params.get("category"),
        current_only=params["current"],
    )
    dates = {name: params.get(name) for name in DATE_FILTERS}
    qs = memories_filtered(qs, q=params.get("q"), **dates)
    limit, offset = params["limit"], params["offset"]
    return list(qs[offset : offset + limit]), qs.count()


def memories_add_for(
    request: Request | Caller, params: dict[str, Any], items: list[dict[str, Any]]
) -> tuple[Subject, list[AddOutcome]]:
    """Write validated statements for the addressed subject (created on first use), all or none;
    the API and MCP alike."""
    tenant = tenant_of(request)
    with transaction.atomic():  # the shadow user too: a failed batch leaves nothing behind
        subject = subject_ensure(
            tenant=tenant,
            person=request.user,
            user_id=params.get("user_id"),
            agent_id=params.get("agent_id"),
        )
        outcomes = memories_add(subject=subject, items=items, api_key=tenant is not None)
    return subject, outcomes
