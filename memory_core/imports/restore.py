"""Our own export brought back (`parsers.parse_export`): after the write pipeline stored an
exported statement as new, it gets back what it had — the end of its window, its status, and the
link to the version it replaced — so that the import answers "what held then" as the export did."""

from __future__ import annotations

from django.utils import timezone

from memory_core.choices import EventAction, MemoryStatus
from memory_core.extraction.schema import parse_when
from memory_core.imports.parsers import EXPORT_SOURCE, ImportItem
from memory_core.models import MemoryEntry, Namespace
from memory_core.services import event_record, supersede

# The status an exported statement had, and the history event that says it came back so.
_EVENTS: dict[str, str] = {
    MemoryStatus.SUPERSEDED: EventAction.SUPERSEDED,
    MemoryStatus.ARCHIVED: EventAction.ARCHIVED,
    MemoryStatus.EXPIRED: EventAction.EXPIRED,
    MemoryStatus.HIDDEN: EventAction.HIDDEN,
}
REASON = "as it was in the imported export"


def imported_before(*, namespace: Namespace, export_id: str) -> MemoryEntry | None:
    """The statement an earlier import of the same export made of this one (any status: a
    superseded version is not a candidate the pipeline would recognise)."""
    return MemoryEntry.objects.filter(
        namespace=namespace, source_conversation=EXPORT_SOURCE, source_message_ids__contains=[export_id]
    ).first()


def export_state_restore(
    *, namespace: Namespace, item: ImportItem, entry: MemoryEntry, actor_kind: str
) -> None:
    """`entry`, just written for `item`: its status and window as exported, and the version it
    replaced (imported before it, found by its export id) linked and closed as superseded."""
    if item.supersedes:
        old = (
            MemoryEntry.objects.filter(
                namespace=namespace,
                source_conversation=EXPORT_SOURCE,
                source_message_ids__contains=[item.supersedes],
            )
            .exclude(pk=entry.pk)
            .first()
        )
        if old is not None and old.superseded_by_id is None:
            at = old.valid_to or entry.valid_from
            supersede(old, by=entry, at=at, actor_kind=actor_kind, actor=namespace.owner, reason=REASON)
    end = parse_when(item.valid_to)
    action = _EVENTS.get(item.status)
    if action is None and end is None:
        return
    fields = ["updated_at"]
    if end is not None and entry.valid_to != end:
        entry.valid_to = max(end, entry.valid_from)
        fields.append("valid_to")
    if action is not None and entry.status != item.status:
        entry.status, entry.expired_at = item.status, entry.expired_at or timezone.now()
        fields += ["status", "expired_at"]
        event_record(entry=entry, action=action, actor_kind=actor_kind, actor=namespace.owner, reason=REASON)
    entry.save(update_fields=fields)
