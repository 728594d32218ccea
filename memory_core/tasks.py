"""Task functions run by the django-q2 cluster.

Conventions: a task takes ids (never model instances), re-reads its rows through the selectors,
does its writes through the services, and is idempotent, because a task can run more than once
(retry after a timeout or a lost worker, up to Q_CLUSTER["max_attempts"]). Tasks are queued only
by services, through `memory_core.jobs.enqueue`, after the transaction commits.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from memory_core.compaction import compaction_run, rewrite_due
from memory_core.context_vectors import TASK as CONTEXT_VECTORS_TASK
from memory_core.context_vectors import context_vectors_run, context_vectors_soon
from memory_core.entities import graph_cache
from memory_core.extraction.jobs import extraction_reap, extraction_run
from memory_core.forgetting import forget_all
from memory_core.imports import import_reap, import_run
from memory_core.jobs import enqueue
from memory_core.recall import log as recall_log
from memory_core.term_vectors import term_vectors_forget, term_vectors_run
from memory_core.webhooks.delivery import delivery_attempt, webhook_retries_run


def ping(token: str) -> str:
    """Health check that touches no data; proves a cluster picks up and finishes tasks."""
    return f"pong:{token}"


def run_forgetting() -> dict[str, int]:
    """The `memory-forgetting` schedule: expire, archive and merge (capped per pass), then report."""
    reports = forget_all()
    counts = {report.name: report.count for report in reports}
    counts["recall_log_pruned"] = recall_log.prune()
    counts["graph_changes_pruned"] = graph_cache.prune_changes()
    capped = [report.name for report in reports if report.capped]
    logging.getLogger(__name__).info(
        "forgetting: %s%s",
        ", ".join(f"{name} {count}" for name, count in counts.items()),
        f" (capped, the next run continues: {', '.join(capped)})" if capped else "",
    )
    return counts


def extract_job(job_id: int) -> dict[str, object]:
    """Extract memories from one conversation range; a job already done is left as it is.

    Re-raises a language-model failure while the job has run fewer than
    `extraction.MAX_ATTEMPTS` times, so the broker hands the task out again (its failures are not
    acknowledged, see `extraction_enqueue`); then it returns and the job stays `failed`.
    """
    job = extraction_run(job_id=job_id)
    return dict(job.result) if job is not None else {}


def run_erasure_vacuum() -> dict[str, object]:
    """The debounced `erasure-vacuum` one-off schedule (see `memory_core.compaction`), after the
    term vectors no namespace holds are forgotten (what an erasure's own pass may have left:
    `memory_core.term_vectors.term_vectors_forget`), so the vacuum takes their rows too."""
    forgotten = term_vectors_forget()
    return {**compaction_run().as_dict(), "term_vectors_forgotten": forgotten}


def run_erasure_rewrite() -> dict[str, object]:
    """The hourly `erasure-rewrite` schedule: the nightly rewrite of every table, when it is due."""
    if not rewrite_due():
        return {"due": False}
    return {"due": True, **compaction_run(rewrite_all=True).as_dict()}


def run_context_vectors() -> dict[str, object]:
    """The context documents of waiting entries embedded, a bounded run at a time
    (`memory_core.context_vectors`): the next run is queued at once while more wait, and soon
    when a write held some of them (left waiting); idempotent, as a run takes only what waits.
    Then the vectors of the terms new since the last run (`memory_core.term_vectors`: the words
    recall relates to a query's), a bounded run too."""
    report = context_vectors_run()
    terms = term_vectors_run()
    if report.more or terms.more:
        enqueue(CONTEXT_VECTORS_TASK)
    elif report.left:
        context_vectors_soon()
    return {**report.as_dict(), "terms": terms.as_dict()}


def webhook_deliver(delivery_id: str) -> str:
    """One attempt of a webhook delivery (`memory_core.webhooks.delivery`); idempotent: a delivery
    that is not due, already sent or being sent by another worker is left alone."""
    delivery = delivery_attempt(delivery_id=delivery_id)
    return delivery.status if delivery is not None else "skipped"


def run_webhook_retries() -> int:
    """The `webhook-retries` schedule: queue the webhook deliveries whose next attempt is due."""
    return webhook_retries_run()


def import_job(job_id: str) -> dict[str, object]:
    """Write one import job (`memory_core.imports`); a finished one is left as it is."""
    job = import_run(job_id=job_id)
    return {"status": job.status, "done": job.done, "total": job.total} if job is not None else {}


def run_job_reaper() -> dict[str, int]:
    """The `job-reaper` schedule: jobs left `running` by a run that is gone (its cluster killed,
    its machine lost), and jobs left `queued` whose task the broker lost, are queued again, or
    failed with the reason once their attempts are spent."""
    now = timezone.now()
    extractions = extraction_reap(now=now)
    imports = import_reap(now=now)
    return {
        "extractions_requeued": extractions[0],
        "extractions_failed": extractions[1],
        "imports_requeued": imports[0],
        "imports_failed": imports[1],
    }
