"""Erasing everything held about a user (or agent), and the receipts erasures leave."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api import examples as ex
from api import serializers as s
from api.auth import Caller
from api.base import ERASE, READ, ApiView, AsIs, address_of, json_object, page, requester_of, valid
from api.schema import errors
from api.selectors import subject_for
from chat.erasure import memory_erase_all_with_sources
from memory_core.export import receipt_dict
from memory_core.models import ErasureVia
from memory_core.selectors import erasure_receipts


class EraseAllApi(ApiView):
    scopes = {"POST": ERASE}

    @extend_schema(
        operation_id="memories_erase_all",
        summary="Erase every memory of a user (or agent)",
        description='Irreversible; needs `{"confirm": true}`. Extraction jobs queued or running for the '
        "user are erased with their payloads. `erase_sources: true` also deletes every conversation of "
        "the user (messages, titles). `receipt` is the erasure's content-free receipt; `receipt` is null "
        "for a tenant id never used (nothing held).",
        tags=["memories"],
        request=s.EraseAllSerializer,
        responses={200: s.ErasedSerializer, **errors(400, 404)},
        examples=ex.MEMORIES_ERASE_ALL,
    )
    def post(self, request: Request) -> Response:
        return Response(erase_all_for(request, valid(s.EraseAllSerializer, json_object(request))))


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


class ErasuresApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="erasures_list",
        summary="Erasure receipts of a user (or agent)",
        description="One receipt per erasure (a memory, everything, a conversation), newest first: who "
        "asked, when, how many rows of each kind went, and when the disk pass made the bytes "
        "unreadable in the database files (`vacuumed_at`, then `rewritten_at`). Never what was erased.",
        tags=["memories"],
        parameters=[s.AddressSerializer, s.PageQuerySerializer],
        responses={200: s.ErasureReceiptPageSerializer, **errors(400)},
        examples=ex.ERASURES_LIST,
    )
    def get(self, request: Request) -> Response:
        address = address_of(request)
        params = valid(s.PageQuerySerializer, request.query_params)
        subject = subject_for(request, user_id=address.get("user_id"), agent_id=address.get("agent_id"))
        limit, offset = params["limit"], params["offset"]
        rows: list[dict[str, Any]] = []
        count = 0
        if subject is not None:  # a tenant id never used has had nothing to erase
            qs = erasure_receipts(actor=subject.actor)
            rows, count = [receipt_dict(r) for r in qs[offset : offset + limit]], qs.count()
        return Response(page(request, rows, count=count, limit=limit, offset=offset, serializer=AsIs))
