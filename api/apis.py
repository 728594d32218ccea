"""REST API `/api/v1/`: thin views over the memory_core, lifecycle, moderation and chat services.

Each view validates its input with a small serializer, resolves whose memories the call is about
(`api.selectors`), calls one service and serialises the result. Errors are JSON (`api.errors`).
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any, ClassVar

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from api import serializers as s
from api.auth import ApiKeyAuthentication, UserTokenAuthentication, tenant_of
from api.errors import PayloadTooLarge
from api.models import ApiKey, ApiScope
from api.parsers import LimitedJSONParser
from api.permissions import HasScope
from api.selectors import (
    conversation_for,
    extraction_job_for,
    memories_filtered,
    memory_for,
    moderation_target,
    procedure_in_scope,
    subject_for,
    tenant_namespace_ids,
)
from api.services import memories_add, subject_ensure, tenant_moderator
from api.subjects import Subject
from api.throttling import ApiKeyThrottle, ApiUserThrottle
from chat.erasure import conversation_erase, memory_erase_all_with_sources, memory_erase_with_sources
from chat.selectors import conversation_messages
from chat.services import conversation_close, conversation_create, message_post, turn_reply
from memory_core.erasure import Requester
from memory_core.errors import NotFound
from memory_core.export import memory_export, receipt_dict
from memory_core.extraction import MAX_MESSAGES, extraction_enqueue
from memory_core.lifecycle import memory_correct
from memory_core.models import ErasureReceipt, ErasureVia, ExtractionJob, MemoryEntry
from memory_core.moderation import pending_procedures, procedure_approve, procedure_reject
from memory_core.recall import memory_recall
from memory_core.selectors import (
    erasure_receipts,
    memory_history,
    memory_list,
    recalled_entry_ids,
)

READ, WRITE, ERASE, MODERATE = ApiScope.READ, ApiScope.WRITE, ApiScope.ERASE, ApiScope.MODERATE


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    code = serializers.CharField()
    # Stub gap (typeddjango/djangorestframework-stubs#78): DRF pops declared fields off the class,
    # but the stubs still type the name as Serializer.errors.
    errors = serializers.DictField(help_text="Field errors: {field: [message, …]}; batch items by index.")  # type: ignore[assignment]


_ERROR_TEXT = {
    400: "Invalid input (field errors in `errors`), or a body that is not JSON.",
    401: "No credentials, or an invalid or revoked key.",
    403: "The key lacks the scope, or the endpoint is not for this kind of caller.",
    404: "Not found — or not yours: both are answered alike.",
    409: "Conflicts with the current state (e.g. memory paused).",
    413: "Body over 2 MB, or a batch over its limit.",
    415: "Not JSON: send Content-Type: application/json.",
    429: "Rate limit exceeded; see the Retry-After header.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    wanted = sorted({401, 403, 429, *codes})
    return {code: OpenApiResponse(ErrorSerializer, description=_ERROR_TEXT[code]) for code in wanted}


def valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def json_object(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise serializers.ValidationError({"non_field_errors": ["Expected a JSON object."]})
    return request.data


def _page(
    request: Request, rows: Any, *, count: int, limit: int, offset: int, serializer: Any
) -> dict[str, Any]:
    """DRF's limit/offset page shape; links keep the caller's filters."""
    url = replace_query_param(request.build_absolute_uri(), "limit", limit)
    following, preceding = offset + limit, max(0, offset - limit)
    return {
        "count": count,
        "next": replace_query_param(url, "offset", following) if following < count else None,
        "previous": None if offset == 0 else replace_query_param(url, "offset", preceding),
        "results": serializer(rows, many=True).data,
    }


class ApiView(APIView):
    """Tenant key, personal token or session; JSON in and out; scopes per method; rate limited."""

    authentication_classes = [ApiKeyAuthentication, UserTokenAuthentication, SessionAuthentication]
    permission_classes = [HasScope]
    parser_classes = [LimitedJSONParser]
    renderer_classes = [JSONRenderer]
    throttle_classes = [ApiKeyThrottle, ApiUserThrottle]
    scopes: ClassVar[dict[str, str | None]] = {}  # HTTP method → the scope it needs (None: any)


def _address(request: Request) -> dict[str, Any]:
    return valid(s.AddressSerializer, request.query_params)


def requester_of(request: Request, via: str = ErasureVia.API) -> Requester:
    """Who asks, for an erasure's receipt: a tenant key by its prefix, else the signed-in person."""
    key = request.auth
    if isinstance(key, ApiKey):
        return Requester(via=via, api_key_prefix=key.prefix)
    return Requester(via=via, person=request.user)


def _entry_out(entry: MemoryEntry | None, subject: Subject | None = None) -> Any:
    if entry is None:
        return None
    if subject is not None and entry.namespace_id == subject.namespace.pk:
        entry.namespace = subject.namespace  # saves a query per entry on merged/ignored outcomes
    return s.MemoryOutSerializer(entry).data


def _outcome_out(outcome: Any, subject: Subject) -> dict[str, Any]:
    return {
        "action": outcome.action,
        "reason": outcome.reason,
        "flagged": outcome.flagged,
        "entry": _entry_out(outcome.entry, subject),
        "replaced": outcome.replaced.pk if outcome.replaced is not None else None,
    }


# --- Memories ------------------------------------------------------------------------------------

_MEMORY_EXAMPLE = {
    "id": "6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11",
    "namespace": "user/t.acme.3f9a1c2b7d4e5f6a7b8c",
    "type": "semantic",
    "category": "safety",
    "key": "health.allergy.peanut",
    "content": "The user is severely allergic to peanuts.",
    "status": "active",
    "importance": 0.95,
    "confidence": 1.0,
    "pinned": True,
    "evidence_count": 1,
    "source": {
        "kind": "api_import",
        "conversation": "",
        "message_ids": [],
        "extractor": "",
        "is_inference": False,
    },
    "valid_from": "2026-06-29T10:00:00Z",
    "valid_to": None,
    "recorded_at": "2026-06-29T10:00:00Z",
    "expires_at": None,
    "supersedes": None,
    "superseded_by": None,
    "access_count": 3,
    "last_accessed_at": "2026-07-01T08:12:00Z",
    "metadata": {"source": "onboarding_form"},
    "created_at": "2026-06-29T10:00:00Z",
    "updated_at": "2026-07-01T08:12:00Z",
}
_CREATE_ONE = {
    "user_id": "customer-42",
    "content": "The user is severely allergic to peanuts.",
    "category": "safety",
    "key": "health.allergy.peanut",
    "importance": 0.95,
    "pinned": True,
    "metadata": {"source": "onboarding_form"},
}


def _memory_page(request: Request, params: dict[str, Any], *, links: bool = True) -> dict[str, Any]:
    """A page of the subject's memories matching `params` (a validated MemoryListQuerySerializer)."""
    subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
    limit, offset = params["limit"], params["offset"]
    if subject is None:
        rows: list[MemoryEntry] = []
        count = 0
    else:
        qs = memory_list(
            actor=subject.actor,
            types=params.get("type"),
            statuses=params.get("status"),
            category=params.get("category"),
            current_only=params["current"],
        )
        qs = memories_filtered(
            qs,
            q=params.get("q"),
            recorded_after=params.get("recorded_after"),
            recorded_before=params.get("recorded_before"),
        )
        rows, count = list(qs[offset : offset + limit]), qs.count()
    page = _page(request, rows, count=count, limit=limit, offset=offset, serializer=s.MemoryOutSerializer)
    if not links:  # a POST search: the terms are in the body, a link could not carry them
        page["next"] = page["previous"] = None
    return page


class MemoriesApi(ApiView):
    scopes = {"GET": READ, "POST": WRITE}

    @extend_schema(
        operation_id="memories_list",
        summary="List memories",
        description="Newest first; filters combine. Tenant keys: `user_id` or `agent_id` (an id never "
        "used before has no memories yet).",
        tags=["memories"],
        parameters=[s.MemoryListQuerySerializer],
        responses={200: s.MemoryPageSerializer, **errors(400)},
        examples=[
            OpenApiExample(
                "A page",
                value={"count": 1, "next": None, "previous": None, "results": [_MEMORY_EXAMPLE]},
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        return Response(_memory_page(request, valid(s.MemoryListQuerySerializer, request.query_params)))

    @extend_schema(
        operation_id="memories_create",
        summary="Add a memory, or a batch of up to 1,000",
        description="Each statement is reconciled with what the namespace holds: `added`, `merged` into a "
        "duplicate, `superseded` an older value of the same `key`, `pending_review` (procedures wait for "
        "an operator), `ignored`, or `rejected` (a secret; never stored). A batch is all-or-nothing: "
        "every item is validated before anything is written, and the writes share one transaction.",
        tags=["memories"],
        request=PolymorphicProxySerializer(
            component_name="MemoryCreateRequest",
            serializers=[s.MemoryCreateSerializer, s.MemoryBatchCreateSerializer],
            resource_type_field_name=None,
        ),
        responses={
            201: OpenApiResponse(s.AddResultSerializer, description="One memory, stored as a new entry."),
            200: OpenApiResponse(
                PolymorphicProxySerializer(
                    component_name="MemoryCreateResult",
                    serializers=[s.AddResultSerializer, s.BatchResultSerializer],
                    resource_type_field_name=None,
                ),
                description="A batch; or one memory that was merged, ignored or rejected.",
            ),
            **errors(400, 409, 413),
        },
        examples=[
            OpenApiExample("One memory", value=_CREATE_ONE, request_only=True),
            OpenApiExample(
                "A batch",
                value={
                    "user_id": "customer-42",
                    "memories": [
                        {"content": "The user lives in Shanghai.", "key": "home_city", "category": "profile"},
                        {
                            "content": "On 2026-06-29 refund RF20260629001 was filed for order 88231.",
                            "type": "episodic",
                            "category": "event",
                            "valid_from": "2026-06-29T09:30:00+08:00",
                        },
                    ],
                },
                request_only=True,
            ),
            OpenApiExample(
                "Added",
                value={
                    "action": "added",
                    "reason": "",
                    "flagged": False,
                    "entry": _MEMORY_EXAMPLE,
                    "replaced": None,
                },
                response_only=True,
                status_codes=["201"],
            ),
            OpenApiExample(
                "Batch result",
                value={
                    "counts": {"added": 1, "superseded": 1},
                    "results": [
                        {
                            "action": "superseded",
                            "reason": "",
                            "flagged": False,
                            "entry": _MEMORY_EXAMPLE,
                            "replaced": "0b7c8f2e-5a1d-4f3b-8c2e-9d1a7b6c5e4f",
                        },
                        {
                            "action": "added",
                            "reason": "",
                            "flagged": False,
                            "entry": _MEMORY_EXAMPLE,
                            "replaced": None,
                        },
                    ],
                },
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        data = json_object(request)
        if "memories" in data:
            items = data["memories"]
            if isinstance(items, list) and len(items) > s.MAX_BATCH:
                raise PayloadTooLarge(f"At most {s.MAX_BATCH} memories per batch (got {len(items)}).")
            params = valid(s.MemoryBatchCreateSerializer, data)
            items = params["memories"]
        else:
            params = valid(s.MemoryCreateSerializer, data)
            items = [{k: v for k, v in params.items() if k not in ("user_id", "agent_id")}]
        tenant = tenant_of(request)
        with transaction.atomic():  # the shadow user too: a failed batch leaves nothing behind
            subject = subject_ensure(
                tenant=tenant,
                person=request.user,
                user_id=params.get("user_id"),
                agent_id=params.get("agent_id"),
            )
            outcomes = memories_add(subject=subject, items=items, api_key=tenant is not None)
        results = [_outcome_out(outcome, subject) for outcome in outcomes]
        if "memories" in data:
            counts = Counter(outcome.action for outcome in outcomes)
            return Response({"counts": dict(counts), "results": results})
        created = outcomes[0].action in ("added", "superseded", "pending_review")
        return Response(results[0], status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemorySearchApi(ApiView):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="memories_search",
        summary="Search memories (terms in the body)",
        description="The filters of `GET /api/v1/memories/`, sent as a JSON body so that search terms "
        "never travel in a URL (URLs end up in access logs, proxies and browser history). Page with "
        "`limit` and `offset` in the body; `next` and `previous` are null.",
        tags=["memories"],
        request=s.MemoryListQuerySerializer,
        responses={200: s.MemoryPageSerializer, **errors(400)},
        examples=[
            OpenApiExample(
                "Search",
                value={"user_id": "customer-42", "q": "RF20260629001", "limit": 20},
                request_only=True,
            ),
            OpenApiExample(
                "A page",
                value={"count": 1, "next": None, "previous": None, "results": [_MEMORY_EXAMPLE]},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        params = valid(s.MemoryListQuerySerializer, json_object(request))
        return Response(_memory_page(request, params, links=False))


_ADDRESS_PARAMS = [s.AddressSerializer]


class MemoryApi(ApiView):
    scopes = {"GET": READ, "PATCH": WRITE, "DELETE": ERASE}

    @extend_schema(
        operation_id="memories_retrieve",
        summary="Get a memory",
        tags=["memories"],
        parameters=_ADDRESS_PARAMS,
        responses={200: s.MemoryOutSerializer, **errors(400, 404)},
        examples=[OpenApiExample("A memory", value=_MEMORY_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, memory_id: str) -> Response:
        _actor, entry = memory_for(request, memory_id=memory_id, **_address(request))
        return Response(s.MemoryOutSerializer(entry).data)

    @extend_schema(
        operation_id="memories_correct",
        summary="Correct a memory",
        description="The statement was wrong: a new version (source `user_correction`) takes its place "
        "and the old one is superseded. Returns the new version; its `supersedes` is the old id.",
        tags=["memories"],
        parameters=_ADDRESS_PARAMS,
        request=s.MemoryCorrectSerializer,
        responses={200: s.MemoryOutSerializer, **errors(400, 404)},
        examples=[
            OpenApiExample(
                "Correction",
                value={
                    "content": "The user is allergic to tree nuts, not peanuts.",
                    "reason": "Typo in intake form",
                },
                request_only=True,
            ),
            OpenApiExample("New version", value=_MEMORY_EXAMPLE, response_only=True),
        ],
    )
    def patch(self, request: Request, memory_id: str) -> Response:
        params = valid(s.MemoryCorrectSerializer, json_object(request))
        actor, entry = memory_for(request, memory_id=memory_id, **_address(request))
        new = memory_correct(
            actor=actor, memory_id=entry.pk, content=params["content"], reason=params["reason"]
        )
        return Response(s.MemoryOutSerializer(new).data)

    @extend_schema(
        operation_id="memories_erase",
        summary="Erase a memory",
        description="Hard delete of the entry and its older versions, their embeddings, recall log and "
        "every copy of the text; the history keeps a content-free tombstone. `erase_sources=true` also "
        "deletes the conversations it came from or was used in (messages, titles) and the extraction "
        "payloads of its sources, as the privacy page's option does. The erasure's receipt is listed by "
        "`GET /api/v1/erasures/`; the database files are cleaned by the disk pass that follows.",
        tags=["memories"],
        parameters=[s.EraseOneQuerySerializer],
        responses={204: OpenApiResponse(description="Erased."), **errors(400, 404)},
    )
    def delete(self, request: Request, memory_id: str) -> Response:
        params = valid(s.EraseOneQuerySerializer, request.query_params)
        address = {k: params[k] for k in ("user_id", "agent_id") if k in params}
        actor, entry = memory_for(request, memory_id=memory_id, **address)
        memory_erase_with_sources(
            user=actor,
            memory_id=entry.pk,
            erase_sources=params["erase_sources"],
            requester=requester_of(request),
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemoryHistoryApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="memories_history",
        summary="History of a memory",
        description="Every change, oldest first: created, merged, superseded, corrected, approved …",
        tags=["memories"],
        parameters=_ADDRESS_PARAMS,
        responses={200: s.MemoryEventOutSerializer(many=True), **errors(400, 404)},
        examples=[
            OpenApiExample(
                "History",
                value=[
                    {
                        "id": 1,
                        "memory_id": _MEMORY_EXAMPLE["id"],
                        "action": "created",
                        "actor_kind": "api",
                        "reason": "",
                        "data": {"content": _MEMORY_EXAMPLE["content"], "status": "active"},
                        "created_at": "2026-06-29T10:00:00Z",
                    },
                    {
                        "id": 7,
                        "memory_id": _MEMORY_EXAMPLE["id"],
                        "action": "merged",
                        "actor_kind": "extraction",
                        "reason": "The same statement was observed again.",
                        "data": {"evidence_count": 2},
                        "created_at": "2026-07-02T16:40:00Z",
                    },
                ],
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, memory_id: str) -> Response:
        actor, entry = memory_for(request, memory_id=memory_id, **_address(request))
        events = memory_history(actor=actor, memory_id=entry.pk)
        return Response(s.MemoryEventOutSerializer(events, many=True).data)


_RECEIPT = {
    "id": 7,
    "scope": "all",
    "via": "api",
    "requested_by": None,
    "api_key": "mk_1a2b3c4d",
    "at": "2026-07-03T12:00:00Z",
    "counts": {
        "entries": 12,
        "evidence": 15,
        "history": 31,
        "recalls": 4,
        "flags": 0,
        "jobs": 2,
        "conversations": 3,
        "messages": 40,
    },
    "vacuumed_at": None,
    "rewritten_at": None,
}


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
        examples=[
            OpenApiExample(
                "Request",
                value={"user_id": "customer-42", "confirm": True, "erase_sources": True},
                request_only=True,
            ),
            OpenApiExample(
                "Result",
                value={"erased": 12, "conversations": 3, "receipt": _RECEIPT},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        params = valid(s.EraseAllSerializer, json_object(request))
        subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
        if subject is None:
            return Response({"erased": 0, "conversations": 0, "receipt": None})
        receipt = memory_erase_all_with_sources(
            user=subject.actor, erase_sources=params["erase_sources"], requester=requester_of(request)
        )
        return Response(
            {
                "erased": receipt.entries,
                "conversations": receipt.conversations,
                "receipt": receipt_dict(receipt),
            }
        )


class ExportApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="memories_export",
        summary="Export everything held about a user (or agent)",
        description="Memories with provenance and history, erased-entry tombstones and the recall log.",
        tags=["memories"],
        parameters=_ADDRESS_PARAMS,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="memory-export-v1"),
            **errors(400, 404),
        },
        examples=[
            OpenApiExample(
                "Export",
                value={
                    "format": "memory-export-v1",
                    "exported_at": "2026-07-03T12:00:00Z",
                    "user": "t.acme.3f9a1c2b7d4e5f6a7b8c",
                    "namespaces": [
                        {
                            "path": "user/t.acme.3f9a1c2b7d4e5f6a7b8c",
                            "memory_paused": False,
                            "created_at": "2026-06-29T10:00:00Z",
                        }
                    ],
                    "memories": [
                        {"id": _MEMORY_EXAMPLE["id"], "content": _MEMORY_EXAMPLE["content"], "history": []}
                    ],
                    "erased_history": [],
                    "recall_log": [],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        address = _address(request)
        subject = subject_for(request, user_id=address.get("user_id"), agent_id=address.get("agent_id"))
        if subject is None:
            raise NotFound("No memories are held for this id.")
        return Response(memory_export(actor=subject.actor))


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
        examples=[
            OpenApiExample(
                "Receipts",
                value={"count": 1, "next": None, "previous": None, "results": [_RECEIPT]},
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        address = _address(request)
        page = valid(s.PageQuerySerializer, request.query_params)
        subject = subject_for(request, user_id=address.get("user_id"), agent_id=address.get("agent_id"))
        limit, offset = page["limit"], page["offset"]
        qs = erasure_receipts(actor=subject.actor) if subject is not None else ErasureReceipt.objects.none()
        rows = [receipt_dict(r) for r in qs[offset : offset + limit]]
        return Response(_page(request, rows, count=qs.count(), limit=limit, offset=offset, serializer=_AsIs))


class _AsIs(serializers.Serializer):
    """Rows already shaped (receipt_dict): `_page` serialises them as they are."""

    def to_representation(self, instance: Any) -> Any:
        return instance


# --- Recall --------------------------------------------------------------------------------------


class RecallApi(ApiView):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="recall",
        summary="Recall memories for a query",
        description="Vector + keyword + always-recall candidates, reranked (`breakdown` shows the 0..1 "
        "components), filled into `budget_tokens`; `prompt_block` is ready to put in a system prompt. "
        "Recalls are logged where the user can see them.",
        tags=["recall"],
        request=s.RecallInSerializer,
        responses={200: s.RecallOutSerializer, **errors(400)},
        examples=[
            OpenApiExample(
                "Request",
                value={
                    "user_id": "customer-42",
                    "query": "Can you suggest a snack?",
                    "limit": 5,
                    "budget_tokens": 300,
                },
                request_only=True,
            ),
            OpenApiExample(
                "Result",
                value={
                    "items": [
                        {
                            "entry": _MEMORY_EXAMPLE,
                            "score": 0.71,
                            "breakdown": {
                                "similarity": 0.62,
                                "keyword": 0.0,
                                "recency": 0.98,
                                "importance": 0.95,
                                "confidence": 1.0,
                            },
                            "reasons": ["pinned", "vector"],
                            "tokens": 23,
                        }
                    ],
                    "prompt_block": "Background knowledge about the user …\n<memories>\n"
                    "- [fact, dated 2026-06-29, "
                    "source: imported] The user is severely allergic to peanuts.\n</memories>\n…",
                    "tokens": 23,
                    "turn_ref": "api:2f7c…",
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        params = valid(s.RecallInSerializer, json_object(request))
        subject = subject_for(request, user_id=params.get("user_id"), agent_id=params.get("agent_id"))
        if subject is None:
            return Response({"items": [], "prompt_block": "", "tokens": 0, "turn_ref": ""})
        result = memory_recall(
            actor=subject.actor,
            query=params["query"],
            budget_tokens=params["budget_tokens"],
            limit=params["limit"],
            at=params.get("at"),
            types=params.get("types") or None,
            turn_ref=f"api:{uuid.uuid4()}",
        )
        items = [
            {
                "entry": _entry_out(item.entry, subject),
                "score": item.score,
                "breakdown": item.breakdown,
                "reasons": list(item.reasons),
                "tokens": item.tokens,
            }
            for item in result.items
        ]
        return Response(
            {
                "items": items,
                "prompt_block": result.prompt_block,
                "tokens": result.tokens,
                "turn_ref": result.turn_ref,
            }
        )


# --- Conversations -------------------------------------------------------------------------------

_CONVERSATION = {
    "id": "0d3f6a0e-8f1b-4b7e-a2c4-5e6f7a8b9c0d",
    "title": "Snacks",
    "incognito": False,
    "closed_at": None,
    "created_at": "2026-07-03T12:00:00Z",
    "last_activity_at": "2026-07-03T12:01:00Z",
}
_MESSAGE = {
    "id": 41,
    "role": "user",
    "content": "Can you suggest a snack?",
    "status": "complete",
    "offline": False,
    "created_at": "2026-07-03T12:01:00Z",
}
_JOB = {
    "id": 17,
    "status": "queued",
    "trigger": "api",
    "conversation": "ticket-9",
    "result": {},
    "error": "",
    "extractor": "",
    "created_at": "2026-07-03T12:02:00Z",
    "finished_at": None,
}


class ConversationsApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="conversations_create",
        summary="Start a conversation",
        description="Tenant keys: for the end user `user_id`. "
        "Incognito conversations neither recall nor learn.",
        tags=["conversations"],
        request=s.ConversationCreateSerializer,
        responses={201: s.ConversationOutSerializer, **errors(400)},
        examples=[
            OpenApiExample("Request", value={"user_id": "customer-42", "title": "Snacks"}, request_only=True),
            OpenApiExample("Conversation", value=_CONVERSATION, response_only=True),
        ],
    )
    def post(self, request: Request) -> Response:
        params = valid(s.ConversationCreateSerializer, json_object(request))
        with transaction.atomic():
            subject = subject_ensure(
                tenant=tenant_of(request),
                person=request.user,
                user_id=params.get("user_id"),
                agent_id=None,
                agents=False,
            )
            conversation = conversation_create(
                user=subject.actor, incognito=params["incognito"], title=params["title"]
            )
        return Response(s.ConversationOutSerializer(conversation).data, status=status.HTTP_201_CREATED)


class ConversationApi(ApiView):
    scopes = {"DELETE": ERASE}

    @extend_schema(
        operation_id="conversations_delete",
        summary="Delete a conversation",
        description="The conversation, its messages and the extraction jobs of its transcript, for good; "
        "memories learned from it stay (erase them with `erase_sources` to take those back too). Leaves "
        "an erasure receipt (`GET /api/v1/erasures/`).",
        tags=["conversations"],
        request=None,
        responses={204: OpenApiResponse(description="Deleted."), **errors(404)},
    )
    def delete(self, request: Request, conversation_id: str) -> Response:
        user, conversation = conversation_for(request, conversation_id=conversation_id)
        conversation_erase(user=user, conversation_id=conversation.pk, requester=requester_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConversationMessagesApi(ApiView):
    scopes = {"GET": READ, "POST": WRITE}

    @extend_schema(
        operation_id="conversations_messages_list",
        summary="Messages of a conversation",
        tags=["conversations"],
        parameters=[
            OpenApiParameter("limit", int, description="At most 200 (default 50)."),
            OpenApiParameter("offset", int),
        ],
        responses={
            200: OpenApiResponse(
                s.MessageOutSerializer(many=True), description="In turn order (at most 1,000)."
            ),
            **errors(404),
        },
        examples=[OpenApiExample("Messages", value=[_MESSAGE], response_only=True)],
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        _user, conversation = conversation_for(request, conversation_id=conversation_id)
        return Response(
            s.MessageOutSerializer(
                list(conversation_messages(conversation=conversation)[:1000]), many=True
            ).data
        )

    @extend_schema(
        operation_id="conversations_messages_create",
        summary="Post a message and get the reply",
        description="Runs a chat turn: recall → prompt → model → reply. `recalled_entry_ids` are the "
        "memories the reply was written with. A model failure is a 502/503/504; the message is kept.",
        tags=["conversations"],
        request=s.MessageInSerializer,
        responses={201: s.TurnOutSerializer, **errors(400, 404)},
        examples=[
            OpenApiExample("Request", value={"content": "Can you suggest a snack?"}, request_only=True),
            OpenApiExample(
                "Turn",
                value={
                    "user_message": _MESSAGE,
                    "reply": {
                        **_MESSAGE,
                        "id": 42,
                        "role": "assistant",
                        "content": "How about apple slices? (No peanuts — I remember your allergy.)",
                    },
                    "recalled_entry_ids": [_MEMORY_EXAMPLE["id"]],
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        params = valid(s.MessageInSerializer, json_object(request))
        user, conversation = conversation_for(request, conversation_id=conversation_id)
        message = message_post(conversation=conversation, content=params["content"])
        reply = turn_reply(user=user, conversation=conversation, user_message=message)
        message.refresh_from_db()
        return Response(
            {
                "user_message": s.MessageOutSerializer(message).data,
                "reply": s.MessageOutSerializer(reply).data,
                "recalled_entry_ids": recalled_entry_ids(actor=user, turn_ref=reply.recall_ref),
            },
            status=status.HTTP_201_CREATED,
        )


def _job_out(job: ExtractionJob | None) -> dict[str, Any] | None:
    return s.JobOutSerializer(job).data if job is not None else None


class ConversationCloseApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="conversations_close",
        summary="Close a conversation",
        description="What it taught is extracted in the background; `extraction` is that job "
        "(null for incognito conversations, paused memory, or nothing new to learn).",
        tags=["conversations"],
        request=None,
        responses={200: s.CloseOutSerializer, **errors(404)},
        examples=[
            OpenApiExample(
                "Closed", value={"conversation": _CONVERSATION, "extraction": _JOB}, response_only=True
            )
        ],
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        _user, conversation = conversation_for(request, conversation_id=conversation_id)
        job = conversation_close(conversation=conversation)
        if job is not None:
            job.refresh_from_db()  # with synchronous tasks it may already be done
        return Response(
            {"conversation": s.ConversationOutSerializer(conversation).data, "extraction": _job_out(job)}
        )


# --- Extraction ----------------------------------------------------------------------------------


class ExtractionsApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="extractions_create",
        summary="Extract memories from a transcript",
        description="For callers that run their own model: the transcript is queued for extraction "
        "(only user messages count as evidence). Idempotent: the same transcript returns the same job. "
        "Poll `GET /api/v1/extractions/{id}/`. When the user paused memory nothing is queued "
        "(`status: skipped`).",
        tags=["extraction"],
        request=s.ExtractionInSerializer,
        responses={202: s.JobOutSerializer, 200: s.JobOutSerializer, **errors(400, 413)},
        examples=[
            OpenApiExample(
                "Transcript",
                value={
                    "user_id": "customer-42",
                    "conversation": "ticket-9",
                    "messages": [
                        {
                            "id": "m1",
                            "role": "user",
                            "content": "I moved to Shanghai last month.",
                            "created_at": "2026-07-03T12:00:00Z",
                        },
                        {"id": "m2", "role": "assistant", "content": "Noted!"},
                    ],
                },
                request_only=True,
            ),
            OpenApiExample("Queued", value=_JOB, response_only=True, status_codes=["202"]),
        ],
    )
    def post(self, request: Request) -> Response:
        data = json_object(request)
        if isinstance(data.get("messages"), list) and len(data["messages"]) > MAX_MESSAGES:
            raise PayloadTooLarge(
                f"At most {MAX_MESSAGES} messages per extraction (got {len(data['messages'])})."
            )
        params = valid(s.ExtractionInSerializer, data)
        messages = [
            {
                "id": m.get("id") or str(position),
                "role": m["role"],
                "content": m["content"],
                "created_at": m["created_at"].isoformat() if m.get("created_at") else None,
            }
            for position, m in enumerate(params["messages"], start=1)
        ]
        subject = subject_ensure(
            tenant=tenant_of(request),
            person=request.user,
            user_id=params.get("user_id"),
            agent_id=params.get("agent_id"),
        )
        job = extraction_enqueue(
            namespace=subject.namespace,
            source_conversation=params["conversation"],
            messages=messages,
            trigger="api",
        )
        if job is None:
            skipped = {
                "id": None,
                "status": "skipped",
                "trigger": "api",
                "conversation": params["conversation"],
                "result": {"skipped": "paused"},
                "error": "",
                "extractor": "",
                "created_at": None,
                "finished_at": None,
            }
            return Response(skipped)
        job.refresh_from_db()
        return Response(_job_out(job), status=status.HTTP_202_ACCEPTED)


class ExtractionApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="extractions_retrieve",
        summary="Status and result of an extraction",
        tags=["extraction"],
        responses={200: s.JobOutSerializer, **errors(404)},
        examples=[
            OpenApiExample(
                "Done",
                value={
                    **_JOB,
                    "status": "done",
                    "extractor": "rule-based",
                    "finished_at": "2026-07-03T12:02:05Z",
                    "result": {
                        "added": 1,
                        "merged": 0,
                        "superseded": 0,
                        "ignored": 0,
                        "pending_review": 0,
                        "rejected": 0,
                        "entries": [_MEMORY_EXAMPLE["id"]],
                        "changed": [_MEMORY_EXAMPLE["id"]],
                    },
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, job_id: str) -> Response:
        return Response(_job_out(extraction_job_for(request, job_id=job_id)))


# --- Moderation ----------------------------------------------------------------------------------


class PendingProceduresApi(ApiView):
    scopes = {"GET": MODERATE}

    @extend_schema(
        operation_id="moderation_pending",
        summary="Procedures waiting for review",
        description="Operators see every namespace; a tenant key (moderate scope) its own tenant's.",
        tags=["moderation"],
        parameters=[s.PageQuerySerializer],
        responses={200: s.MemoryPageSerializer, **errors(400)},
        examples=[
            OpenApiExample(
                "Pending",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            **_MEMORY_EXAMPLE,
                            "type": "procedural",
                            "category": "sop",
                            "status": "pending_review",
                            "content": "Refunds over 500 EUR need a supervisor's approval.",
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        page = valid(s.PageQuerySerializer, request.query_params)
        tenant = tenant_of(request)
        qs = pending_procedures(operator=operator_for(request))
        if tenant is not None:
            qs = qs.filter(namespace_id__in=tenant_namespace_ids(tenant))
        limit, offset = page["limit"], page["offset"]
        rows = list(qs[offset : offset + limit])
        return Response(
            _page(
                request, rows, count=qs.count(), limit=limit, offset=offset, serializer=s.MemoryOutSerializer
            )
        )


def operator_for(request: Request) -> Any:
    """Who moderates: the signed-in operator, or the tenant's moderator account for a tenant key."""
    tenant = tenant_of(request)
    return tenant_moderator(tenant=tenant) if tenant is not None else request.user


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
        examples=[
            OpenApiExample(
                "Approve into an agent",
                value={"agent_id": "support", "reason": "Matches policy 4.2"},
                request_only=True,
            ),
            OpenApiExample(
                "Active SOP",
                value={**_MEMORY_EXAMPLE, "type": "procedural", "category": "sop"},
                response_only=True,
            ),
        ],
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
        examples=[
            OpenApiExample("Reject", value={"reason": "Would let tickets skip approval."}, request_only=True)
        ],
    )
    def post(self, request: Request, memory_id: str) -> Response:
        params = valid(s.RejectSerializer, json_object(request))
        procedure_in_scope(request, memory_id=memory_id)
        rejected = procedure_reject(
            operator=operator_for(request), memory_id=memory_id, reason=params["reason"]
        )
        return Response(s.MemoryOutSerializer(rejected).data)
