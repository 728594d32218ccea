"""mem0-compatible endpoints, so the unmodified `mem0ai` `MemoryClient(api_key=<tenant key>,
host=<this server>)` works against this system.

Paths, parameters and response shapes follow what the client (mem0ai 2.x, `mem0/client/main.py`)
sends and parses. The memories are the same ones `/api/v1/` serves: mem0's `user_id` / `agent_id`
are the tenant's ids, `add` runs our extraction (or stores the text as given with `infer=false`),
`search` is our recall, `update` is a correction (a new version, hence a new id), `delete` an erasure.
Tenant API keys only. The views read and write through our selectors and services; mem0's request
and response shapes are mapped in `api.mem0.mapping`, its examples are in `api.mem0.examples`, its
v2 filter language is read in `api.mem0.filters`, and which options are honoured (or refused with a
400 naming them) is `api.mem0.options`. Batches, exports, feedback, the project's categories and the
501s for what is not served are in `api.mem0.more_apis`.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import ERASE, READ, WRITE, ApiView, address_of, json_object, requester_of, valid
from api.errors import PayloadTooLarge
from api.mem0 import examples as ex
from api.mem0 import mapping
from api.mem0.filters import parse_when
from api.mem0.mapping import ENTITY_KEYS
from api.mem0.options import (
    ADD_PARAMS,
    DELETE_ALL_PARAMS,
    LIST_PARAMS,
    SEARCH_PARAMS,
    UPDATE_PARAMS,
    addressed,
    categories_q,
    date_range_q,
    project_fields,
    reject_unknown,
    search_refusals,
    update_refusals,
)
from api.mem0.serializers import (
    DeleteAllQuerySerializer,
    Mem0AddSerializer,
    Mem0EraseQuerySerializer,
    Mem0ListSerializer,
    Mem0MemorySerializer,
    Mem0PageQuerySerializer,
    Mem0SearchSerializer,
    Mem0UpdateSerializer,
    PendingEventSerializer,
)
from api.models import ApiKey, EntityKind
from api.schema import errors
from api.selectors import (
    entity_of,
    extraction_job_for,
    memory_for,
    namespace_subject,
    subject_for,
    tenant_entities,
    tenant_entity,
)
from api.serializers import core as s
from api.services import memories_add, subject_ensure, tenant_entity_delete
from api.subjects import Subject
from chat.erasure import memory_erase_all_with_sources, memory_erase_with_sources
from memory_core.errors import Conflict, MemoryServiceError
from memory_core.extraction import MAX_MESSAGES
from memory_core.extraction.jobs import extraction_enqueue
from memory_core.lifecycle import memory_correct
from memory_core.models import ErasureVia, ExtractionJob, ExtractionStatus, MemoryEntry
from memory_core.recall import memory_recall
from memory_core.selectors import (
    memory_access,
    memory_counts,
    memory_entries_by_ids,
    memory_history,
    memory_list,
    memory_versions,
)

TAG = ["mem0-compatible"]


class Mem0View(ApiView):
    tenant_only = True


def _link_for(entry: MemoryEntry) -> tuple[str, str] | None:
    return entity_of(namespace_id=entry.namespace_id)


def _event(job: ExtractionJob, subject: Subject | None) -> dict[str, Any]:
    """mem0's event for an add; a finished one lists the subject's entries it touched."""
    entries = None
    if job.status == ExtractionStatus.DONE and subject is not None:
        ids = list((job.result or {}).get("entries", []))
        entries = memory_entries_by_ids(actor=subject.actor, ids=ids)
    return mapping.event(job, entries)


# --- Ping ---------------------------------------------------------------------------------------


class PingApi(Mem0View):
    scopes = {"GET": None}

    @extend_schema(
        operation_id="mem0_ping",
        summary="mem0: validate the key",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors()},
        examples=ex.MEM0_PING,
    )
    def get(self, request: Request) -> Response:
        tenant = tenant_of(request)
        assert tenant is not None
        creator = tenant.created_by
        return Response(
            {
                "status": "ok",
                "org_id": tenant.slug,
                "project_id": tenant.slug,
                "user_email": (creator.email or None) if creator is not None else None,
            }
        )


# --- Add ----------------------------------------------------------------------------------------


class AddApi(Mem0View):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="mem0_add",
        summary="mem0: add memories from messages",
        description="`infer` (default true): the messages are queued for extraction and the reply has an "
        "`event_id` (poll `GET /v1/event/{id}/`). `infer: false`: each non-system message is stored as "
        "given and `results` lists them.",
        tags=TAG,
        request=Mem0AddSerializer,
        responses={200: PendingEventSerializer, **errors(400, 409, 413)},
        examples=ex.MEM0_ADD,
    )
    def post(self, request: Request) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        if isinstance(data.get("messages"), list) and len(data["messages"]) > MAX_MESSAGES:
            raise PayloadTooLarge(f"At most {MAX_MESSAGES} messages per add (got {len(data['messages'])}).")
        reject_unknown(data, ADD_PARAMS, what="add")
        params = valid(Mem0AddSerializer, json_object(request))
        user_id, agent_id = mapping.entity_from(data)
        messages = mapping.add_messages(params)
        tenant = tenant_of(request)

        if not params["infer"]:
            items = mapping.stored_items(messages, params)
            with transaction.atomic():
                subject = subject_ensure(
                    tenant=tenant, person=request.user, user_id=user_id, agent_id=agent_id
                )
                outcomes = memories_add(subject=subject, items=items, api_key=True)
            return Response(mapping.stored(outcomes))

        subject = subject_ensure(tenant=tenant, person=request.user, user_id=user_id, agent_id=agent_id)
        source, transcript = mapping.transcript(messages, at=mapping.add_time(params) or timezone.now())
        job = extraction_enqueue(
            namespace=subject.namespace, source_conversation=source, messages=transcript, trigger="mem0"
        )
        if job is None:
            raise Conflict("Memory is paused for this user: nothing was queued.")
        job.refresh_from_db()
        return Response(_event(job, subject))


class EventApi(Mem0View):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="mem0_event",
        summary="mem0: status of an add",
        tags=TAG,
        parameters=[s.AddressSerializer],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404)},
        examples=ex.MEM0_EVENT,
    )
    def get(self, request: Request, event_id: str) -> Response:
        tenant = tenant_of(request)
        assert tenant is not None
        job = extraction_job_for(request, job_id=event_id, **address_of(request))
        summary = _event(job, namespace_subject(tenant, namespace_id=job.namespace_id))
        return Response(mapping.event_detail(job, summary))


# --- Search and list ----------------------------------------------------------------------------


class SearchApi(Mem0View):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="mem0_search",
        summary="mem0: search (our recall)",
        tags=TAG,
        request=Mem0SearchSerializer,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description='{"results": [memory + score]}'),
            **errors(400),
        },
        examples=ex.MEM0_SEARCH,
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        reject_unknown(body, SEARCH_PARAMS, what="search")
        params = valid(Mem0SearchSerializer, body)
        search_refusals(params)
        user_id, agent_id, parsed = addressed(body, params.get("filters"))
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
        if subject is None:
            return Response({"results": []})
        key = request.auth
        assert isinstance(key, ApiKey)  # tenant_only: HasScope admits only tenant API keys here
        result = memory_recall(
            actor=subject.actor,
            query=params["query"],
            limit=params["top_k"],
            # mem0 has no budget: top_k alone bounds a search.
            turn_ref=f"mem0:{key.prefix}:{timezone.now().timestamp()}",
            where=parsed.where & categories_q(params.get("categories")),
            reference_date=params.get("reference_date"),
        )
        found = mapping.search_results(
            result.items, mapping.link_of(subject), threshold=params.get("threshold"), categories=None
        )
        return Response({"results": project_fields(found["results"], params.get("fields"))})


class ListApi(Mem0View):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="mem0_get_all",
        summary="mem0: list memories (paginated)",
        tags=TAG,
        parameters=[Mem0PageQuerySerializer],
        request=Mem0ListSerializer,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="{count, next, previous, results}"),
            **errors(400),
        },
        examples=ex.MEM0_GET_ALL,
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        reject_unknown(body, LIST_PARAMS, what="get_all")
        params = valid(Mem0ListSerializer, body)
        page = valid(Mem0PageQuerySerializer, request.query_params)
        user_id, agent_id, parsed = addressed(body, params.get("filters"))
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
        number, size = page["page"], page["page_size"]
        if subject is None:
            return Response({"count": 0, "next": None, "previous": None, "results": []})
        current = not params["show_expired"] and params["latest_only"]
        qs = memory_list(actor=subject.actor, current_only=current).filter(
            parsed.where,
            categories_q(params.get("categories")),
            date_range_q(*(_day(params, name) for name in ("start_date", "end_date"))),
        )
        qs = qs.defer("embedding", "search_vector")
        count = qs.count()
        rows = list(qs[(number - 1) * size : number * size])
        return Response(
            mapping.mem0_page(
                request.build_absolute_uri(),
                rows,
                mapping.link_of(subject),
                count=count,
                number=number,
                size=size,
            )
        )


def _day(params: dict[str, Any], name: str) -> Any:
    return parse_when(params[name], name) if name in params else None


# --- One memory ---------------------------------------------------------------------------------


class MemoryApi(Mem0View):
    scopes = {"GET": READ, "PUT": WRITE, "DELETE": ERASE}

    @extend_schema(
        operation_id="mem0_get",
        summary="mem0: get a memory",
        tags=TAG,
        parameters=[s.AddressSerializer],
        responses={200: Mem0MemorySerializer, **errors(400, 404)},
        examples=ex.MEM0_GET,
    )
    def get(self, request: Request, memory_id: str) -> Response:
        _actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        return Response(mapping.mem0_memory(entry, _link_for(entry)))

    @extend_schema(
        operation_id="mem0_update",
        summary="mem0: update a memory's text",
        description="A correction: the reply is the NEW version (a new `id`); the old one is superseded "
        "and both histories are linked. Only `text` can change.",
        tags=TAG,
        parameters=[s.AddressSerializer],
        request=Mem0UpdateSerializer,
        responses={200: Mem0MemorySerializer, **errors(400, 404)},
        examples=ex.MEM0_UPDATE,
    )
    def put(self, request: Request, memory_id: str) -> Response:
        body = json_object(request)
        reject_unknown(body, UPDATE_PARAMS, what="update")
        params = valid(Mem0UpdateSerializer, body)
        update_refusals(params)
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        new = memory_correct(
            actor=actor,
            memory_id=entry.pk,
            content=params["text"],
            metadata=params.get("metadata"),
            reason="Updated through the API.",
        )
        return Response(mapping.mem0_memory(new, _link_for(new)))

    @extend_schema(
        operation_id="mem0_delete",
        summary="mem0: delete a memory",
        description="An erasure (with its older versions, whatever `delete_linked` says). Ours: "
        "`erase_sources=true` also deletes the conversations and transcripts it came from or was used in.",
        tags=TAG,
        parameters=[
            s.AddressSerializer,
            OpenApiParameter("delete_linked", bool),
            OpenApiParameter("erase_sources", bool, description=s.ERASE_SOURCES_HELP),
        ],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404)},
        examples=ex.MEM0_DELETE,
    )
    def delete(self, request: Request, memory_id: str) -> Response:
        params = valid(Mem0EraseQuerySerializer, request.query_params)
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        memory_erase_with_sources(
            user=actor,
            memory_id=entry.pk,
            erase_sources=params["erase_sources"],
            requester=requester_of(request, ErasureVia.MEM0),
        )
        return Response({"message": "Memory deleted successfully!"})


class HistoryApi(Mem0View):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="mem0_history",
        summary="mem0: history of a memory and its earlier versions",
        tags=TAG,
        parameters=[s.AddressSerializer],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="A list of changes, oldest first."),
            **errors(400, 404),
        },
        examples=ex.MEM0_HISTORY,
    )
    def get(self, request: Request, memory_id: str) -> Response:
        actor, entry = memory_for(request, memory_id=memory_id, **address_of(request))
        link = _link_for(entry)
        for _hop in range(50):  # from the newest version, so an old id shows what replaced it
            if entry.superseded_by_id is None:
                break
            entry = memory_access(actor=actor, memory_id=entry.superseded_by_id)
        versions = memory_versions(actor=actor, memory_id=entry.pk)
        events = sorted(
            (event for version in versions for event in memory_history(actor=actor, memory_id=version.pk)),
            key=lambda e: (e.created_at, e.pk),
        )
        return Response(mapping.history_rows(versions, events, link))


class DeleteAllApi(Mem0View):
    scopes = {"DELETE": ERASE}

    @extend_schema(
        operation_id="mem0_delete_all",
        summary="mem0: delete all memories of a user or agent",
        description="The entity as `user_id` / `agent_id`, or inside `filters` (what `delete_all(filters="
        "{'user_id': …})` of the mem0 client sends). Extraction jobs queued or running for it go too. "
        "Ours: `erase_sources=true` (the client passes it through: `delete_all(filters=…, "
        "erase_sources=True)`) also deletes the entity's conversations.",
        tags=TAG,
        parameters=[DeleteAllQuerySerializer],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400)},
        examples=ex.MEM0_DELETE_ALL,
    )
    def delete(self, request: Request) -> Response:
        reject_unknown(request.query_params, DELETE_ALL_PARAMS, what="delete_all")
        params = valid(DeleteAllQuerySerializer, request.query_params)
        ids: dict[str, Any] = {k: request.query_params.get(k) for k in ENTITY_KEYS}
        filters = mapping.filters_param(params["filters"]) if "filters" in params else None
        user_id, agent_id, parsed = addressed(ids, filters)
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
        requester = requester_of(request, ErasureVia.MEM0)
        if subject is None:
            return Response({"message": "Memories deleted successfully!", "deleted": 0})
        if not parsed.narrows:
            receipt = memory_erase_all_with_sources(
                user=subject.actor, erase_sources=params["erase_sources"], requester=requester
            )
            return Response({"message": "Memories deleted successfully!", "deleted": receipt.entries})
        # Conditions beyond the entity: erase what get_all with the same filters lists, one by one.
        ids_to_erase = list(
            memory_list(actor=subject.actor, current_only=True)
            .filter(namespace=subject.namespace)
            .filter(parsed.where)
            .values_list("pk", flat=True)[: s.MAX_BATCH + 1]
        )
        if len(ids_to_erase) > s.MAX_BATCH:
            raise MemoryServiceError(
                f"The filters match more than {s.MAX_BATCH} memories; narrow them, or erase everything "
                "with the user or agent alone.",
                field_errors={"filters": [f"At most {s.MAX_BATCH} memories per call."]},
            )
        with transaction.atomic():
            for pk in ids_to_erase:
                if MemoryEntry.objects.filter(pk=pk).exists():
                    memory_erase_with_sources(
                        user=subject.actor,
                        memory_id=pk,
                        erase_sources=params["erase_sources"],
                        requester=requester,
                    )
        return Response({"message": "Memories deleted successfully!", "deleted": len(ids_to_erase)})


# --- Entities -----------------------------------------------------------------------------------


class EntitiesApi(Mem0View):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="mem0_users",
        summary="mem0: the tenant's users and agents",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors()},
        examples=ex.MEM0_USERS,
    )
    def get(self, request: Request) -> Response:
        tenant = tenant_of(request)
        assert tenant is not None
        links = list(tenant_entities(tenant)[:10_000])
        counts = memory_counts(namespace_ids=[link.namespace_id for link in links])
        return Response(mapping.entities(tenant, links, counts))


class EntityApi(Mem0View):
    scopes = {"DELETE": ERASE}

    @extend_schema(
        operation_id="mem0_delete_user",
        summary="mem0: delete a user or agent and everything about it",
        description="Its memories, their history text, its conversations and transcripts (extraction "
        "payloads), then the entity itself. A content-free erasure receipt stays for operators.",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(404)},
        examples=ex.MEM0_DELETE_USER,
    )
    def delete(self, request: Request, entity_type: str, name: str) -> Response:
        tenant = tenant_of(request)
        assert tenant is not None
        if entity_type not in EntityKind.values:
            raise MemoryServiceError(
                "Only user and agent entities exist here.", field_errors={"type": ["Use user or agent."]}
            )
        link = tenant_entity(tenant, kind=entity_type, external_id=name)
        tenant_entity_delete(link=link, requester=requester_of(request, ErasureVia.MEM0))
        return Response({"message": "Entity deleted successfully."})
