"""What the write pipeline is asked: a statement on its way in (`WriteRequest`), in a leaf, so that
the pipeline's steps and the batch path (`pipeline_batch`) name it without importing the pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memory_core.services import EntryDraft


@dataclass(frozen=True)
class WriteRequest(EntryDraft):
    """A statement on its way in: what `memory_create` stores (`EntryDraft`), plus what the
    guards need. `raw_text` is the user's own words it was derived from (checked for secrets too,
    never stored); `said` the words of theirs it restates whole, when our own reader wrote it in
    the third person (judged as said, never stored); `exact` means "store as given": merge only
    the same wording."""

    raw_text: str = ""
    said: str = ""
    said_at: datetime | None = None
    embedding: list[float] | None = None
    context_embedding: list[float] | None = None  # set by `pipeline.embed` with `embedding`
    exact: bool = False
    flag_reason: str = ""  # set by `screening.classify` when the statement relaxes a control
