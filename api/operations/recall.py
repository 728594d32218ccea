"""Recall for the API and MCP alike: the answer to a query, each entry in the API's shape."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework.request import Request

from api.auth import Caller
from api.base import entries_out
from api.selectors import subject_for
from memory_core.recall import memory_recall


def recall_answer(request: Request | Caller, params: dict[str, Any], via: str = "api") -> dict[str, Any]:
    """The answer to a recall (validated `RecallInSerializer` params), for the API and MCP alike."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    if subject is None:
        return {"items": [], "always": [], "trimmed": 0, "prompt_block": "", "tokens": 0, "turn_ref": ""}
    result = memory_recall(
        actor=subject.actor,
        query=params["query"],
        budget_tokens=params.get("budget_tokens"),
        limit=params["limit"],
        at=params.get("at"),
        types=params.get("types") or None,
        turn_ref=f"{via}:{uuid.uuid4()}",
        reference_date=params.get("reference_date"),
    )
    delivered = [*result.items, *result.always]
    entries = entries_out([item.entry for item in delivered], subject)
    out = [
        {
            "entry": entry,
            "score": item.score,
            "breakdown": item.breakdown,
            "reasons": list(item.reasons),
            "tokens": item.tokens,
        }
        for item, entry in zip(delivered, entries, strict=True)
    ]
    return {
        "items": out[: len(result.items)],
        "always": out[len(result.items) :],
        "trimmed": result.trimmed,
        "prompt_block": result.prompt_block,
        "tokens": result.tokens,
        "turn_ref": result.turn_ref,
    }
