"""The webhook events' payloads (the event types are in `memory_core.choices`).

Every payload is `{"id", "type", "created_at", "data"}`; `data` holds the memory as the API shows
it (its statement already passed the write pipeline's guards: secrets were refused or redacted)
or, for erasures and extraction jobs, ids and counts only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_core.models import ExtractionJob, MemoryEntry


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
