"""mem0-compatible endpoints, so the unmodified `mem0ai` `MemoryClient(api_key=<tenant key>,
host=<this server>)` works against this system.

Paths, parameters and response shapes follow what the client (mem0ai 2.x, `mem0/client/main.py`)
sends and parses. The memories are the same ones `/api/v1/` serves: mem0's `user_id` / `agent_id`
are the tenant's ids, `add` runs our extraction (or stores the text as given with `infer=false`),
`search` is our recall, `update` is a correction (a new version, hence a new id), `delete` an erasure.
Tenant API keys only.
"""

from __future__ import annotations

import ast
import hashlib
import json
from datetime import UTC, datetime, time
from typing import Any

from django.db import transaction
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from api import serializers as s
from api.auth import tenant_of
from api.base import ERASE, READ, WRITE, ApiView, json_object, requester_of, valid
from api.errors import PayloadTooLarge
from api.models import ApiKey, EntityKind
from api.schema import errors
from api.selectors import (
    entity_of,
    memory_for,
    namespace_subject,
    subject_for,
    tenant_entities,
    tenant_entity,
    tenant_namespace_ids,
)
from api.services import memories_add, subject_ensure, tenant_entity_delete
from api.subjects import Subject
from chat.erasure import memory_erase_all_with_sources, memory_erase_with_sources
from memory_core.errors import Conflict, MemoryServiceError
from memory_core.extraction import MAX_MESSAGES, extraction_enqueue
from memory_core.lifecycle import memory_correct
from memory_core.models import ErasureVia, ExtractionJob, ExtractionStatus, MemoryEntry
from memory_core.recall import MAX_LIMIT as RECALL_MAX_LIMIT
from memory_core.recall import memory_recall
from memory_core.selectors import (
    extraction_job_access,
    memory_access,
    memory_counts,
    memory_entries_by_ids,
    memory_history,
    memory_list,
    memory_versions,
)

TAG = ["mem0-compatible"]
# mem0's add → event statuses.
_EVENT_STATUS: dict[str, str] = {
    ExtractionStatus.QUEUED: "PENDING",
    ExtractionStatus.RUNNING: "RUNNING",
    ExtractionStatus.DONE: "SUCCEEDED",
    ExtractionStatus.FAILED: "FAILED",
}
# Our reconciliation outcomes → mem0's memory events.
_EVENTS = {
    "added": "ADD",
    "pending_review": "ADD",
    "superseded": "UPDATE",
    "merged": "NONE",
    "ignored": "NONE",
}
_HISTORY_EVENTS = {"created": "ADD", "corrected": "UPDATE", "erased": "DELETE"}
_ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")
_SEARCH_BUDGET_TOKENS = 100_000  # mem0 has no budget: top_k alone bounds a search


class Mem0View(ApiView):
    tenant_only = True


# --- Representation -----------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def mem0_memory(
    entry: MemoryEntry, link: tuple[str, str] | None, score: float | None = None
) -> dict[str, Any]:
    """mem0's memory shape; `link` is how the tenant names the entry's namespace (kind, id)."""
    kind, external = link if link is not None else ("", None)
    data: dict[str, Any] = {
        "id": str(entry.pk),
        "memory": entry.content,
        "user_id": external if kind == EntityKind.USER else None,
        "agent_id": external if kind == EntityKind.AGENT else None,
        "app_id": None,
        "run_id": None,
        "hash": hashlib.md5(entry.content.encode(), usedforsecurity=False).hexdigest(),
        "metadata": entry.metadata or None,
        "categories": [entry.category],
        "immutable": False,
        "expiration_date": entry.expires_at.date().isoformat() if entry.expires_at else None,
        "created_at": _iso(entry.created_at),
        "updated_at": _iso(entry.updated_at),
        # Ours, beyond mem0's shape: what the engine knows about the statement.
        "type": entry.type,
        "status": entry.status,
    }
    if score is not None:
        data["score"] = score
    return data


def _link_of(subject: Subject) -> tuple[str, str]:
    return subject.kind, subject.external_id


class Mem0MemorySerializer(serializers.Serializer):
    """Documentation of the shape above (responses are built by `mem0_memory`)."""

    id = serializers.UUIDField()
    memory = serializers.CharField()
    user_id = serializers.CharField(allow_null=True)
    agent_id = serializers.CharField(allow_null=True)
    app_id = serializers.CharField(allow_null=True)
    run_id = serializers.CharField(allow_null=True)
    hash = serializers.CharField()
    metadata = s.MetadataField(allow_null=True)
    categories = serializers.ListField(child=serializers.CharField())
    immutable = serializers.BooleanField()
    expiration_date = serializers.DateField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    type = serializers.CharField()
    status = serializers.CharField()
    score = serializers.FloatField(required=False)


_M0 = {
    "id": "6f1c2a8e-1d7b-4c1e-9a53-0b3f1f0a9c11",
    "memory": "The user is vegetarian.",
    "user_id": "alice",
    "agent_id": None,
    "app_id": None,
    "run_id": None,
    "hash": "3b0f4b1c9d1a7e3c5a2e1f0d9c8b7a6e",
    "metadata": {"source": "chat"},
    "categories": ["preference"],
    "immutable": False,
    "expiration_date": None,
    "created_at": "2026-07-03T12:00:00+00:00",
    "updated_at": "2026-07-03T12:00:00+00:00",
    "type": "semantic",
    "status": "active",
}


# --- Entities (mem0's user_id / agent_id, from the body, its filters, or the query string) -------


def _entity_from(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """mem0 sends entity ids at the top level or in `filters` (possibly inside an "AND" list)."""
    found: dict[str, Any] = {k: data.get(k) for k in _ENTITY_KEYS if data.get(k) not in (None, "")}
    filters = data.get("filters")
    if filters is not None and not isinstance(filters, dict):
        raise MemoryServiceError(
            "filters must be an object.", field_errors={"filters": ["Must be a JSON object."]}
        )
    stack = [filters or {}]
    while stack:
        current = stack.pop()
        for key, value in current.items():
            if key in ("AND", "and") and isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, dict))
            elif key in _ENTITY_KEYS and value not in (None, "", "*"):
                found.setdefault(key, value)
    user_id, agent_id = found.get("user_id"), found.get("agent_id")
    for name, value in (("user_id", user_id), ("agent_id", agent_id)):
        if value is not None and not isinstance(value, str):
            raise MemoryServiceError(f"{name} must be a string.", field_errors={name: ["Must be a string."]})
    if not user_id and not agent_id:
        hint = " (app_id and run_id scopes are not supported)" if found else ""
        raise MemoryServiceError(
            f"Give user_id or agent_id{hint}.", field_errors={"filters": ["user_id or agent_id is required."]}
        )
    if user_id and agent_id:
        raise MemoryServiceError(
            "Give user_id or agent_id, not both.", field_errors={"filters": ["One of user_id, agent_id."]}
        )
    # The same rules as /api/v1/ (length, characters).
    address = s.AddressSerializer(data={"user_id": user_id} if user_id else {"agent_id": agent_id})
    address.is_valid(raise_exception=True)
    return user_id, agent_id


# --- Ping ---------------------------------------------------------------------------------------


class PingApi(Mem0View):
    scopes = {"GET": None}

    @extend_schema(
        operation_id="mem0_ping",
        summary="mem0: validate the key",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors()},
        examples=[
            OpenApiExample(
                "Pong",
                value={"status": "ok", "org_id": "acme", "project_id": "acme", "user_email": "ops@acme.test"},
                response_only=True,
            )
        ],
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


class Mem0MessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "system", "tool"])
    content = s.StrictCharField(max_length=s.TRANSCRIPT_MESSAGE_MAX_CHARS, allow_blank=True)


class Mem0AddSerializer(serializers.Serializer):
    messages = serializers.ListField(child=Mem0MessageSerializer(), min_length=1, max_length=MAX_MESSAGES)
    user_id = s.StrictCharField(required=False)
    agent_id = s.StrictCharField(required=False)
    filters = serializers.DictField(required=False)
    metadata = s.MetadataField(required=False, default=dict)
    infer = s.StrictBooleanField(required=False, default=True)
    timestamp = s.StrictIntegerField(
        required=False, min_value=0, max_value=32503680000, help_text="Unix seconds."
    )
    expiration_date = serializers.DateField(required=False, allow_null=True)


class PendingEventSerializer(serializers.Serializer):
    message = serializers.CharField()
    status = serializers.CharField(help_text="PENDING, RUNNING, SUCCEEDED or FAILED.")
    event_id = serializers.CharField(allow_null=True)
    results = serializers.ListField(child=serializers.DictField(), required=False)


def _job_results(job: ExtractionJob, subject: Subject) -> list[dict[str, Any]]:
    result = job.result or {}
    changed = set(result.get("changed", []))
    entries = memory_entries_by_ids(actor=subject.actor, ids=list(result.get("entries", [])))
    return [
        {"id": entry_id, "memory": entry.content, "event": "ADD" if entry_id in changed else "NONE"}
        for entry_id, entry in entries.items()
    ]


def _event(job: ExtractionJob, subject: Subject | None) -> dict[str, Any]:
    status = _EVENT_STATUS.get(job.status, "PENDING")
    body: dict[str, Any] = {
        "message": "Memory processing has been queued for background execution"
        if status in ("PENDING", "RUNNING")
        else "Memory processing finished"
        if status == "SUCCEEDED"
        else f"Memory processing failed: {job.error}",
        "status": status,
        "event_id": str(job.pk),
    }
    if status == "SUCCEEDED" and subject is not None:
        body["results"] = _job_results(job, subject)
    return body


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
        examples=[
            OpenApiExample(
                "Messages",
                value={"messages": [{"role": "user", "content": "I'm vegetarian."}], "user_id": "alice"},
                request_only=True,
            ),
            OpenApiExample(
                "Queued",
                value={
                    "message": "Memory processing has been queued for background execution",
                    "status": "PENDING",
                    "event_id": "17",
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        if isinstance(data.get("messages"), list) and len(data["messages"]) > MAX_MESSAGES:
            raise PayloadTooLarge(f"At most {MAX_MESSAGES} messages per add (got {len(data['messages'])}).")
        params = valid(Mem0AddSerializer, json_object(request))
        user_id, agent_id = _entity_from(data)
        when = datetime.fromtimestamp(params["timestamp"], tz=UTC) if "timestamp" in params else None
        expiry = params.get("expiration_date")
        expires_at = timezone.make_aware(datetime.combine(expiry, time.max)) if expiry else None
        messages = [m for m in params["messages"] if m["role"] != "system" and m["content"].strip()]
        if not messages:
            raise MemoryServiceError("Nothing to add.", field_errors={"messages": ["No non-empty messages."]})

        if not params["infer"]:
            too_long = [i for i, m in enumerate(messages) if len(m["content"].strip()) > s.CONTENT_MAX_CHARS]
            if too_long:
                raise MemoryServiceError(
                    "A memory is at most 2000 characters.",
                    field_errors={
                        "messages": [f"Message {i} is longer than {s.CONTENT_MAX_CHARS}." for i in too_long]
                    },
                )
            items = [
                {
                    "content": m["content"],
                    "metadata": params["metadata"],
                    "valid_from": when,
                    "expires_at": expires_at,
                }
                for m in messages
            ]
            with transaction.atomic():
                subject = subject_ensure(
                    tenant=tenant_of(request), person=request.user, user_id=user_id, agent_id=agent_id
                )
                outcomes = memories_add(subject=subject, items=items, api_key=True)
            results = [
                {"id": str(o.entry.pk), "memory": o.entry.content, "event": _EVENTS.get(o.action, "NONE")}
                for o in outcomes
                if o.entry is not None
            ]
            return Response(
                {"message": "Memories stored", "status": "SUCCEEDED", "event_id": None, "results": results}
            )

        subject = subject_ensure(
            tenant=tenant_of(request), person=request.user, user_id=user_id, agent_id=agent_id
        )
        created_at = (when or timezone.now()).isoformat()
        # mem0 has no conversation ids: name the transcript by its text, so a re-sent add is the same
        # source (idempotent) and another add is a new one (its facts merge as new evidence).
        digest = hashlib.sha256(
            json.dumps([[m["role"], m["content"]] for m in messages]).encode()
        ).hexdigest()
        job = extraction_enqueue(
            namespace=subject.namespace,
            source_conversation=f"mem0-{digest[:32]}",
            messages=[
                {
                    "id": str(n),
                    "role": "user" if m["role"] == "user" else "assistant",
                    "content": m["content"],
                    "created_at": created_at,
                }
                for n, m in enumerate(messages, start=1)
            ],
            trigger="mem0",
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
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(404)},
        examples=[
            OpenApiExample(
                "Done",
                value={
                    "id": "17",
                    "event_type": "ADD",
                    "status": "SUCCEEDED",
                    "results": [{"id": _M0["id"], "memory": _M0["memory"], "event": "ADD"}],
                    "created_at": "2026-07-03T12:00:00+00:00",
                    "completed_at": "2026-07-03T12:00:02+00:00",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, event_id: str) -> Response:
        tenant = tenant_of(request)
        assert tenant is not None
        job = extraction_job_access(namespace_ids=tenant_namespace_ids(tenant), job_id=event_id)
        event = _event(job, namespace_subject(tenant, namespace_id=job.namespace_id))
        return Response(
            {
                "id": event["event_id"],
                "event_type": "ADD",
                "status": event["status"],
                "payload": {},
                "metadata": {},
                "results": event.get("results", []),
                "error": job.error or None,
                "created_at": _iso(job.created_at),
                "updated_at": _iso(job.finished_at or job.created_at),
                "completed_at": _iso(job.finished_at)
                if job.status in (ExtractionStatus.DONE, ExtractionStatus.FAILED)
                else None,
            }
        )


# --- Search and list ----------------------------------------------------------------------------


class Mem0SearchSerializer(serializers.Serializer):
    query = s.StrictCharField(max_length=4000)
    filters = serializers.DictField(required=False)
    top_k = s.StrictIntegerField(required=False, min_value=1, max_value=RECALL_MAX_LIMIT, default=10)
    threshold = s.StrictFloatField(required=False, min_value=0, max_value=1, allow_null=True)
    categories = serializers.ListField(child=s.StrictCharField(max_length=40), required=False)


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
        examples=[
            OpenApiExample(
                "Search",
                value={"query": "What do I eat?", "filters": {"user_id": "alice"}, "top_k": 5},
                request_only=True,
            ),
            OpenApiExample("Results", value={"results": [{**_M0, "score": 0.64}]}, response_only=True),
        ],
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        params = valid(Mem0SearchSerializer, body)
        user_id, agent_id = _entity_from(body)
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
        if subject is None:
            return Response({"results": []})
        key = request.auth
        assert isinstance(key, ApiKey)  # tenant_only: HasScope admits only tenant API keys here
        result = memory_recall(
            actor=subject.actor,
            query=params["query"],
            limit=params["top_k"],
            budget_tokens=_SEARCH_BUDGET_TOKENS,
            turn_ref=f"mem0:{key.prefix}:{timezone.now().timestamp()}",
        )
        link, threshold, categories = _link_of(subject), params.get("threshold"), params.get("categories")
        results = [
            mem0_memory(item.entry, link, score=item.score)
            for item in result.items
            if (threshold is None or item.score >= threshold)
            and (not categories or item.entry.category in categories)
        ]
        return Response({"results": results})


class Mem0ListSerializer(serializers.Serializer):
    filters = serializers.DictField(required=False)
    show_expired = s.StrictBooleanField(required=False, default=False)
    categories = serializers.ListField(child=s.StrictCharField(max_length=40), required=False)


class Mem0PageQuerySerializer(serializers.Serializer):
    page = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000, default=1)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=500, default=100)


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
        examples=[
            OpenApiExample("Filters", value={"filters": {"user_id": "alice"}}, request_only=True),
            OpenApiExample(
                "Page",
                value={"count": 1, "next": None, "previous": None, "results": [_M0]},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        params = valid(Mem0ListSerializer, body)
        page = valid(Mem0PageQuerySerializer, request.query_params)
        user_id, agent_id = _entity_from(body)
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
        number, size = page["page"], page["page_size"]
        if subject is None:
            return Response({"count": 0, "next": None, "previous": None, "results": []})
        qs = memory_list(actor=subject.actor, current_only=not params["show_expired"])
        if params.get("categories"):
            qs = qs.filter(category__in=params["categories"])
        qs = qs.defer("embedding", "search_vector")
        count = qs.count()
        rows = list(qs[(number - 1) * size : number * size])
        url = request.build_absolute_uri()
        link = _link_of(subject)
        return Response(
            {
                "count": count,
                "next": replace_query_param(url, "page", number + 1) if number * size < count else None,
                "previous": replace_query_param(url, "page", number - 1) if number > 1 else None,
                "results": [mem0_memory(entry, link) for entry in rows],
            }
        )


# --- One memory ---------------------------------------------------------------------------------


class Mem0UpdateSerializer(serializers.Serializer):
    text = s.StrictCharField(required=False, max_length=s.CONTENT_MAX_CHARS)
    metadata = s.MetadataField(required=False, allow_null=True)
    timestamp = serializers.JSONField(required=False)
    expiration_date = serializers.CharField(required=False, allow_null=True)


def _link_for(entry: MemoryEntry) -> tuple[str, str] | None:
    return entity_of(namespace_id=entry.namespace_id)


class Mem0EraseQuerySerializer(serializers.Serializer):
    erase_sources = serializers.BooleanField(required=False, default=False)
    delete_linked = serializers.BooleanField(required=False, default=False)


class MemoryApi(Mem0View):
    scopes = {"GET": READ, "PUT": WRITE, "DELETE": ERASE}

    @extend_schema(
        operation_id="mem0_get",
        summary="mem0: get a memory",
        tags=TAG,
        responses={200: Mem0MemorySerializer, **errors(404)},
        examples=[OpenApiExample("Memory", value=_M0, response_only=True)],
    )
    def get(self, request: Request, memory_id: str) -> Response:
        _actor, entry = memory_for(request, memory_id=memory_id)
        return Response(mem0_memory(entry, _link_for(entry)))

    @extend_schema(
        operation_id="mem0_update",
        summary="mem0: update a memory's text",
        description="A correction: the reply is the NEW version (a new `id`); the old one is superseded "
        "and both histories are linked. Only `text` can change.",
        tags=TAG,
        request=Mem0UpdateSerializer,
        responses={200: Mem0MemorySerializer, **errors(400, 404)},
        examples=[OpenApiExample("Update", value={"text": "The user is vegan."}, request_only=True)],
    )
    def put(self, request: Request, memory_id: str) -> Response:
        params = valid(Mem0UpdateSerializer, json_object(request))
        if "text" not in params:
            raise MemoryServiceError(
                "Only the text of a memory can be updated here.",
                field_errors={
                    "text": ["This field is required; metadata and dates are set when a memory is added."]
                },
            )
        actor, entry = memory_for(request, memory_id=memory_id)
        new = memory_correct(
            actor=actor, memory_id=entry.pk, content=params["text"], reason="Updated through the API."
        )
        return Response(mem0_memory(new, _link_for(new)))

    @extend_schema(
        operation_id="mem0_delete",
        summary="mem0: delete a memory",
        description="An erasure (with its older versions, whatever `delete_linked` says). Ours: "
        "`erase_sources=true` also deletes the conversations and transcripts it came from or was used in.",
        tags=TAG,
        parameters=[
            OpenApiParameter("delete_linked", bool),
            OpenApiParameter("erase_sources", bool, description=s.ERASE_SOURCES_HELP),
        ],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(404)},
        examples=[
            OpenApiExample("Deleted", value={"message": "Memory deleted successfully!"}, response_only=True)
        ],
    )
    def delete(self, request: Request, memory_id: str) -> Response:
        params = valid(Mem0EraseQuerySerializer, request.query_params)
        actor, entry = memory_for(request, memory_id=memory_id)
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
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="A list of changes, oldest first."),
            **errors(404),
        },
        examples=[
            OpenApiExample(
                "History",
                value=[
                    {
                        "id": "12",
                        "memory_id": _M0["id"],
                        "old_memory": None,
                        "new_memory": _M0["memory"],
                        "event": "ADD",
                        "user_id": "alice",
                        "metadata": None,
                        "created_at": "2026-07-03T12:00:00+00:00",
                        "updated_at": "2026-07-03T12:00:00+00:00",
                    }
                ],
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, memory_id: str) -> Response:
        actor, entry = memory_for(request, memory_id=memory_id)
        link = _link_for(entry)
        for _hop in range(50):  # from the newest version, so an old id shows what replaced it
            if entry.superseded_by_id is None:
                break
            entry = memory_access(actor=actor, memory_id=entry.superseded_by_id)
        versions = memory_versions(actor=actor, memory_id=entry.pk)
        contents = {str(v.pk): v.content for v in versions}
        events = sorted(
            (event for version in versions for event in memory_history(actor=actor, memory_id=version.pk)),
            key=lambda e: (e.created_at, e.pk),
        )
        # A correction writes "created" and "corrected" on the new version and "corrected" on the
        # old one; a keyed update writes "created" on the new and "superseded" on the old. One row each.
        corrected = {e.entry_ref for e in events if e.action == "corrected" and "corrects" in e.data}
        supersedes = {str(v.pk): str(v.supersedes_id) for v in versions if v.supersedes_id}
        rows: list[dict[str, Any]] = []
        for event in events:
            data = event.data or {}
            ref = str(event.entry_ref)
            if event.action == "superseded" or (event.action == "corrected" and "corrects" not in data):
                continue
            if event.action == "created" and event.entry_ref in corrected:
                continue
            old = contents.get(data["corrects"]) if event.action == "corrected" else None
            name = _HISTORY_EVENTS.get(event.action, event.action.upper())
            if event.action == "created" and ref in supersedes:
                old, name = contents.get(supersedes[ref]), "UPDATE"
            rows.append(
                {
                    "id": str(event.pk),
                    "memory_id": ref,
                    "old_memory": old,
                    "new_memory": data.get("content"),
                    "event": name,
                    "input": [],
                    "user_id": link[1] if link and link[0] == EntityKind.USER else None,
                    "agent_id": link[1] if link and link[0] == EntityKind.AGENT else None,
                    "metadata": None,
                    "created_at": _iso(event.created_at),
                    "updated_at": _iso(event.created_at),
                }
            )
        return Response(rows)


def _filters_param(value: str) -> dict[str, Any]:
    """mem0's `delete_all(filters={...})` puts the dict in the query string as the client's HTTP
    library writes it: Python's repr (`{'user_id': 'alice'}`). JSON is accepted too. Parsed as a
    literal, never evaluated."""
    try:
        parsed = json.loads(value)
    except ValueError:
        try:
            parsed = ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            parsed = None
    if not isinstance(parsed, dict):
        raise MemoryServiceError(
            'filters must be an object, e.g. {"user_id": "alice"}.',
            field_errors={"filters": ["Must be a JSON object (or the mem0 client's form of one)."]},
        )
    return parsed


class DeleteAllQuerySerializer(serializers.Serializer):
    user_id = s.StrictCharField(required=False)
    agent_id = s.StrictCharField(required=False)
    filters = serializers.CharField(
        required=False, max_length=2000, help_text="{'user_id': …}, as mem0 sends it."
    )
    erase_sources = serializers.BooleanField(required=False, default=False, help_text=s.ERASE_SOURCES_HELP)


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
        examples=[
            OpenApiExample("Deleted", value={"message": "Memories deleted successfully!"}, response_only=True)
        ],
    )
    def delete(self, request: Request) -> Response:
        params = valid(DeleteAllQuerySerializer, request.query_params)
        ids: dict[str, Any] = {k: params[k] for k in ("user_id", "agent_id") if k in params}
        if "filters" in params:
            ids["filters"] = _filters_param(params["filters"])
        user_id, agent_id = _entity_from(ids)
        subject = subject_for(request, user_id=user_id, agent_id=agent_id)
        if subject is not None:
            memory_erase_all_with_sources(
                user=subject.actor,
                erase_sources=params["erase_sources"],
                requester=requester_of(request, ErasureVia.MEM0),
            )
        return Response({"message": "Memories deleted successfully!"})


# --- Entities -----------------------------------------------------------------------------------


class EntitiesApi(Mem0View):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="mem0_users",
        summary="mem0: the tenant's users and agents",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors()},
        examples=[
            OpenApiExample(
                "Entities",
                value={
                    "count": 1,
                    "next": None,
                    "previous": None,
                    "results": [
                        {
                            "id": "alice",
                            "name": "alice",
                            "type": "user",
                            "total_memories": 3,
                            "owner": "acme",
                            "organization": "acme",
                            "metadata": {},
                            "created_at": "2026-07-03T12:00:00+00:00",
                            "updated_at": "2026-07-03T12:00:00+00:00",
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        tenant = tenant_of(request)
        assert tenant is not None
        links = list(tenant_entities(tenant)[:10_000])
        counts = memory_counts(namespace_ids=[link.namespace_id for link in links])
        results: list[dict[str, Any]] = [
            {
                "id": link.external_id,
                "name": link.external_id,
                "type": link.kind,
                "total_memories": counts.get(link.namespace_id, 0),
                "owner": tenant.slug,
                "organization": tenant.slug,
                "metadata": {},
                "created_at": _iso(link.created_at),
                "updated_at": _iso(link.created_at),
            }
            for link in links
        ]
        return Response({"count": len(results), "next": None, "previous": None, "results": results})


class EntityApi(Mem0View):
    scopes = {"DELETE": ERASE}

    @extend_schema(
        operation_id="mem0_delete_user",
        summary="mem0: delete a user or agent and everything about it",
        description="Its memories, their history text, its conversations and transcripts (extraction "
        "payloads), then the entity itself. A content-free erasure receipt stays for operators.",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(404)},
        examples=[
            OpenApiExample("Deleted", value={"message": "Entity deleted successfully."}, response_only=True)
        ],
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
