"""What was said of someone before the user said who they are, read again once they have: "Ella has
epilepsy" stored unpinned (a bare name is no one to the safety model) is a dependant's safety fact,
always recalled, once the user says "my daughter is called Ella"; "Maya can't have dairy" pinned as
if hers were a dependant's condition is not, once Maya is "my colleague Maya".

The write that names someone for the first time finds the entries that name them
(`entities.hooks.earlier_mentions`); each is judged again as the write path judges a new statement
with the people it names known (`screening.pinned_as_known`). Left as they are: rules, entries the
user chose to recall always or not (their choice stands), and a pin the judgement alone did not give
(a developer's explicit pin). Each change is an event of the entry's history, by the system, with
the reason.
"""

from __future__ import annotations

from memory_core.choices import ActorKind, EventAction, MemoryStatus, MemoryType
from memory_core.models import MemoryEntry
from memory_core.people_known import PeopleKnown
from memory_core.screening import (
    NOT_ALWAYS_IMPORTANCE,
    SAFETY_IMPORTANCE,
    always_recall_choice,
    not_always_category,
    pinned_as_known,
    safety_category,
)
from memory_core.services import event_record

# The history's reasons (translated on the pages: `privacy.event_labels.REASONS`).
PINNED_REASON = "Read again once the user said who the person is: their dependant's safety fact."
UNPINNED_REASON = "Read again once the user said who the person is: not their own or a dependant's."


def reread(entries: list[MemoryEntry]) -> list[MemoryEntry]:
    """Judge `entries` again with the people they name as the graph knows them now (under the
    writer's namespace lock); returns those whose pin changed."""
    people: dict[int, PeopleKnown] = {}
    changed = []
    for entry in entries:
        if (
            entry.type == MemoryType.PROCEDURAL
            or entry.status != MemoryStatus.ACTIVE
            or always_recall_choice(entry.metadata) is not None
        ):
            continue
        known = people.setdefault(entry.namespace_id, PeopleKnown(entry.namespace_id))
        judged = pinned_as_known(entry.content, known)
        if judged is None:
            continue
        alone, now = judged
        if now and not entry.pinned:
            _repin(entry, pinned=True)
        elif not now and entry.pinned and alone:
            _repin(entry, pinned=False)
        else:
            continue
        changed.append(entry)
    return changed


def _repin(entry: MemoryEntry, *, pinned: bool) -> None:
    before = {
        "pinned": entry.pinned,
        "category": entry.category,
        "importance": entry.importance,
        "key": entry.key,
    }
    entry.pinned = pinned
    if pinned:
        entry.category = safety_category(entry.category)
        entry.importance = max(entry.importance, SAFETY_IMPORTANCE)
    else:
        entry.category = not_always_category(entry.category)
        entry.importance = min(entry.importance, NOT_ALWAYS_IMPORTANCE)
    if entry.key.startswith("health."):
        # A named person's condition fills no health slot of the user's own (`screening.classify`).
        entry.key = ""
    after = {
        "pinned": entry.pinned,
        "category": entry.category,
        "importance": entry.importance,
        "key": entry.key,
    }
    entry.save(update_fields=["pinned", "category", "importance", "key", "updated_at"])
    event_record(
        entry=entry,
        action=EventAction.PINNED if pinned else EventAction.UNPINNED,
        actor_kind=ActorKind.SYSTEM,
        reason=PINNED_REASON if pinned else UNPINNED_REASON,
        data={"from": before, "to": after},
    )
