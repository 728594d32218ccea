"""Queueing a transcript for extraction, for the API and MCP alike."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from api.auth import Caller, tenant_of
from api.base import job_out
from api.services import subject_ensure
from memory_core.extraction.jobs import extraction_enqueue


def extraction_queue_for(request: Request | Caller, params: dict[str, Any]) -> dict[str, Any]:
    """Queue a validated transcript (`ExtractionInSerializer`) for the addressed subject; the job,
    or a `skipped` one when the user paused memory. The API and MCP alike."""
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
        return {
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
    job.refresh_from_db()
    return job_out(job) or {}
