"""Memories of a user or agent: list, search, add (one or a batch), get, correct, always recall
or not, erase one, history, export."""

from __future__ import annotations

from collections import Counter
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import (
    ERASE,
    READ,
    WRITE,
    ApiView,
    address_of,
    json_object,
    outcomes_out,
    page,
    requester_of,
    valid,
)
from api.errors import PayloadTooLarge
from api.operations.memories import memories_add_for, memory_rows
from api.schema import errors
from api.selectors import memory_for, subject_for
from api.serializers import core as s
from api.v1.examples import core as ex
from chat.erasure import memory_erase_with_sources
from memory_core.errors import NotFound
from memory_core.export import memory_export
from memory_core.forgetting import memory_restore
from memory_core.lifecycle import memory_always_recall, memory_correct
from memory_core.models import ActorKind
from memory_core.selectors import memory_history


def _memory_page(request: Request, params: dict[str, Any], *, links: bool = True) -> dict[str, Any]:
    rows, count = memory_rows(request, params)
    limit, offset = params["limit"], params["offset"]
    result = page(request, rows, count=count, limit=limit, offset=offset, serializer=s.MemoryOutSerializer)
    if not links:  # a POST search: the terms are in the body, a link could not carry them
        result["next"] = result["previous"] = None
    return result


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
        examples=ex.MEMORIES_LIST,
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
        examples=ex.MEMORIES_CREATE,
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
        subject, outcomes = memories_add_for(request, params, items)
        results = outcomes_out(outcomes, subject)
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
        examples=ex.MEMORIES_SEARCH,
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
        examples=ex.MEMORIES_RETRIEVE,
    )
    def get(self, request: Request, memory_id: str) -> Response:
        _actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
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
        examples=ex.MEMORIES_CORRECT,
    )
    def patch(self, request: Request, memory_id: str) -> Response:
        params = valid(s.MemoryCorrectSerializer, json_object(request))
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
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
        examples=ex.MEMORIES_HISTORY,
    )
    def get(self, request: Request, memory_id: str) -> Response:
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        events = memory_history(actor=actor, memory_id=entry.pk)
        return Response(s.MemoryEventOutSerializer(events, many=True).data)


class MemoryRestoreApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="memories_restore",
        summary="Restore an archived memory",
        description="Brings a memory the forgetting job archived back into use (`status` active); the "
        "job never archives it on its own again. Already active: returned unchanged. Any other status "
        "(superseded, expired, hidden …): 409. List the archived ones with `GET memories/?status=archived`; "
        "their history says why and when.",
        tags=["memories"],
        parameters=_ADDRESS_PARAMS,
        request=None,
        responses={200: s.MemoryOutSerializer, **errors(400, 404, 409)},
        examples=ex.MEMORIES_RETRIEVE,
    )
    def post(self, request: Request, memory_id: str) -> Response:
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        restored = memory_restore(actor=actor, memory_id=entry.pk)
        return Response(s.MemoryOutSerializer(restored).data)


class MemoryAlwaysRecallApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="memories_always_recall",
        summary="Always recall a memory, or not",
        description="Whether the memory comes with every recall (in `always`, and first in the prompt "
        "block) whatever was asked. The write path pins what it reads as a safety fact of the user or "
        "of someone in their care; this is how the user overrides it. `false`: not pinned, a `safety` "
        "or `profile` category becomes `general`, importance at most 0.8, so it is recalled when it fits "
        "the query and ranked as any other memory. `true`: pinned (its category kept). The choice is "
        "kept in `metadata.always_recall`, and holds when the same fact is said again, for a new value "
        "of its `key` and for a correction; the history records it (`pinned` / `unpinned`, with what "
        "changed). Only memories in use (`status` active): any other status is a 409; a rule "
        "(procedural) cannot be pinned (400). Asked again for what it already is: returned unchanged.",
        tags=["memories"],
        parameters=_ADDRESS_PARAMS,
        request=s.MemoryAlwaysRecallSerializer,
        responses={200: s.MemoryOutSerializer, **errors(400, 404, 409)},
        examples=ex.MEMORIES_ALWAYS_RECALL,
    )
    def post(self, request: Request, memory_id: str) -> Response:
        params = valid(s.MemoryAlwaysRecallSerializer, json_object(request))
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        changed = memory_always_recall(
            actor=actor,
            memory_id=entry.pk,
            always=params["always"],
            actor_kind=ActorKind.API if tenant_of(request) is not None else ActorKind.USER,
        )
        return Response(s.MemoryOutSerializer(changed).data)


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
        examples=ex.MEMORIES_EXPORT,
    )
    def get(self, request: Request) -> Response:
        address = address_of(request)
        subject = subject_for(request, user_id=address.get("user_id"), agent_id=address.get("agent_id"))
        if subject is None:
            raise NotFound("No memories are held for this id.")
        return Response(memory_export(actor=subject.actor))
