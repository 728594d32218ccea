"""Erasing everything held about a user (or agent), and the receipts erasures leave."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import ERASE, READ, ApiView, AsIs, address_of, json_object, page, valid
from api.operations.erasures import erase_all_for
from api.schema import errors
from api.selectors import subject_for
from api.serializers import core as s
from api.v1.examples import core as ex
from memory_core.export import receipt_dict
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
