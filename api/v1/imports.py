"""Imports: bring memories from elsewhere (a mem0 export, a saved-memories list, a timestamped
transcript), with a dry run first if wanted; large imports run as a job whose progress is polled."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict
from typing import Any

from django.db import transaction
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from api.auth import tenant_of
from api.base import READ, WRITE, ApiView, address_of, json_object, valid
from api.schema import errors
from api.selectors import reach
from api.serializers import core as s
from api.services import subject_ensure
from memory_core.choices import ActorKind, ImportFormat
from memory_core.imports import (
    import_create,
    import_job_for,
    import_preview,
    import_results,
    import_retry,
    import_start,
)
from memory_core.models import ImportJob


class ImportInSerializer(s.AddressSerializer):
    format = serializers.ChoiceField(
        choices=ImportFormat.choices,
        help_text="mem0: a mem0 export or get_all result; text: a saved-memories list, one a line; "
        "transcript: messages with role, content and created_at.",
    )
    # Declared fields are popped from the class, so `Serializer.data` still works.
    data = serializers.JSONField(  # type: ignore[assignment]
        help_text="The file's content: JSON (or its text) for mem0 and transcript, text for text."
    )
    dry_run = serializers.BooleanField(
        default=False, help_text="Show what would be added, merged, superseded or refused; write nothing."
    )


class ImportRowSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="Position in the import (a transcript: the statement's).")
    action = serializers.CharField(
        help_text="added, merged, superseded, pending_review, ignored or rejected."
    )
    reason = serializers.CharField()
    valid_from = serializers.CharField(allow_null=True, help_text="When the statement holds from.")
    entry = serializers.CharField(allow_null=True, help_text="The entry written or merged into.")
    replaces = serializers.CharField(allow_null=True, help_text="The entry it superseded.")
    content = serializers.CharField(help_text="The statement (for a job: the entry's current text).")


class PreviewRowSerializer(ImportRowSerializer):
    existing = serializers.CharField(help_text="The memory it would merge into or replace.")


class SkippedLineSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="Its line in the pasted text (1-based).")
    text = serializers.CharField(help_text="The line (secrets redacted, at most 200 characters).")
    reason = serializers.CharField(help_text="title, closing line or separator.")


class PreviewOutSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    total = serializers.IntegerField(help_text="Statements in the input (a transcript: messages).")
    previewed = serializers.IntegerField(help_text="How many of them the dry run covers.")
    bounded = serializers.BooleanField(
        help_text="True when only the first `previewed` were tried: a dry run answers at once, so a "
        "large input is previewed in part; the import itself takes all of it."
    )
    counts = serializers.DictField(child=serializers.IntegerField())
    results = PreviewRowSerializer(many=True)
    skipped = SkippedLineSerializer(
        many=True,
        help_text="Lines of a pasted list (`text`) that are not memories and are left out: a title "
        "above the list, the assistant's closing lines below it, separators ([] for other formats).",
    )


class ImportJobOutSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    format = serializers.CharField()
    status = serializers.CharField(help_text="queued, running, done or failed.")
    total = serializers.IntegerField(help_text="Statements to write (a transcript: once extracted).")
    done = serializers.IntegerField()
    unread = serializers.IntegerField(
        help_text="Statements (a transcript: messages) of the input its job has not yet read and checked "
        "for secrets. A large import is read by its job, not during the request: it is answered at once "
        "with `unread` at the input's size, which falls to 0 before the writing starts."
    )
    counts = serializers.DictField(child=serializers.IntegerField())
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    results = ImportRowSerializer(many=True)


def _job_out(job: ImportJob) -> dict[str, Any]:
    names = (
        "id",
        "format",
        "status",
        "total",
        "done",
        "unread",
        "counts",
        "error",
        "created_at",
        "finished_at",
    )
    data: dict[str, Any] = {name: getattr(job, name) for name in names}
    data["results"] = [asdict(row) for row in import_results(job)]
    return dict(ImportJobOutSerializer(data).data)


_JOB_EXAMPLE = {
    "id": "5b0c2f4e-2f0e-4d55-9d1e-0f3f6f0b9a11",
    "format": "mem0",
    "status": "running",
    "total": 1200,
    "done": 350,
    "unread": 0,
    "counts": {"added": 331, "merged": 12, "superseded": 5, "rejected": 2},
    "error": "",
    "created_at": "2026-07-03T12:00:00Z",
    "finished_at": None,
    "results": [
        {
            "line": 1,
            "action": "added",
            "reason": "new",
            "valid_from": "2024-07-20T08:30:12+00:00",
            "entry": "8d4f2b4e-5a55-4b7e-9a53-3c1a1a0c6f27",
            "replaces": None,
            "content": "Is vegetarian",
        }
    ],
}


class ImportsApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="imports_create",
        summary="Import memories (or preview an import)",
        description="Every statement goes through the same write pipeline as `POST /api/v1/memories/`: "
        "secrets are refused, rules wait for an operator, duplicates merge, a newer value supersedes, "
        "what the user took back stays out. Dates are kept: a mem0 memory's `created_at`, a line's "
        "leading date, a transcript message's `created_at` become `valid_from`.\n\n"
        "`dry_run: true` answers 200 with what would happen to each statement, writing nothing; "
        "only the first `IMPORT_PREVIEW_MAX` statements (or transcript messages) of a larger input "
        "are tried, and the answer says so (`bounded`, `previewed` of `total`). "
        "Otherwise up to `IMPORT_JOB_THRESHOLD` statements (or transcript messages) are written at "
        "once (201); a larger import is queued (202) at once, its input read and checked for secrets by "
        "the job (`unread` counts what is left to read): poll `GET /api/v1/imports/{id}/` for its progress.",
        tags=["imports"],
        request=ImportInSerializer,
        responses={
            200: OpenApiResponse(PreviewOutSerializer, description="The dry run."),
            201: OpenApiResponse(ImportJobOutSerializer, description="Imported."),
            202: OpenApiResponse(ImportJobOutSerializer, description="Queued as a job."),
            **errors(400, 409, 413),
        },
        examples=[
            OpenApiExample(
                "A saved-memories list",
                value={"format": "text", "data": "- Is vegetarian\n- Lives in Lisbon", "dry_run": True},
                request_only=True,
            ),
            OpenApiExample(
                "A pasted list with its title and closing line",
                value={
                    "format": "text",
                    "data": "Saved memories\n- Is vegetarian\n- Lives in Lisbon\n---\n"
                    "Let me know if you'd like me to update or forget anything.",
                    "dry_run": True,
                },
                request_only=True,
            ),
            OpenApiExample(
                "Its dry run",
                value={
                    "dry_run": True,
                    "total": 2,
                    "previewed": 2,
                    "bounded": False,
                    "counts": {"added": 2},
                    "results": [
                        {
                            "line": 1,
                            "action": "added",
                            "reason": "new",
                            "valid_from": None,
                            "entry": None,
                            "replaces": None,
                            "content": "Is vegetarian",
                            "existing": "",
                        },
                        {
                            "line": 2,
                            "action": "added",
                            "reason": "new",
                            "valid_from": None,
                            "entry": None,
                            "replaces": None,
                            "content": "Lives in Lisbon",
                            "existing": "",
                        },
                    ],
                    "skipped": [
                        {"line": 1, "text": "Saved memories", "reason": "title"},
                        {"line": 4, "text": "---", "reason": "separator"},
                        {
                            "line": 5,
                            "text": "Let me know if you'd like me to update or forget anything.",
                            "reason": "closing line",
                        },
                    ],
                },
                response_only=True,
                status_codes=["200"],
            ),
            OpenApiExample(
                "A transcript",
                value={
                    "format": "transcript",
                    "user_id": "u1",
                    "data": [
                        {"role": "user", "content": "I moved to Porto.", "created_at": "2025-03-02T10:00:00Z"}
                    ],
                },
                request_only=True,
            ),
            OpenApiExample(
                "Queued",
                value={**_JOB_EXAMPLE, "status": "queued", "done": 0, "unread": 1200},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        params = valid(ImportInSerializer, json_object(request))
        tenant = tenant_of(request)
        actor_kind = ActorKind.API if tenant is not None else ActorKind.USER
        user_id, agent_id = params.get("user_id"), params.get("agent_id")
        if params["dry_run"]:
            # Even a tenant's first sight of a user (its namespace) is rolled back with the rest.
            with transaction.atomic():
                subject = subject_ensure(
                    tenant=tenant, person=request.user, user_id=user_id, agent_id=agent_id
                )
                preview = import_preview(
                    namespace=subject.namespace,
                    format=params["format"],
                    data=params["data"],
                    actor_kind=actor_kind,
                )
                transaction.set_rollback(True)
            body = {
                "dry_run": True,
                "total": preview.total,
                "previewed": preview.previewed,
                "bounded": preview.bounded,
                "counts": dict(Counter(row.action for row in preview.rows)),
                "results": [asdict(row) for row in preview.rows],
                "skipped": [line.as_json() for line in preview.skipped],
            }
            return Response(PreviewOutSerializer(body).data)
        with transaction.atomic():  # input refused: not even the namespace is created
            subject = subject_ensure(tenant=tenant, person=request.user, user_id=user_id, agent_id=agent_id)
            job = import_create(
                namespace=subject.namespace,
                format=params["format"],
                data=params["data"],
                actor_kind=actor_kind,
            )
        job = import_start(job=job)  # a small one now, one committed chunk at a time
        finished = job.finished_at is not None
        return Response(
            _job_out(job), status=status.HTTP_201_CREATED if finished else status.HTTP_202_ACCEPTED
        )


class ImportApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="imports_retrieve",
        summary="Progress and results of an import",
        description="`done` of `total` statements written, the counts per outcome so far, and a row per "
        "statement. An import keeps no text of its own: `content` is the entry's current text ('' once "
        "it is erased, or for a refused statement).",
        tags=["imports"],
        parameters=[s.AddressSerializer],
        responses={200: ImportJobOutSerializer, **errors(400, 404)},
        examples=[OpenApiExample("Running", value=_JOB_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, import_id: str) -> Response:
        scope = reach(request, **address_of(request))
        return Response(_job_out(import_job_for(namespace_ids=scope, job_id=import_id)))


class ImportRetryApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="imports_retry",
        summary="Go on with a failed import",
        description="A failed import (its `error` says why) is queued again and goes on where it "
        "stopped; what it already wrote stays and is not written twice. 409 unless it is failed.",
        tags=["imports"],
        request=None,
        parameters=[s.AddressSerializer],
        responses={202: ImportJobOutSerializer, **errors(400, 404, 409)},
        examples=[
            OpenApiExample(
                "Queued again",
                value={**_JOB_EXAMPLE, "status": "queued", "error": "Retried after 350 of 1200."},
                response_only=True,
                status_codes=["202"],
            )
        ],
    )
    def post(self, request: Request, import_id: str) -> Response:
        scope = reach(request, **address_of(request))
        job = import_retry(job=import_job_for(namespace_ids=scope, job_id=import_id))
        return Response(_job_out(job), status=status.HTTP_202_ACCEPTED)
