"""mem0's shapes <-> ours: reading mem0's requests (entity ids, filters, messages) and building its
responses (memories, add events, history rows, entities, pages) from our entries, jobs and events.

Pure functions: the views read and write through selectors and services, then map here.
"""

from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime, time
from typing import Any

from django.utils import timezone
from rest_framework.utils.urls import replace_query_param

from api.models import EntityKind, Tenant, TenantNamespace
from api.serializers import core as s
from api.subjects import Subject
from memory_core.errors import MemoryServiceError
from memory_core.models import ExtractionJob, ExtractionStatus, MemoryEntry, MemoryEvent
from memory_core.outcomes import AddOutcome
from memory_core.recall import RecalledMemory
from memory_core.search_context import preceding_turns

# mem0's add → event statuses.
EVENT_STATUS: dict[str, str] = {
    ExtractionStatus.QUEUED: "PENDING",
    ExtractionStatus.RUNNING: "RUNNING",
    ExtractionStatus.DONE: "SUCCEEDED",
    ExtractionStatus.FAILED: "FAILED",
}
# Our reconciliation outcomes → mem0's memory events.
EVENTS = {
    "added": "ADD",
    "pending_review": "NONE",  # not in memory yet: the result says `status: pending_review`
    "superseded": "UPDATE",
    "merged": "NONE",
    "ignored": "NONE",
}
HISTORY_EVENTS = {"created": "ADD", "corrected": "UPDATE", "erased": "DELETE"}
ENTITY_KEYS = ("user_id", "agent_id", "app_id", "run_id")

Link = tuple[str, str]  # how the tenant names a namespace: (kind, external id)


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


# --- Requests ------------------------------------------------------------------------------------


def entity_from(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """mem0 sends entity ids at the top level or in `filters` (possibly inside an "AND" list)."""
    found: dict[str, Any] = {k: data.get(k) for k in ENTITY_KEYS if data.get(k) not in (None, "")}
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
            elif key in ENTITY_KEYS and value not in (None, "", "*"):
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


def filters_param(value: str) -> dict[str, Any]:
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


def add_messages(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages of an add (a validated Mem0AddSerializer) that can teach something: neither
    system prompts nor blank."""
    messages = [m for m in params["messages"] if m["role"] != "system" and m["content"].strip()]
    if not messages:
        raise MemoryServiceError("Nothing to add.", field_errors={"messages": ["No non-empty messages."]})
    return messages


def add_time(params: dict[str, Any]) -> datetime | None:
    """When the added messages were said (`timestamp`, Unix seconds), if mem0 says."""
    return datetime.fromtimestamp(params["timestamp"], tz=UTC) if "timestamp" in params else None


def stored_items(messages: list[dict[str, Any]], params: dict[str, Any]) -> list[dict[str, Any]]:
    """An add with `infer: false`: each message is a statement, stored as given (`memories_add` items)."""
    too_long = [i for i, m in enumerate(messages) if len(m["content"].strip()) > s.CONTENT_MAX_CHARS]
    if too_long:
        raise MemoryServiceError(
            f"A memory is at most {s.CONTENT_MAX_CHARS} characters.",
            field_errors={
                "messages": [f"Message {i} is longer than {s.CONTENT_MAX_CHARS}." for i in too_long]
            },
        )
    expiry = params.get("expiration_date")
    expires_at = timezone.make_aware(datetime.combine(expiry, time.max)) if expiry else None
    valid_from = add_time(params)
    # Each message is indexed with the one before it (what it answers), for search only.
    contexts = preceding_turns([m["content"] for m in messages])
    return [
        {
            "content": m["content"],
            "metadata": _with_speaker(params["metadata"], m),
            "valid_from": valid_from,
            "expires_at": expires_at,
            "context": context,
            # A turn of the client's conversation: the next add's first turn is read with it.
            "turn": True,
        }
        for m, context in zip(messages, contexts, strict=True)
    ]


def _with_speaker(metadata: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    """The add's metadata, and who said the message when it names them (the entity graph reads
    "I" and "my" as theirs); a caller's own "speaker" is kept."""
    name = str(message.get("name") or "").strip()
    if not name or "speaker" in metadata:
        return metadata
    return {**metadata, "speaker": name}


def transcript(messages: list[dict[str, Any]], *, at: datetime) -> tuple[str, list[dict[str, Any]]]:
    """An add to infer from, as our extraction's (source conversation, transcript).

    mem0 has no conversation ids: the transcript is named by its text, so a re-sent add is the same
    source (idempotent) and another add is a new one (its facts merge as new evidence)."""
    digest = hashlib.sha256(json.dumps([[m["role"], m["content"]] for m in messages]).encode()).hexdigest()
    created_at = at.isoformat()
    rows = [
        {
            "id": str(n),
            "role": "user" if m["role"] == "user" else "assistant",
            "content": m["content"],
            "created_at": created_at,
            **({"name": m["name"]} if m.get("name") else {}),
        }
        for n, m in enumerate(messages, start=1)
    ]
    return f"mem0-{digest[:32]}", rows


# --- Responses -----------------------------------------------------------------------------------


def mem0_memory(entry: MemoryEntry, link: Link | None, score: float | None = None) -> dict[str, Any]:
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
        # mem0: an add's `timestamp` "will be used instead of the current time": a memory dated
        # by its client shows that date (so a `get_all` export re-imported elsewhere keeps it).
        "created_at": iso(min(entry.created_at, entry.valid_from) if entry.valid_from else entry.created_at),
        "updated_at": iso(entry.updated_at),
        "timestamp": iso(entry.valid_from),
        # Ours, beyond mem0's shape: what the engine knows about the statement.
        "type": entry.type,
        "status": entry.status,
    }
    if score is not None:
        data["score"] = score
    return data


def link_of(subject: Subject) -> Link:
    return subject.kind, subject.external_id


def stored(outcomes: list[AddOutcome]) -> dict[str, Any]:
    """The reply to an add with `infer: false`: what became of each message, at once. A statement
    held for an operator's review or refused says so (`status`, `reason`): nothing is held or
    dropped silently, and a refused one never echoes its text."""
    # The safety fact a held rule states first is a memory of its own, listed after the rule.
    every = [each for outcome in outcomes for each in (outcome, *outcome.also)]
    results = [_outcome_result(o) for o in every if o.entry is not None or o.action in _TOLD]
    return {"message": _stored_message(outcomes), "status": "SUCCEEDED", "event_id": None, "results": results}


# Outcomes without an entry that the caller is still told about (mem0's client passes extra
# keys through: `status` and `reason` sit beside mem0's own `id`, `memory` and `event`).
_TOLD = {"rejected", "ignored"}


def _outcome_result(outcome: AddOutcome) -> dict[str, Any]:
    action = str(outcome.action)
    if outcome.entry is None:
        return {"id": None, "memory": None, "event": "NONE", "status": action, "reason": outcome.reason}
    result = {
        "id": str(outcome.entry.pk),
        "memory": outcome.entry.content,
        "event": EVENTS.get(action, "NONE"),
    }
    if action == "pending_review":
        result |= {"status": action, "reason": outcome.reason or HELD_REASON}
    elif action == "ignored" and outcome.reason:  # why nothing changed (a value the user corrected)
        result |= {"status": action, "reason": outcome.reason}
    return result


HELD_REASON = "a standing rule: an operator reviews it before any assistant uses it"


def _stored_message(outcomes: list[AddOutcome]) -> str:
    held = sum(1 for o in outcomes if o.action == "pending_review")
    refused = sum(1 for o in outcomes if o.action == "rejected")
    told = [f"{held} held for review" if held else "", f"{refused} refused" if refused else ""]
    return "; ".join(["Memories stored", *[t for t in told if t]])


def event(job: ExtractionJob, entries: dict[str, MemoryEntry] | None) -> dict[str, Any]:
    """mem0's event for an add to infer from; a finished one lists `entries`, the entries it
    touched (None when they are not to be shown), each held one with its `status`, and how many
    statements were held for review or refused."""
    status = EVENT_STATUS.get(job.status, "PENDING")
    body: dict[str, Any] = {
        "message": "Memory processing has been queued for background execution"
        if status in ("PENDING", "RUNNING")
        else "Memory processing finished"
        if status == "SUCCEEDED"
        else f"Memory processing failed: {job.error}",
        "status": status,
        "event_id": str(job.pk),
    }
    if status == "SUCCEEDED" and entries is not None:
        changed = set((job.result or {}).get("changed", []))
        body["results"] = [_entry_result(entry_id, entry, changed) for entry_id, entry in entries.items()]
        counts = job.result or {}
        body["held_for_review"] = int(counts.get("pending_review", 0))
        body["refused"] = int(counts.get("rejected", 0))
    return body


def _entry_result(entry_id: str, entry: MemoryEntry, changed: set[str]) -> dict[str, Any]:
    if entry.status == "pending_review":
        return {
            "id": entry_id,
            "memory": entry.content,
            "event": "NONE",
            "status": "pending_review",
            "reason": HELD_REASON,
        }
    return {"id": entry_id, "memory": entry.content, "event": "ADD" if entry_id in changed else "NONE"}


def event_detail(job: ExtractionJob, summary: dict[str, Any]) -> dict[str, Any]:
    """mem0's `GET /v1/event/{id}/`: the job's `event` (`summary`) with its timestamps."""
    return {
        "id": summary["event_id"],
        "event_type": "ADD",
        "status": summary["status"],
        "payload": {},
        "metadata": {},
        "results": summary.get("results", []),
        # Beside mem0's fields: how many statements waited for review or were refused.
        "held_for_review": summary.get("held_for_review", 0),
        "refused": summary.get("refused", 0),
        "error": job.error or None,
        "created_at": iso(job.created_at),
        "updated_at": iso(job.finished_at or job.created_at),
        "completed_at": iso(job.finished_at)
        if job.status in (ExtractionStatus.DONE, ExtractionStatus.FAILED)
        else None,
    }


def search_results(
    items: Iterable[RecalledMemory], link: Link, *, threshold: float | None, categories: list[str] | None
) -> dict[str, Any]:
    """Recalled items as mem0's search results, with mem0's `threshold` and `categories` filters."""
    results = [
        mem0_memory(item.entry, link, score=item.score)
        for item in items
        if (threshold is None or item.score >= threshold)
        and (not categories or item.entry.category in categories)
    ]
    return {"results": results}


def mem0_page(
    url: str, rows: list[MemoryEntry], link: Link, *, count: int, number: int, size: int
) -> dict[str, Any]:
    """mem0's `?page=&page_size=` page of memories; links keep the rest of the URL."""
    return {
        "count": count,
        "next": replace_query_param(url, "page", number + 1) if number * size < count else None,
        "previous": replace_query_param(url, "page", number - 1) if number > 1 else None,
        "results": [mem0_memory(entry, link) for entry in rows],
    }


def history_rows(
    versions: list[MemoryEntry], events: list[MemoryEvent], link: Link | None
) -> list[dict[str, Any]]:
    """mem0's history of a memory from our events of all its versions (oldest first)."""
    contents = {str(v.pk): v.content for v in versions}
    # A correction writes "created" and "corrected" on the new version and "corrected" on the
    # old one; a keyed update writes "created" on the new and "superseded" on the old. One row each.
    corrected = {e.entry_ref for e in events if e.action == "corrected" and "corrects" in e.data}
    supersedes = {str(v.pk): str(v.supersedes_id) for v in versions if v.supersedes_id}
    rows: list[dict[str, Any]] = []
    for change in events:
        data = change.data or {}
        ref = str(change.entry_ref)
        if change.action in ("superseded", "feedback") or (
            change.action == "corrected" and "corrects" not in data
        ):
            continue  # feedback is not a change of the memory (our own history lists it)
        if change.action == "created" and change.entry_ref in corrected:
            continue
        old = contents.get(data["corrects"]) if change.action == "corrected" else None
        name = HISTORY_EVENTS.get(change.action, change.action.upper())
        if change.action == "created" and ref in supersedes:
            old, name = contents.get(supersedes[ref]), "UPDATE"
        rows.append(
            {
                "id": str(change.pk),
                "memory_id": ref,
                "old_memory": old,
                "new_memory": data.get("content"),
                "event": name,
                "input": [],
                "user_id": link[1] if link and link[0] == EntityKind.USER else None,
                "agent_id": link[1] if link and link[0] == EntityKind.AGENT else None,
                "metadata": None,
                "created_at": iso(change.created_at),
                "updated_at": iso(change.created_at),
            }
        )
    return rows


def entities(tenant: Tenant, links: list[TenantNamespace], counts: dict[int, int]) -> dict[str, Any]:
    """mem0's list of entities: the tenant's users and agents with their memory counts."""
    results: list[dict[str, Any]] = [
        {
            "id": link.external_id,
            "name": link.external_id,
            "type": link.kind,
            "total_memories": counts.get(link.namespace_id, 0),
            "owner": tenant.slug,
            "organization": tenant.slug,
            "metadata": {},
            "created_at": iso(link.created_at),
            "updated_at": iso(link.created_at),
        }
        for link in links
    ]
    return {"count": len(results), "next": None, "previous": None, "results": results}
