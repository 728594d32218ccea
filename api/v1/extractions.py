"""Extraction for callers that run their own model: queue a transcript, poll the job."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from api.base import READ, WRITE, ApiView, address_of, job_out, json_object, valid
from api.errors import PayloadTooLarge
from api.operations.extractions import extraction_queue_for
from api.schema import errors
from api.selectors import extraction_job_for
from api.serializers import core as s
from api.v1.examples import core as ex
from memory_core.extraction import MAX_MESSAGES
from memory_core.extraction.jobs import extraction_retry


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
        examples=ex.EXTRACTIONS_CREATE,
    )
    def post(self, request: Request) -> Response:
        data = json_object(request)
        if isinstance(data.get("messages"), list) and len(data["messages"]) > MAX_MESSAGES:
            raise PayloadTooLarge(
                f"At most {MAX_MESSAGES} messages per extraction (got {len(data['messages'])})."
            )
        body = extraction_queue_for(request, valid(s.ExtractionInSerializer, data))
        return Response(body, status=status.HTTP_200_OK if body["id"] is None else status.HTTP_202_ACCEPTED)


class ExtractionApi(ApiView):
    scopes = {"GET": READ}

    @extend_schema(
        operation_id="extractions_retrieve",
        summary="Status and result of an extraction",
        tags=["extraction"],
        parameters=[s.AddressSerializer],
        responses={200: s.JobOutSerializer, **errors(400, 404)},
        examples=ex.EXTRACTIONS_RETRIEVE,
    )
    def get(self, request: Request, job_id: str) -> Response:
        return Response(job_out(extraction_job_for(request, job_id=job_id, **address_of(request))))


class ExtractionRetryApi(ApiView):
    scopes = {"POST": WRITE}

    @extend_schema(
        operation_id="extractions_retry",
        summary="Run a failed extraction again",
        description="A failed extraction (its `error` says why: the model failed, or every attempt "
        "died or ran past the task timeout) is queued again with its attempts counted afresh. 409 "
        "unless it is failed.",
        tags=["extraction"],
        request=None,
        parameters=[s.AddressSerializer],
        responses={202: s.JobOutSerializer, **errors(400, 404, 409)},
        examples=ex.EXTRACTIONS_RETRY,
    )
    def post(self, request: Request, job_id: str) -> Response:
        job = extraction_retry(job=extraction_job_for(request, job_id=job_id, **address_of(request)))
        return Response(job_out(job), status=status.HTTP_202_ACCEPTED)
