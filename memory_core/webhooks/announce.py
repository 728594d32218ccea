"""What each change of the engine announces: the one mapping from a service's result to a webhook
event, called by that service inside its transaction (`dispatch.webhook_emit` defers the sending
to the commit). An erasure announces ids and counts only, and first empties every queued or
logged payload that quoted the erased memories."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.db.models import Exists

from memory_core import judgement
from memory_core.choices import AddAction, ExtractionStatus, MemoryStatus, WebhookEventType
from memory_core.outcomes import AddOutcome
from memory_core.webhooks.dispatch import payloads_erase, webhook_emit
from memory_core.webhooks.events import erased_data, job_data, memory_data
from memory_core.webhooks.models import WebhookEndpoint

if TYPE_CHECKING:
    from memory_core.models import ExtractionJob, MemoryEntry

_OUTCOME_EVENTS = {
    AddAction.ADDED: WebhookEventType.MEMORY_ADDED,
    AddAction.MERGED: WebhookEventType.MEMORY_MERGED,
    AddAction.SUPERSEDED: WebhookEventType.MEMORY_SUPERSEDED,
    AddAction.PENDING_REVIEW: WebhookEventType.MEMORY_PENDING_REVIEW,
}


def _memory(type: str, entry: MemoryEntry, **extra: Any) -> int:
    return webhook_emit(
        type=type,
        namespace_id=entry.namespace_id,
        data={"memory": memory_data(entry), **extra},
        entry_ids=[entry.pk],
    )


def announce_outcome(outcome: AddOutcome) -> None:
    """The write pipeline's outcome: added, merged, superseded (`memory` is the new value,
    `replaced` the old one's id and closed window) or pending review. Ignored and refused
    statements change nothing, and announce nothing."""
    event = _OUTCOME_EVENTS.get(outcome.action)
    if event is None or outcome.entry is None:
        return
    extra: dict[str, Any] = {"reason": outcome.reason}
    if outcome.replaced is not None:
        old = outcome.replaced
        extra["replaced"] = {
            "id": str(old.pk),
            "status": old.status,
            "valid_to": old.valid_to.isoformat() if old.valid_to else None,
        }
    if event == WebhookEventType.MEMORY_PENDING_REVIEW:
        extra["flagged"] = outcome.flagged
    _memory(event, outcome.entry, **extra)


def outcome_listeners() -> Exists:
    """Whether an enabled endpoint subscribes to any event of the write pipeline: an expression the
    pipeline reads in its namespace lock's query, so that a write nobody listens to costs no query
    for its announcement (always current, unlike a cache another worker could not invalidate)."""
    events = sorted(set(_OUTCOME_EVENTS.values()))
    return Exists(WebhookEndpoint.objects.filter(enabled=True, events__overlap=events))


def announce_outcomes(outcomes: Iterable[AddOutcome], *, listening: bool | None = None) -> None:
    """`announce_outcome` for the statements of one write: nothing when `listening` (read with
    `outcome_listeners`) is False, otherwise one query in all when nobody listens to their events
    (rather than one per statement)."""
    if listening is False:
        return
    news = [o for o in outcomes if o.entry is not None and o.action in _OUTCOME_EVENTS]
    types = sorted({_OUTCOME_EVENTS[o.action] for o in news})
    if not types or not WebhookEndpoint.objects.filter(enabled=True, events__overlap=types).exists():
        return
    for outcome in news:
        announce_outcome(outcome)


def announce_corrected(*, new: MemoryEntry, old: MemoryEntry) -> None:
    """A correction: the new version, the id of the one it replaced; a correction that reads as a
    rule also waits for review, and says so to moderators."""
    _memory(WebhookEventType.MEMORY_CORRECTED, new, corrects=str(old.pk))
    if new.status == MemoryStatus.PENDING_REVIEW:
        _memory(
            WebhookEventType.MEMORY_PENDING_REVIEW,
            new,
            reason="a correction that reads as a rule",
            flagged=False,
        )


def announce_approved(*, approved: MemoryEntry, proposal: MemoryEntry | None = None) -> None:
    proposal_id = str(proposal.pk) if proposal is not None and proposal.pk != approved.pk else None
    _memory(WebhookEventType.MEMORY_APPROVED, approved, proposal_id=proposal_id)


def announce_rejected(*, entry: MemoryEntry, reason: str) -> None:
    # The operator's own words: redacted like every derived text, in case they quote a secret.
    _memory(WebhookEventType.MEMORY_REJECTED, entry, reason=judgement.secrets(reason).redacted)


def announce_erased(
    *, entries: list[MemoryEntry], scope: str, namespace_ids: list[int] | None = None
) -> None:
    """Ids and counts, per namespace; queued and logged payloads quoting them are emptied first
    (every payload of `namespace_ids` when whole namespaces were erased)."""
    by_namespace: dict[int, list[str]] = defaultdict(list)
    for entry in entries:
        by_namespace[entry.namespace_id].append(str(entry.pk))
    if namespace_ids:
        payloads_erase(namespace_ids=namespace_ids)
    elif by_namespace:
        payloads_erase(namespace_ids=list(by_namespace), entry_ids=[e.pk for e in entries])
    for namespace_id, ids in by_namespace.items():
        webhook_emit(
            type=WebhookEventType.MEMORY_ERASED,
            namespace_id=namespace_id,
            data=erased_data(memory_ids=ids, scope=scope),
        )


def announce_job(job: ExtractionJob, *, will_retry: bool = False) -> None:
    """An extraction job that finished or failed (`will_retry`: the task runs it again)."""
    if job.status == ExtractionStatus.DONE:
        webhook_emit(
            type=WebhookEventType.EXTRACTION_FINISHED,
            namespace_id=job.namespace_id,
            data={"job": job_data(job)},
        )
    elif job.status == ExtractionStatus.FAILED:
        webhook_emit(
            type=WebhookEventType.EXTRACTION_FAILED,
            namespace_id=job.namespace_id,
            data={"job": job_data(job), "will_retry": will_retry},
        )
