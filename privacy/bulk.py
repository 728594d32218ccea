"""Select-many on /me/: hide, use again, erase, each with Undo instead of a confirmation page.

Hiding and using again are reversible as they are. Erasing is not, so it waits: the memories are
hidden at once (never recalled again, tombstoned), listed nowhere, and erased for good once the
Undo window (`UNDO_SECONDS`) is over, by `pending_erasures_run`: on the user's next page of the
list, and every minute by the `privacy-pending-erasures` schedule. Undo within the window puts
back what was in use. Every change goes through memory_core's services (and chat's erasure).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from chat.erasure import memory_erase_with_sources
from memory_core.errors import MemoryServiceError, NotFound
from memory_core.lifecycle import memory_hide, memory_unhide
from memory_core.models import MemoryStatus
from memory_core.selectors import memory_entries_by_ids, parse_uuid
from privacy.models import PendingErasure

UNDO_SECONDS = 30
MAX_SELECTED = 200
ACTIONS = ("hide", "unhide", "erase")


@dataclass
class BulkResult:
    action: str
    done: list[str] = field(default_factory=list)
    skipped: int = 0
    pending: PendingErasure | None = None


def _own(user: Any, ids: list[Any]) -> dict[str, Any]:
    """The user's own entries among `ids` (shared procedures are read-only, others unknown)."""
    pks = [pk for pk in (parse_uuid(value) for value in ids[:MAX_SELECTED]) if pk is not None]
    return {
        k: e for k, e in memory_entries_by_ids(actor=user, ids=pks).items() if e.namespace.owner_id == user.pk
    }


def bulk_apply(*, user: Any, action: str, ids: list[Any]) -> BulkResult:
    """Apply `action` to the selected memories of the user's own; the rest are counted as skipped."""
    if action not in ACTIONS:
        raise MemoryServiceError("Choose hide, use again or erase.")
    entries = _own(user, ids)
    result = BulkResult(action=action, skipped=len(ids) - len(entries))
    if action == "erase":
        result.pending = _erase_later(user, entries)
        result.done = [str(pk) for pk in result.pending.entry_ids] if result.pending else []
        return result
    service = memory_hide if action == "hide" else memory_unhide
    for key in entries:
        try:
            service(actor=user, memory_id=key)
        except MemoryServiceError:  # e.g. hiding a superseded version: left as it is
            result.skipped += 1
        else:
            result.done.append(key)
    return result


@transaction.atomic
def _erase_later(user: Any, entries: dict[str, Any]) -> PendingErasure | None:
    if not entries:
        return None
    hidden = []
    for key, entry in entries.items():
        if entry.status == MemoryStatus.ACTIVE:
            memory_hide(actor=user, memory_id=key)
            hidden.append(entry.pk)
    return PendingErasure.objects.create(
        user=user,
        entry_ids=[e.pk for e in entries.values()],
        hidden_ids=hidden,
        due_at=timezone.now() + timedelta(seconds=UNDO_SECONDS),
    )


@transaction.atomic
def erasure_undo(*, user: Any, pending_id: Any) -> int:
    """Cancel a pending erasure of the user's within its window; returns how many came back."""
    pk = _int(pending_id)
    pending = PendingErasure.objects.select_for_update().filter(user=user, pk=pk).first() if pk else None
    if pending is None:
        raise NotFound("Nothing to undo: the memories were erased already.")
    for entry_id in pending.hidden_ids:
        try:
            memory_unhide(actor=user, memory_id=entry_id)
        except MemoryServiceError:  # corrected or erased meanwhile
            continue
    restored = len(pending.entry_ids)
    pending.delete()
    return restored


def _int(value: Any) -> int | None:
    try:
        number = int(str(value))
    except ValueError:
        return None
    return number if 0 < number < 2**63 else None


def pending_entry_ids(*, user: Any) -> list[uuid.UUID]:
    """Entries waiting for their erasure: the list leaves them out."""
    rows = PendingErasure.objects.filter(user=user).values_list("entry_ids", flat=True)
    return [pk for ids in rows for pk in ids]


def pending_erasures_settle(*, user: Any) -> list[uuid.UUID]:
    """Erase the user's erasures past their Undo window, then the entries still waiting (the list
    leaves them out): one query when nothing is due, as on nearly every visit."""
    rows = list(PendingErasure.objects.filter(user=user).values_list("due_at", "entry_ids"))
    now = timezone.now()
    if any(due <= now for due, _ in rows):
        pending_erasures_run(user=user, now=now)
        return pending_entry_ids(user=user)
    return [pk for _, ids in rows for pk in ids]


def pending_erasures_run(*, user: Any = None, now: datetime | None = None) -> int:
    """Erase for good what is past its Undo window (one user's, or everyone's); returns entries erased."""
    due = PendingErasure.objects.filter(due_at__lte=now or timezone.now()).select_related("user")
    if user is not None:
        due = due.filter(user=user)
    erased = 0
    for pending in due:
        with transaction.atomic():
            locked = PendingErasure.objects.select_for_update(skip_locked=True).filter(pk=pending.pk).first()
            if locked is None:  # another request or the schedule has it
                continue
            for pk in locked.entry_ids:
                try:
                    memory_erase_with_sources(user=pending.user, memory_id=pk)
                except NotFound:  # erased with an older or newer version already
                    continue
                erased += 1
            locked.delete()
    return erased
