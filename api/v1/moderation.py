"""Moderation of procedures (SOPs) over the API: the queue, approve (optionally edited), reject.

Operators moderate every namespace; a tenant key with the moderate scope its own tenant's, acting
as the tenant's moderator account so the audit trail names the tenant.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import MODERATE, ApiView, json_object, page, valid
from api.schema import errors
from api.selectors import moderation_target, procedure_in_scope, tenant_namespace_ids
from api.serializers import core as s
from api.services import tenant_moderator
from api.v1.examples import core as ex
from memory_core.moderation import pending_procedures, procedure_approve, procedure_reject


def operator_for(request: Request) -> Any:
    """Who moderates: the signed-in operator, or the tenant's moderator account for a tenant key."""
    tenant = tenant_of(request)
    return tenant_moderator(tenant=tenant) if tenant is not None else request.user


class PendingProceduresApi(ApiView):
    scopes = {"GET": MODERATE}

    @extend_schema(
        operation_id="moderation_pending",
        summary="Procedures waiting for review",
        description="Operators see every namespace; a tenant key (moderate scope) its own tenant's.",
        tags=["moderation"],
        parameters=[s.PageQuerySerializer],
        responses={200: s.MemoryPageSerializer, **errors(400)},
        examples=ex.MODERATION_PENDING,
    )
    def get(self, request: Request) -> Response:
        params = valid(s.PageQuerySerializer, request.query_params)
        tenant = tenant_of(request)
        qs = pending_procedures(operator=operator_for(request))
        if tenant is not None:
            qs = qs.filter(namespace_id__in=tenant_namespace_ids(tenant))
        limit, offset = params["limit"], params["offset"]
        rows = list(qs[offset : offset + limit])
        return Response(
            page(
                request, rows, count=qs.count(), limit=limit, offset=offset, serializer=s.MemoryOutSerializer
            )
        )


class ApproveApi(ApiView):
    scopes = {"POST": MODERATE}

    @extend_schema(
        operation_id="moderation_approve",
        summary="Approve a procedure (optionally edited)",
        description="A proposal from a user's namespace is copied into the chosen org/agent namespace "
        "as an active SOP. Returns the active SOP.",
        tags=["moderation"],
        request=s.ApproveSerializer,
        responses={200: s.MemoryOutSerializer, **errors(400, 404)},
        examples=ex.MODERATION_APPROVE,
    )
    def post(self, request: Request, memory_id: str) -> Response:
        params = valid(s.ApproveSerializer, json_object(request))
        procedure_in_scope(request, memory_id=memory_id)
        target = moderation_target(
            request, namespace_path=params.get("namespace_path"), agent_id=params.get("agent_id")
        )
        approved = procedure_approve(
            operator=operator_for(request),
            memory_id=memory_id,
            content=params.get("content"),
            namespace_path=target,
            reason=params["reason"],
        )
        return Response(s.MemoryOutSerializer(approved).data)


class RejectApi(ApiView):
    scopes = {"POST": MODERATE}

    @extend_schema(
        operation_id="moderation_reject",
        summary="Reject a procedure",
        tags=["moderation"],
        request=s.RejectSerializer,
        responses={200: s.MemoryOutSerializer, **errors(400, 404)},
        examples=ex.MODERATION_REJECT,
    )
    def post(self, request: Request, memory_id: str) -> Response:
        params = valid(s.RejectSerializer, json_object(request))
        procedure_in_scope(request, memory_id=memory_id)
        rejected = procedure_reject(
            operator=operator_for(request), memory_id=memory_id, reason=params["reason"]
        )
        return Response(s.MemoryOutSerializer(rejected).data)
