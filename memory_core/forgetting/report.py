"""What a forgetting pass changed (or, in a dry run, would change)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

EXPIRE_ENDED_WINDOWS = "expire_ended_windows"
EXPIRE_TTL = "expire_ttl"
DECAY = "decay"
CONSOLIDATE = "consolidate"


class Change(NamedTuple):
    """One entry a pass changed, or would change in a dry run."""

    entry_id: uuid.UUID
    action: str  # "expired" | "archived" | "merged"
    reason: str
    score: float | None = None  # retention (decay) or similarity (consolidation)
    into: uuid.UUID | None = None  # the surviving entry of a merge


@dataclass
class PassReport:
    name: str
    action: str
    now: datetime
    dry_run: bool
    max_changes: int
    changes: list[Change] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.changes)

    @property
    def capped(self) -> bool:
        """The pass stopped at its cap; the next run continues with what is left."""
        return self.count >= self.max_changes
