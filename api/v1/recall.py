"""Recall: the memories that matter for a query, ranked and fitted into a token budget."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import READ, ApiView, json_object, valid
from api.operations.recall import recall_answer
from api.schema import errors
from api.serializers import core as s
from api.v1.examples import core as ex


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
