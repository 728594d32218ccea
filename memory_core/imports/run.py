"""Running an import: every statement through `memory_add` — as a dry run, at once, or as a job.

- `import_preview` is the dry run. The statements go through the whole pipeline inside a
  transaction that is then rolled back, so its decisions are the real ones (a line merging into
  an earlier line of the same file included) and nothing stays: no entry, evidence, event, flag
  or job row, and nothing queued (`on_commit` callbacks of a rolled-back transaction never run).
  It is always answered at once, up to IMPORT_MAX_ITEMS statements.
- `import_create` records an `ImportJob`. Up to IMPORT_JOB_THRESHOLD statements (or transcript
  messages) are written during the request; more are queued for django-q2 (`tasks.import_job`).
- `import_run` writes a job in chunks; each chunk commits together with the job's progress, so a
  job retried after a lost worker goes on where it stopped and writes nothing twice.

A transcript is first read by the extractor (the language model, or the rules offline); each
candidate's `valid_from` is its own past date, else when its message was said (`created_at`).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memory_core.choices import AddAction, ImportFormat, ImportStatus, SourceKind
from memory_core.errors import MemoryServiceError
from memory_core.extraction import EXCERPT_MAX_CHARS, RuleBasedExtractor, candidate_start, get_extractor
from memory_core.extraction.schema import parse_when
from memory_core.imports.parsers import (
    EXPORT_SOURCE,
    ImportItem,
    check_format,
    check_size,
    parse_mem0,
    parse_text,
    parse_transcript,
    transcript_source,
)
from memory_core.imports.restore import export_state_restore, imported_before
from memory_core.jobs import enqueue
from memory_core.llm import LLMError, OfflineMode
from memory_core.models import ImportJob, Namespace
from memory_core.outcomes import AddOutcome
from memory_core.pipeline import PAUSED_MESSAGE, MemoryPaused, guard_pause, memory_add

logger = logging.getLogger(__name__)

CHUNK = 25  # statements per committed step of a job (and per embedding call)
WINDOW = 50  # transcript messages the extractor reads at once
MAX_ATTEMPTS = 3
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


def job_threshold() -> int:
    return int(getattr(settings, "IMPORT_JOB_THRESHOLD", 100))


# --- reading -------------------------------------------------------------------------------------


def _read(format: Any, data: Any) -> tuple[str, list[ImportItem], list[dict[str, Any]]]:
    """(format, statements, transcript messages) of the input, or `ImportInputError`."""
    format = check_format(format)
    check_size(data)
    if format == ImportFormat.MEM0:
        return format, parse_mem0(data), []
    if format == ImportFormat.TEXT:
        return format, parse_text(data), []
    return format, [], parse_transcript(data)


def _said_at(messages: list[dict[str, Any]], ids: list[str]) -> datetime | None:
    cited = set(ids)
    times = [
        when
        for m in messages
        if m["role"] == "user" and m["id"] in cited and (when := parse_when(m.get("created_at")))
    ]
    return max(times, default=None)


def _extract(messages: list[dict[str, Any]]) -> list[ImportItem]:
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
                    line=len(items) + 1,
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


# --- writing -------------------------------------------------------------------------------------


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
    from memory_core.embeddings import embed_remembered, get_embedder

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
    return rows


def _fresh(namespace: Namespace) -> Namespace:
    fresh = Namespace.objects.select_related("owner").get(pk=namespace.pk)
    guard_pause(fresh)  # a paused memory learns nothing, not even in an import
    return fresh


# --- the dry run ---------------------------------------------------------------------------------


def import_preview(*, namespace: Namespace, format: Any, data: Any, actor_kind: str) -> list[ImportRow]:
    """What importing `data` would do, line by line; nothing is written (see the module docstring)."""
    format, items, messages = _read(format, data)
    namespace = _fresh(namespace)
    if messages:
        items = _extract(messages)
    new: dict[str, int] = {}  # entries this dry run created → their line
    rows = []
    with transaction.atomic():
        for row in _apply(namespace, items, actor_kind=actor_kind):
            if row.entry in new:  # merged into an earlier line of this import
                row = replace(row, entry=None, reason=f"duplicate of line {new[row.entry]}", existing="")
            elif row.entry and row.action in _CREATING:
                new[row.entry] = row.line
                row = replace(row, entry=None)  # rolled back below: the id will not exist
            if row.replaces in new:  # a newer value than an earlier line of this import
                row = replace(row, replaces=None, reason=f"replaces line {new[row.replaces]}")
            rows.append(row)
        transaction.set_rollback(True)
    return rows


# --- the import ----------------------------------------------------------------------------------


def import_create(*, namespace: Namespace, format: Any, data: Any, actor_kind: str) -> ImportJob:
    """Record the import and write it now, or queue it when it is large (see the module docstring).
    Returns the job: `done` when written now, `queued` when it runs in the background."""
    format, items, messages = _read(format, data)
    namespace = _fresh(namespace)
    size = len(messages) or len(items)
    job = ImportJob.objects.create(
        namespace=namespace,
        format=format,
        actor_kind=actor_kind,
        messages=messages,
        items=[item.as_json() for item in items],
        total=len(items),
    )
    if size > job_threshold():
        # Failures are not acknowledged, so the broker hands the task out again (bounded).
        enqueue(
            "memory_core.tasks.import_job", str(job.pk), group="imports", q_options={"ack_failure": False}
        )
        return job
    run = import_run(job_id=job.pk)
    assert run is not None  # created above, in this request
    return run


def _lock(job_id: Any) -> ImportJob | None:
    return (
        ImportJob.objects.select_for_update(of=("self",))
        .select_related("namespace__owner")
        .filter(pk=job_id)
        .first()
    )


def _claim(job_id: Any) -> ImportJob | None:
    """The job marked running (one more attempt); None if gone or already finished."""
    with transaction.atomic():
        job = _lock(job_id)
        if job is None or job.status in (ImportStatus.DONE, ImportStatus.FAILED):
            return None
        job.status, job.attempts = ImportStatus.RUNNING, job.attempts + 1
        job.save(update_fields=["status", "attempts"])
        return job


def _finish(job: ImportJob, *, status: str, error: str = "") -> ImportJob:
    """Finished: the pending statements and messages are the user's words and go."""
    job.status, job.error, job.items, job.messages = status, error, [], []
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "error", "items", "messages", "finished_at"])
    return job


def _extract_job(job: ImportJob) -> None:
    """A transcript's statements, extracted once (outside any transaction: the model is slow)."""
    items = _extract(list(job.messages))
    with transaction.atomic():
        current = _lock(job.pk)
        if current is None or current.items:
            return  # erased meanwhile, or extracted by an earlier attempt
        current.items, current.messages, current.total = [i.as_json() for i in items], [], len(items)
        current.save(update_fields=["items", "messages", "total"])


def _step(job_id: Any) -> ImportJob | None:
    """Write the next chunk and record the progress, in one transaction; None when there is no
    more to do (the job is then finished, erased, or stopped because memory was paused)."""
    try:
        with transaction.atomic():
            job = _lock(job_id)
            if job is None or job.status != ImportStatus.RUNNING:
                return None
            chunk = [ImportItem.from_json(data) for data in job.items[job.done : job.done + CHUNK]]
            if not chunk:
                _finish(job, status=ImportStatus.DONE)
                return None
            rows = _apply(job.namespace, chunk, actor_kind=job.actor_kind)
            counts = Counter(job.counts)
            counts.update(row.action for row in rows)
            job.counts = dict(counts)
            job.results = [*job.results, *(row.stored() for row in rows)]
            job.done += len(chunk)
            job.save(update_fields=["counts", "results", "done"])
            return job
    except MemoryPaused:
        pass  # this chunk was rolled back; what earlier chunks wrote stays
    with transaction.atomic():
        job = _lock(job_id)
        if job is not None:
            error = f"Stopped after {job.done} of {job.total}: {PAUSED_MESSAGE}"
            _finish(job, status=ImportStatus.FAILED, error=error)
    return None


def import_run(*, job_id: Any) -> ImportJob | None:
    """Write a job's statements (the task's body; idempotent). On a failing model (or any error)
    the job waits for a retry, re-raised so that django-q runs it again, until it has run
    MAX_ATTEMPTS times; then it is failed with the reason, its payload dropped."""
    job = _claim(job_id)
    if job is None:
        return ImportJob.objects.filter(pk=job_id).first()
    try:
        if job.messages and not job.items:
            _extract_job(job)
        while _step(job_id) is not None:
            pass
    except Exception as exc:
        # The message of an arbitrary exception may quote the user's words: only its type is kept.
        logger.exception("import job %s failed", job_id)
        detail = exc.message if isinstance(exc, LLMError) else f"unexpected {type(exc).__name__}"
        retry = job.attempts < MAX_ATTEMPTS
        with transaction.atomic():
            current = _lock(job_id)
            if current is not None and current.status == ImportStatus.RUNNING:
                error = f"Import failed (attempt {job.attempts}): {detail}."
                if retry:
                    current.status, current.error = ImportStatus.QUEUED, error + " It will be retried."
                    current.save(update_fields=["status", "error"])
                else:
                    _finish(current, status=ImportStatus.FAILED, error=error)
        if retry:
            raise
    return ImportJob.objects.filter(pk=job_id).first()
