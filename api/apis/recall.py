"""Recall: the memories that matter for a query, ranked and fitted into a token budget."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api import examples as ex
from api import serializers as s
from api.auth import Caller
from api.base import READ, ApiView, entries_out, json_object, valid
from api.schema import errors
from api.selectors import subject_for
from memory_core.recall import memory_recall


class RecallApi(ApiView):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="recall",
        summary="Recall memories for a query",
        description="Vector (statement and conversational context) + BM25 keyword candidates, "
        "reranked (`breakdown` shows the 0..1 components: similarity, context, keyword, time, names, "
        "recency, importance, confidence); `items` are the ones that answer the query, best first, at "
        "most `limit` (and within `budget_tokens` when given: `trimmed` counts what it left out). The "
        "always-recall memories (pinned, safety, profile) come apart in `always`, never taking an "
        "item's slot; `prompt_block` (always first, then the items) is ready to put in a system "
        "prompt. Recalls are logged where the user can see them.",
        tags=["recall"],
        request=s.RecallInSerializer,
        responses={200: s.RecallOutSerializer, **errors(400)},
        examples=ex.RECALL,
    )
    def post(self, request: Request) -> Response:
        return Response(recall_answer(request, valid(s.RecallInSerializer, json_object(request))))


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
