"""What the write pipeline answers for each statement: a leaf, so that the services announcing
and reporting an outcome (webhooks, extraction jobs, imports, the apps) need not import the
pipeline to name it."""

from __future__ import annotations

from dataclasses import dataclass

from memory_core.choices import AddAction
from memory_core.models import MemoryEntry


@dataclass(frozen=True)
class AddOutcome:
    action: AddAction
    entry: MemoryEntry | None
    replaced: MemoryEntry | None = None
    reason: str = ""
    flagged: bool = False
    # What the same statement also stored: the safety fact a held rule states first
    # (`screening.fact_within_rule`), active and pinned while the rule waits for an operator.
    also: tuple[AddOutcome, ...] = ()
