"""The rest of mem0's `MemoryClient`: batch update and delete, exports, feedback, the project's
categories, and a 501 naming the feature for what this system does not offer (summaries, profiles,
project administration). Same keys, scopes, services and 404s as the core mem0 routes in
`api.mem0.apis`; the options each call honours are in `api.mem0.options`.
"""

from __future__ import annotations

from typing import Any

from django.core import signing
from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import ERASE, READ, WRITE, ApiView, json_object, requester_of, valid
from api.errors import PayloadTooLarge
from api.mem0 import examples as ex
from api.mem0.filters import Mem0Filter, parse_filters
from api.mem0.mapping import mem0_memory
from api.mem0.options import NotServed, addressed, reject_unknown, unsupported
from api.mem0.serializers import (
    EXPORT_SCHEMA,
    Mem0BatchDeleteSerializer,
    Mem0BatchUpdateSerializer,
    Mem0ExportCreateSerializer,
    Mem0ExportGetSerializer,
    Mem0FeedbackSerializer,
)
from api.models import Tenant
from api.schema import errors
from api.selectors import entity_of, memory_for, reach, reaches, subject_for
from api.serializers import core as s
from api.subjects import Subject
from chat.erasure import memory_erase_with_sources
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.export import memory_export
from memory_core.extraction import CATEGORIES
from memory_core.lifecycle import memory_correct, memory_feedback
from memory_core.models import ActorKind, ErasureVia, MemoryEntry
from memory_core.selectors import memory_list

TAG = ["mem0-compatible"]
EXPORT_MAX_AGE = 7 * 24 * 3600  # an export id can be fetched for a week
_EXPORT_SALT = "api.mem0.export"
_EXPORT_NOT_FOUND = "Export not found (unknown, or older than a week)."
CATEGORY_HELP = {
    "profile": "Who the user is: name, job, where they live.",
    "preference": "How the user likes things done.",
    "safety": "Allergies, conditions and other facts that must never be forgotten.",
    "event": "Something that happened, with its date.",
    "task_state": "Where an ongoing task stands.",
    "sop": "How a task must be done (an operator approves it first).",
    "relationship": "People and organisations the user is related to.",
    "general": "Anything else worth remembering.",
}


class Mem0View(ApiView):
    tenant_only = True


def _batch_items(request: Request, serializer: type[Any], allowed: tuple[str, ...]) -> list[dict[str, Any]]:
    """The validated items of a batch: at most `s.MAX_BATCH`, no unknown keys, no id twice."""
    data = json_object(request)
    reject_unknown(data, ("memories",), what="a batch")
    items = data.get("memories")
    if isinstance(items, list) and len(items) > s.MAX_BATCH:
        raise PayloadTooLarge(f"At most {s.MAX_BATCH} memories per batch (got {len(items)}).")
    for index, item in enumerate(items if isinstance(items, list) else []):
        try:
            reject_unknown(item, allowed, what=f"memory {index} of the batch")
        except MemoryServiceError as exc:
            exc.field_errors = {"memories": {str(index): exc.field_errors}}  # type: ignore[dict-item]
            raise
    params = valid(serializer, data)["memories"]
    ids = [item["memory_id"] for item in params]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise MemoryServiceError(
            f"A memory is named twice in the batch: {', '.join(twice[:5])}.",
            field_errors={"memories": ["Each memory_id at most once."]},
        )
    return params


class BatchApi(Mem0View):
    scopes = {"PUT": WRITE, "DELETE": ERASE}

    @extend_schema(
        operation_id="mem0_batch_update",
        summary="mem0: correct up to 1,000 memories at once",
        description="Each item is a correction (`text`, optionally new `metadata`): a new version, the old "
        "one superseded, through the same checks as one update (secrets refused, rules held for review). "
        "All or nothing: every id is checked before anything changes (an unknown or someone else's id is "
        "a 404), and one refused item leaves every memory as it was.",
        tags=TAG,
        request=Mem0BatchUpdateSerializer,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404, 413)},
        examples=ex.MEM0_BATCH_UPDATE,
    )
    def put(self, request: Request) -> Response:
        items = _batch_items(request, Mem0BatchUpdateSerializer, ("memory_id", "text", "metadata"))
        targets = [memory_for(request, memory_id=item["memory_id"]) for item in items]
        results = []
        with transaction.atomic():
            for index, (item, (actor, entry)) in enumerate(zip(items, targets, strict=True)):
                try:
                    new = memory_correct(
                        actor=actor,
                        memory_id=entry.pk,
                        content=item["text"],
                        metadata=item.get("metadata"),
                        reason="Updated through the API.",
                    )
                except MemoryServiceError as exc:
                    exc.message = f"Memory {index} ({item['memory_id']}): {exc.message}"
                    raise
                results.append({"memory_id": item["memory_id"], "id": str(new.pk), "memory": new.content})
        return Response({"message": f"Successfully updated {len(results)} memories", "results": results})

    @extend_schema(
        operation_id="mem0_batch_delete",
        summary="mem0: erase up to 1,000 memories at once",
        description="Each one erased as `DELETE /v1/memories/{id}/` erases it (with its older versions, a "
        "receipt each). Every id is checked first (404 for an unknown or someone else's); then all go in "
        "one transaction.",
        tags=TAG,
        request=Mem0BatchDeleteSerializer,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404, 413)},
        examples=ex.MEM0_BATCH_DELETE,
    )
    def delete(self, request: Request) -> Response:
        items = _batch_items(request, Mem0BatchDeleteSerializer, ("memory_id",))
        targets = [memory_for(request, memory_id=item["memory_id"]) for item in items]
        requester = requester_of(request, ErasureVia.MEM0)
        with transaction.atomic():
            for actor, entry in targets:
                if not MemoryEntry.objects.filter(pk=entry.pk).exists():
                    continue  # an older version of one erased just before, with it
                memory_erase_with_sources(user=actor, memory_id=entry.pk, requester=requester)
        return Response({"message": f"Successfully deleted {len(targets)} memories"})


# --- Exports -------------------------------------------------------------------------------------


def _export(subject: Subject, where: Mem0Filter) -> dict[str, Any]:
    """Our export of the subject (`memory_core.export`), narrowed to the memories the filter keeps."""
    data = memory_export(actor=subject.actor)
    if where.narrows:
        keep = {
            str(pk)
            for pk in memory_list(actor=subject.actor)
            .filter(namespace=subject.namespace)
            .filter(where.where)
            .values_list("pk", flat=True)
        }
        data["memories"] = [m for m in data["memories"] if m["id"] in keep]
        data["recall_log"] = [row for row in data["recall_log"] if row["memory_id"] in keep]
        data["filters"] = "applied"
    return data


def _export_subject(request: Request, body: dict[str, Any]) -> tuple[Subject, Mem0Filter, dict[str, Any]]:
    user_id, agent_id, parsed = addressed(body, body.get("filters"))
    subject = subject_for(request, user_id=user_id, agent_id=agent_id)
    if subject is None:
        raise NotFound("No memories are held for this id.")
    address = {"user_id": user_id} if user_id else {"agent_id": agent_id}
    return subject, parsed, address


class ExportCreateApi(Mem0View):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="mem0_export_create",
        summary="mem0: request an export",
        description=f'`schema` must be `"{EXPORT_SCHEMA}"`: our export (memories with provenance and '
        "history, erasure receipts, the recall log), narrowed by `filters`. A custom JSON schema to be "
        "filled by a model is not supported (400). The reply's `id` is for `POST /v1/exports/get/`; the "
        "export is built when fetched, so it shows the memories as they are then. Nothing is stored.",
        tags=TAG,
        request=Mem0ExportCreateSerializer,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404)},
        examples=ex.MEM0_EXPORT_CREATE,
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        reject_unknown(
            body, ("schema", "filters", "user_id", "agent_id", "app_id", "run_id"), what="an export"
        )
        params = valid(Mem0ExportCreateSerializer, body)
        if params["schema"] != EXPORT_SCHEMA:
            raise unsupported(
                "schema",
                f'Exports into a custom schema are not supported; pass schema="{EXPORT_SCHEMA}" '
                "for everything held, in our export format.",
            )
        _subject, _parsed, address = _export_subject(request, body)
        tenant = tenant_of(request)
        assert tenant is not None
        token = signing.dumps(
            {"t": tenant.pk, "a": address, "f": body.get("filters") or {}}, salt=_EXPORT_SALT, compress=True
        )
        return Response(
            {
                "message": "Memory export request received. The export will be ready in a few seconds.",
                "id": token,
                "status": "SUCCEEDED",
            }
        )


class ExportGetApi(Mem0View):
    scopes = {"POST": READ}

    @extend_schema(
        operation_id="mem0_export_get",
        summary="mem0: fetch an export",
        description="By the `memory_export_id` an export request returned, or directly by `filters` "
        "(with the user or agent). The tenant's own exports only: another's id is a 404.",
        tags=TAG,
        request=Mem0ExportGetSerializer,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404)},
        examples=ex.MEM0_EXPORT_GET,
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        reject_unknown(
            body, ("memory_export_id", "filters", "user_id", "agent_id", "app_id", "run_id"), what="an export"
        )
        params = valid(Mem0ExportGetSerializer, body)
        if "memory_export_id" not in params:
            subject, parsed, _address = _export_subject(request, body)
            return Response(_export(subject, parsed))
        subject, parsed, _address = _export_subject(
            request, _export_request(tenant_of(request), params["memory_export_id"])
        )
        if params.get("user_id") or params.get("agent_id") or parse_filters(params.get("filters")).entities:
            # The caller names whose export it wants: another user's or agent's is "not found".
            user_id, agent_id, _parsed = addressed(body, body.get("filters"))
            scope = reach(request, user_id=user_id, agent_id=agent_id)
            if not reaches(scope, namespace_id=subject.namespace.pk):
                raise NotFound(_EXPORT_NOT_FOUND)
        return Response(_export(subject, parsed))


def _export_request(tenant: Tenant | None, export_id: str) -> dict[str, Any]:
    try:
        saved = signing.loads(export_id, salt=_EXPORT_SALT, max_age=EXPORT_MAX_AGE)
    except signing.BadSignature:  # also an expired one
        raise NotFound(_EXPORT_NOT_FOUND) from None
    if tenant is None or saved.get("t") != tenant.pk:
        raise NotFound(_EXPORT_NOT_FOUND)
    return {**saved["a"], "filters": saved["f"]}


# --- Feedback ------------------------------------------------------------------------------------


class FeedbackApi(Mem0View):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="mem0_feedback",
        summary="mem0: feedback on a memory",
        description="Kept as a `feedback` event in the memory's history (`GET /api/v1/memories/{id}/"
        "history/`, the exports); `feedback: null` withdraws it. The reason has its "
        "secrets redacted and goes when the memory is erased. It does not change recall.",
        tags=TAG,
        request=Mem0FeedbackSerializer,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404)},
        examples=ex.MEM0_FEEDBACK,
    )
    def post(self, request: Request) -> Response:
        body = json_object(request)
        reject_unknown(body, ("memory_id", "feedback", "feedback_reason"), what="feedback")
        params = valid(Mem0FeedbackSerializer, body)
        actor, entry = memory_for(request, memory_id=params["memory_id"])
        event = memory_feedback(
            actor=actor,
            memory_id=entry.pk,
            rating=params.get("feedback"),
            reason=params.get("feedback_reason") or "",
            actor_kind=ActorKind.API,
        )
        return Response(
            {
                "id": str(event.pk),
                "memory_id": str(entry.pk),
                "feedback": event.data.get("feedback"),
                "feedback_reason": event.reason or None,
                "memory": mem0_memory(entry, entity_of(namespace_id=entry.namespace_id)),
            }
        )


# --- Project (categories) and what is not served -------------------------------------------------


class ProjectApi(Mem0View):
    scopes = {"GET": READ, "PATCH": WRITE, "DELETE": ERASE}

    def _tenant(self, request: Request, org_id: str, project_id: str) -> Tenant:
        tenant = tenant_of(request)
        if tenant is None or org_id != tenant.slug or project_id != tenant.slug:
            raise NotFound("Project not found.")
        return tenant

    @extend_schema(
        operation_id="mem0_project_get",
        summary="mem0: the project (the tenant) and its categories",
        description="The organisation and the project are both the tenant's slug (what `/v1/ping/` says). "
        "`custom_categories` lists the categories memories are filed under here (fixed, usable in "
        "filters); `fields` narrows the reply, an unknown field is a 400.",
        tags=TAG,
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT), **errors(400, 404)},
        examples=ex.MEM0_PROJECT,
    )
    def get(self, request: Request, org_id: str, project_id: str) -> Response:
        tenant = self._tenant(request, org_id, project_id)
        reject_unknown(request.query_params, ("fields", "org_id", "project_id"), what="a project")
        project = {
            "id": tenant.slug,
            "name": tenant.name,
            "custom_categories": [{name: CATEGORY_HELP.get(name, "")} for name in CATEGORIES],
            "custom_instructions": None,
        }
        fields = request.query_params.getlist("fields")
        unknown = sorted(set(fields) - set(project))
        if unknown:
            raise unsupported(
                "fields", f"Unknown project fields {', '.join(unknown)}; known: {', '.join(project)}."
            )
        return Response({k: v for k, v in project.items() if k in fields} if fields else project)

    @extend_schema(exclude=True)  # not a feature: docs/api.md lists what answers 501
    def patch(self, request: Request, org_id: str, project_id: str) -> Response:
        self._tenant(request, org_id, project_id)
        raise NotServed(
            "Project settings are not served: the categories are fixed (GET lists them) and extraction "
            "instructions are the operator's, not the API's."
        )

    @extend_schema(exclude=True)
    def delete(self, request: Request, org_id: str, project_id: str) -> Response:
        self._tenant(request, org_id, project_id)
        raise NotServed("Deleting a project is not served: an operator removes tenants.")


def not_served(slug: str, feature: str, methods: dict[str, str | None]) -> type[Mem0View]:
    """A route of mem0's that we answer with 501 naming `feature`, after the usual authentication."""

    def handler(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        raise NotServed(f"{feature} is not served by this system.")

    attrs: dict[str, Any] = {"scopes": methods, "__doc__": f"mem0: {feature} (not served, 501)."}
    for method in methods:
        attrs[method.lower()] = extend_schema(exclude=True)(handler)  # listed in docs/api.md
    return type(f"NotServed_{slug}", (Mem0View,), attrs)


SummaryApi = not_served("summary", "Memory summaries", {"POST": READ})
ProfileApi = not_served("profile", "User profiles", {"GET": READ})
ProfileJobsApi = not_served(
    "profile_jobs", "User profiles (generation and settings)", {"GET": READ, "POST": WRITE}
)
# mem0's webhook methods (`get_webhooks`, `create_webhook`, `update_webhook`, `delete_webhook`):
# ours are the native ones, with signed deliveries and different events.
WEBHOOKS_NOT_SERVED = (
    "mem0's webhook API is not served: register and manage webhooks with the native API, "
    "POST /api/v1/webhooks/ (then GET, PATCH or DELETE /api/v1/webhooks/{id}/ with its UUID); "
    "deliveries are signed, events are memory.added, memory.corrected, memory.erased … "
    "(docs/api.md, Webhooks)."
)


class _Mem0WebhooksApi(Mem0View):
    def _refuse(self, request: Request, **kwargs: Any) -> Response:
        raise NotServed(WEBHOOKS_NOT_SERVED)


class Mem0ProjectWebhooksApi(_Mem0WebhooksApi):
    """mem0: a project's webhooks (not served, 501)."""

    scopes = {"GET": READ, "POST": WRITE}
    get = post = extend_schema(exclude=True)(_Mem0WebhooksApi._refuse)


class Mem0WebhookApi(_Mem0WebhooksApi):
    """mem0: one webhook by its numeric id (not served, 501); the native ones have UUIDs."""

    scopes = {"PUT": WRITE, "DELETE": ERASE}
    put = delete = extend_schema(exclude=True)(_Mem0WebhooksApi._refuse)


OrgsApi = not_served(
    "orgs", "Organisation and project administration", {m: None for m in ("GET", "POST", "PUT", "DELETE")}
)
