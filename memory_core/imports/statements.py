"""An import's statements: a transcript read into statements by the extractor, and each
statement written through `memory_add` — the rows a dry run shows and a job stores."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

from django.db import transaction

from memory_core.choices import AddAction, SourceKind
from memory_core.embeddings import embed_remembered, get_embedder
from memory_core.errors import MemoryServiceError
from memory_core.extraction import EXCERPT_MAX_CHARS, RuleBasedExtractor
from memory_core.extraction.jobs import candidate_start, get_extractor
from memory_core.extraction.schema import parse_when
from memory_core.imports.parsers import EXPORT_SOURCE, ImportItem, transcript_source
from memory_core.imports.restore import export_state_restore, imported_before
from memory_core.llm import LLMError, OfflineMode
from memory_core.models import Namespace
from memory_core.outcomes import AddOutcome
from memory_core.pipeline import memory_add
from memory_core.screening import MemoryPaused, guard_pause

WINDOW = 50  # transcript messages the extractor reads at once
_CREATING = (AddAction.ADDED, AddAction.SUPERSEDED, AddAction.PENDING_REVIEW)
_REASONS = {
    AddAction.ADDED: "new",
    AddAction.SUPERSEDED: "replaces an older value, kept in its history",
}


@dataclass(frozen=True)
class ImportRow:
    """What happened (or, in a dry run, would happen) to one imported statement."""

    line: int
    action: str
    reason: str = ""
    valid_from: str | None = None
    entry: str | None = None  # the entry written, or merged into (None in a dry run if new)
    replaces: str | None = None  # the entry superseded
    content: str = ""  # dry runs only: a job keeps no text (see `ImportJob.results`)
    existing: str = ""  # dry runs only: the entry it would merge into or replace

    def stored(self) -> dict[str, Any]:
        row = asdict(self)
        del row["content"], row["existing"]
        return row


def _said_at(messages: list[dict[str, Any]], ids: list[str]) -> datetime | None:
    cited = set(ids)
    times = [
        when
        for m in messages
        if m["role"] == "user" and m["id"] in cited and (when := parse_when(m.get("created_at")))
    ]
    return max(times, default=None)


def _extract(messages: list[dict[str, Any]], *, first_line: int = 1) -> list[ImportItem]:
    """The statements a transcript supports, each dated by when it was said."""
    conversation = transcript_source(messages)
    extractor = get_extractor()
    items: list[ImportItem] = []
    for start in range(0, len(messages), WINDOW):
        window = messages[start : start + WINDOW]
        try:
            candidates = extractor.extract(window)
        except OfflineMode:
            extractor = RuleBasedExtractor()
            candidates = extractor.extract(window)
        texts = {m["id"]: m["content"] for m in window if m["role"] == "user"}
        for candidate in candidates:
            said_at = _said_at(window, candidate.message_ids)
            valid_from, metadata = candidate_start(candidate, said_at=said_at)
            excerpt = "\n".join(texts[i] for i in candidate.message_ids if i in texts)
            items.append(
                ImportItem(
                    line=first_line + len(items),
                    content=candidate.content,
                    conversation=conversation,
                    message_ids=list(candidate.message_ids),
                    source_kind=SourceKind.EXTRACTED,
                    type=candidate.type,
                    category=candidate.category,
                    key=candidate.key,
                    importance=candidate.importance,
                    confidence=candidate.confidence,
                    pinned=candidate.pinned,
                    is_inference=candidate.is_inference,
                    valid_from=valid_from.isoformat() if valid_from else None,
                    said_at=said_at.isoformat() if said_at else None,
                    excerpt=excerpt[:EXCERPT_MAX_CHARS],
                    metadata={**metadata, "imported_from": "transcript"},
                    extractor_model=extractor.name,
                    extractor_prompt_version=extractor.prompt_version,
                )
            )
    return items


def _error_text(exc: MemoryServiceError) -> str:
    details = [f"{name}: {' '.join(map(str, errors))}" for name, errors in exc.field_errors.items()]
    return " ".join([exc.message, *details])


def _row(item: ImportItem, outcome: AddOutcome) -> ImportRow:
    reason = outcome.reason or _REASONS.get(outcome.action, "")
    if outcome.action == AddAction.REJECTED and item.secret_kinds:
        reason = f"contains a secret ({', '.join(item.secret_kinds)})"  # the words the API uses
    entry = outcome.entry
    return ImportRow(
        line=item.line,
        action=str(outcome.action),
        reason=reason,
        valid_from=entry.valid_from.isoformat() if entry is not None else item.valid_from,
        entry=str(entry.pk) if entry is not None else None,
        replaces=str(outcome.replaced.pk) if outcome.replaced is not None else None,
        content=item.content,
        existing=(
            outcome.replaced.content
            if outcome.replaced is not None
            else entry.content
            if entry is not None and outcome.action == AddAction.MERGED
            else ""
        ),
    )


def _apply(namespace: Namespace, items: list[ImportItem], *, actor_kind: str) -> list[ImportRow]:
    """Each statement through `memory_add`, each in its own savepoint: a refused one does not undo
    the others. `MemoryPaused` and a failing model (`LLMError`) stop the whole run."""
    vectors = embed_remembered(get_embedder(), [item.content for item in items])  # one model call per chunk
    rows = []
    for item, vector in zip(items, vectors, strict=True):
        if item.conversation == EXPORT_SOURCE and (
            known := imported_before(namespace=namespace, export_id=item.message_ids[0])
        ):
            rows.append(_row(item, AddOutcome(AddAction.IGNORED, known, reason="already imported")))
            continue
        try:
            with transaction.atomic():
                outcome = memory_add(
                    namespace=namespace,
                    content=item.content,
                    type=item.type,
                    category=item.category,
                    key=item.key,
                    source_kind=item.source_kind,
                    source_conversation=item.conversation,
                    source_message_ids=item.message_ids,
                    confidence=item.confidence,
                    importance=item.importance,
                    pinned=item.pinned,
                    is_inference=item.is_inference,
                    valid_from=parse_when(item.valid_from),
                    metadata=item.metadata,
                    extractor_model=item.extractor_model,
                    extractor_prompt_version=item.extractor_prompt_version,
                    actor_kind=actor_kind,
                    actor=namespace.owner,
                    excerpt=item.excerpt,
                    raw_text=item.excerpt,
                    said_at=parse_when(item.said_at),
                    embedding=vector,
                    # Stored as given, like the REST API's adds: merged only into the same wording.
                    exact=item.source_kind == SourceKind.API_IMPORT,
                )
                if item.conversation == EXPORT_SOURCE and outcome.entry is not None:
                    export_state_restore(
                        namespace=namespace, item=item, entry=outcome.entry, actor_kind=actor_kind
                    )
        except (MemoryPaused, LLMError):
            raise
        except MemoryServiceError as exc:
            rows.append(ImportRow(line=item.line, action=AddAction.REJECTED, reason=_error_text(exc)))
            continue
        rows.append(_row(item, outcome))
        # What the same line also stored (the condition a held rule states), as a row of its own.
        rows += [_row(replace(item, content=also.entry.content), also) for also in outcome.also if also.entry]
    return rows


def _fresh(namespace: Namespace) -> Namespace:
    fresh = Namespace.objects.select_related("owner").get(pk=namespace.pk)
    guard_pause(fresh)  # a paused memory learns nothing, not even in an import
    return fresh
