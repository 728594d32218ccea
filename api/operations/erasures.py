"""Erasing everything held about a user (or agent), for the API and MCP alike."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from api.auth import Caller
from api.base import requester_of
from api.selectors import subject_for
from chat.erasure import memory_erase_all_with_sources
from memory_core.export import receipt_dict
from memory_core.models import ErasureVia


def erase_all_for(
    request: Request | Caller, params: dict[str, Any], via: str = ErasureVia.API
) -> dict[str, Any]:
    """Erase everything held about the addressed subject (validated `EraseAllSerializer` params,
    `confirm` checked there); the API and MCP alike."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return {"erased": 0, "conversations": 0, "receipt": None}
    receipt = memory_erase_all_with_sources(
        user=subject.actor, erase_sources=params["erase_sources"], requester=requester_of(request, via)
    )
    return {
        "erased": receipt.entries,
        "conversations": receipt.conversations,
        "receipt": receipt_dict(receipt),
    }
