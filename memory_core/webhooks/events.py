"""The webhook event types and their payloads.

Every payload is `{"id", "type", "created_at", "data"}`; `data` holds the memory as the API shows
it (its statement already passed the write pipeline's guards: secrets were refused or redacted)
or, for erasures and extraction jobs, ids and counts only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import models

if TYPE_CHECKING:
    from memory_core.models import ExtractionJob, MemoryEntry


class WebhookEventType(models.TextChoices):
    MEMORY_ADDED = "memory.added", "A memory was added"
    MEMORY_MERGED = "memory.merged", "The same statement was observed again"
    MEMORY_SUPERSEDED = "memory.superseded", "A newer value replaced a memory"
    MEMORY_CORRECTED = "memory.corrected", "The user corrected a memory"
    MEMORY_ERASED = "memory.erased", "Memories were erased (ids and counts only)"
    MEMORY_PENDING_REVIEW = "memory.pending_review", "A procedure awaits an operator's review"
    MEMORY_APPROVED = "memory.approved", "An operator approved a procedure"
    MEMORY_REJECTED = "memory.rejected", "An operator rejected a procedure"
    EXTRACTION_FINISHED = "extraction.finished", "An extraction job finished"
    EXTRACTION_FAILED = "extraction.failed", "An extraction job failed"
    ENDPOINT_DISABLED = "webhook.disabled", "An endpoint was disabled after repeated failures"
    PING = "webhook.ping", "A test ping (sent on request only)"

    @classmethod
    def subscribable(cls) -> list[str]:
        """What an endpoint may subscribe to: everything but the ping, which goes where it is asked."""
        return [value for value in cls.values if value != cls.PING]

    @classmethod
    def content_free(cls) -> frozenset[str]:
        """Types whose payload never holds a statement (nothing to empty on erasure)."""
        return frozenset(
            {
                cls.MEMORY_ERASED,
                cls.EXTRACTION_FINISHED,
                cls.EXTRACTION_FAILED,
                cls.ENDPOINT_DISABLED,
                cls.PING,
            }
        )


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


# At most this many ids in one erasure event; `memory_count` always has the total.
ERASED_IDS_MAX = 1000


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def memory_data(entry: MemoryEntry) -> dict[str, Any]:
    """A memory in a payload, as the REST API shows it."""
    return {
        "id": str(entry.pk),
        "content": entry.content,
        "type": entry.type,
        "category": entry.category,
        "key": entry.key,
        "status": entry.status,
        "source_kind": entry.source_kind,
        "source_conversation": entry.source_conversation,
        "confidence": entry.confidence,
        "importance": entry.importance,
        "pinned": entry.pinned,
        "evidence_count": entry.evidence_count,
        "valid_from": _iso(entry.valid_from),
        "valid_to": _iso(entry.valid_to),
        "recorded_at": _iso(entry.recorded_at),
        "metadata": entry.metadata,
    }


def erased_data(*, memory_ids: list[str], scope: str) -> dict[str, Any]:
    """No statement, no key, no category: which ids went, and how many."""
    return {
        "memory_ids": memory_ids[:ERASED_IDS_MAX],
        "memory_ids_truncated": len(memory_ids) > ERASED_IDS_MAX,
        "memory_count": len(memory_ids),
        "scope": scope,
    }


def job_data(job: ExtractionJob) -> dict[str, Any]:
    """An extraction job by its counts and the ids it touched (its transcript is never sent)."""
    result = dict(job.result or {})
    counts = {k: v for k, v in result.items() if isinstance(v, int)}
    return {
        "id": job.pk,
        "conversation_id": job.source_conversation,
        "status": job.status,
        "trigger": job.trigger,
        "attempts": job.attempts,
        "extractor": job.extractor,
        "counts": counts,
        "memory_ids": [str(i) for i in result.get("changed", [])],
        "skipped": result.get("skipped", ""),
        "error": job.error,
        "finished_at": _iso(job.finished_at),
    }
