"""Export: everything the memory system holds about a user, as JSON-serialisable data."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.utils import timezone

from memory_core.actors import Actor
from memory_core.entities.selectors import entities_export
from memory_core.models import ErasureReceipt, MemoryEntry, MemoryEvent, Namespace, RecallLog
from memory_core.selectors import erasure_receipts


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _event_dict(event: MemoryEvent) -> dict[str, Any]:
    return {
        "memory_id": str(event.entry_ref),
        "action": event.action,
        "actor_kind": event.actor_kind,
        "actor": event.actor.get_username() if event.actor is not None else None,
        "reason": event.reason,
        "data": event.data,
        "at": _iso(event.created_at),
    }


def _entry_dict(e: MemoryEntry, history: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": str(e.pk),
        "namespace": e.namespace.path,
        "type": e.type,
        "category": e.category,
        "key": e.key,
        "content": e.content,
        "status": e.status,
        "confidence": e.confidence,
        "importance": e.importance,
        "pinned": e.pinned,
        "is_inference": e.is_inference,
        "evidence_count": e.evidence_count,
        "valid_from": _iso(e.valid_from),
        "valid_to": _iso(e.valid_to),
        "recorded_at": _iso(e.recorded_at),
        "expired_at": _iso(e.expired_at),
        "expires_at": _iso(e.expires_at),
        "access_count": e.access_count,
        "last_accessed_at": _iso(e.last_accessed_at),
        "supersedes": str(e.supersedes_id) if e.supersedes_id else None,
        "superseded_by": str(e.superseded_by_id) if e.superseded_by_id else None,
        "metadata": e.metadata,
        "provenance": {
            "source_kind": e.source_kind,
            "source_conversation": e.source_conversation,
            "source_message_ids": e.source_message_ids,
            # The turn the entry was indexed with for search (memory_core.search_context).
            "search_context": e.search_context,
            "extractor_model": e.extractor_model,
            "extractor_prompt_version": e.extractor_prompt_version,
            "embedding_model": e.embedding_model,
            "evidence": [
                {
                    "source_kind": ev.source_kind,
                    "source_conversation": ev.source_conversation,
                    "source_message_ids": ev.source_message_ids,
                    "excerpt": ev.excerpt,
                    "confidence": ev.confidence,
                    "at": _iso(ev.created_at),
                }
                for ev in e.evidence.all()
            ],
        },
        "history": history,
    }


def memory_export(*, actor: Actor) -> dict[str, Any]:
    """Everything the memory system holds about the actor, as JSON-serialisable data.

    Embeddings are left out: they are derived from the content and meaningless outside this system.
    """
    namespaces = list(Namespace.objects.owned_by(actor).order_by("path"))
    namespace_ids = [ns.pk for ns in namespaces]
    entries = (
        MemoryEntry.objects.filter(namespace_id__in=namespace_ids)
        .select_related("namespace")
        .prefetch_related("evidence")
        .defer("embedding", "search_vector")
        .order_by("recorded_at", "id")
    )
    events = list(
        MemoryEvent.objects.filter(namespace_id__in=namespace_ids)
        .select_related("actor")
        .order_by("created_at", "id")
    )
    history: dict[uuid.UUID, list[dict[str, Any]]] = {}
    for event in events:
        history.setdefault(event.entry_ref, []).append(_event_dict(event))
    memories = [_entry_dict(e, history.pop(e.pk, [])) for e in entries]
    recall_log = RecallLog.objects.filter(namespace_id__in=namespace_ids).order_by("created_at", "rank")
    return {
        "format": "memory-export-v1",
        "exported_at": _iso(timezone.now()),
        "user": actor.get_username() if actor else "",
        "namespaces": [
            {"path": ns.path, "memory_paused": ns.memory_paused, "created_at": _iso(ns.created_at)}
            for ns in namespaces
        ],
        "memories": memories,
        # Events of entries that no longer exist (erased): tombstones, without content.
        "erased_history": [item for items in history.values() for item in items],
        "recall_log": [
            {
                "memory_id": str(log.entry_id),
                "turn_ref": log.turn_ref,
                "rank": log.rank,
                "score": log.score,
                "at": _iso(log.created_at),
            }
            for log in recall_log
        ],
        "erasures": [receipt_dict(r) for r in erasure_receipts(actor=actor)],
        # People, places and organisations, and the relations between them (docs/entities.md).
        **entities_export(namespace_ids=namespace_ids),
    }


def receipt_dict(receipt: ErasureReceipt) -> dict[str, Any]:
    """A receipt as the user, the API and the export show it: counts and times, never content."""
    return {
        "id": receipt.pk,
        "scope": receipt.scope,
        "via": receipt.via,
        "requested_by": receipt.requested_by.get_username() if receipt.requested_by else None,
        "api_key": receipt.api_key_prefix or None,
        "at": _iso(receipt.created_at),
        "counts": {
            "entries": receipt.entries,
            "evidence": receipt.evidence,
            "history": receipt.history,
            "recalls": receipt.recalls,
            "flags": receipt.flags,
            "jobs": receipt.jobs,
            "conversations": receipt.conversations,
            "messages": receipt.messages,
        },
        "vacuumed_at": _iso(receipt.vacuumed_at),
        "rewritten_at": _iso(receipt.rewritten_at),
    }
