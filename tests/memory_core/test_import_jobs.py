"""Import jobs under overlap: two workers handed the same job (a retry while the first still runs)
write each statement once, and the progress adds up."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from memory_core.imports import import_run
from memory_core.imports.pasted import parse_text
from memory_core.models import ImportJob, MemoryEntry, MemoryEvidence
from memory_core.services import namespace_for_user


def _run_together(job_id: object, workers: int = 2) -> list[BaseException]:
    barrier = threading.Barrier(workers)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            barrier.wait(timeout=10)
            import_run(job_id=job_id)
        except BaseException as exc:  # reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return errors


@pytest.mark.django_db(transaction=True)
def test_two_workers_on_one_job_write_each_statement_once(owner):
    items = parse_text("\n".join(f"Has been to festival number {n}" for n in range(60)))
    job = ImportJob.objects.create(
        namespace=namespace_for_user(user=owner),
        format="text",
        items=[item.as_json() for item in items],
        total=len(items),
    )

    assert _run_together(job.pk) == []

    job.refresh_from_db()
    assert (job.status, job.done, job.total) == ("done", 60, 60)
    assert [row["line"] for row in job.results] == list(range(1, 61))  # each line once, in order
    assert job.counts == {"added": 60}
    assert MemoryEntry.objects.count() == 60 and MemoryEvidence.objects.count() == 60
