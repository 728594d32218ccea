"""Reading imports: a namespace's import jobs, one of them by id (missing and someone else's are
"not found" alike), and a job's results with the text of the entries that still hold it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from memory_core.errors import NotFound
from memory_core.models import ImportJob, MemoryEntry
from memory_core.selectors import parse_uuid


@dataclass(frozen=True)
class ImportResult:
    """One line of a finished (or running) import, with the entry's current text if it still
    exists: a job keeps no text itself, so an erased memory leaves nothing behind here."""

    line: int
    action: str
    reason: str
    valid_from: str | None
    entry: str | None
    replaces: str | None
    content: str


def import_jobs(*, namespace_ids: Any) -> QuerySet[ImportJob]:
    """Import jobs of `namespace_ids`, newest first."""
    return ImportJob.objects.filter(namespace_id__in=namespace_ids).order_by("-created_at")


def import_job_for(*, namespace_ids: Any, job_id: Any) -> ImportJob:
    """An import job of one of `namespace_ids`; NotFound alike for missing and outside."""
    pk = parse_uuid(job_id)
    job = import_jobs(namespace_ids=namespace_ids).filter(pk=pk).first() if pk is not None else None
    if job is None:
        raise NotFound("Import not found.")
    return job


def import_results(job: ImportJob) -> list[ImportResult]:
    ids = {row["entry"] for row in job.results if row.get("entry")}
    texts = dict(
        MemoryEntry.objects.in_namespaces([job.namespace_id]).filter(pk__in=ids).values_list("pk", "content")
    )
    return [
        ImportResult(
            line=row["line"],
            action=row["action"],
            reason=row.get("reason", ""),
            valid_from=row.get("valid_from"),
            entry=row.get("entry"),
            replaces=row.get("replaces"),
            content=texts.get(parse_uuid(row["entry"]), "") if row.get("entry") else "",
        )
        for row in job.results
    ]
