"""Task functions run by the django-q2 cluster.

Conventions: a task takes ids (never model instances), re-reads its rows through the selectors,
does its writes through the services, and is idempotent, because a task can run more than once
(retry after a timeout or a lost worker, up to Q_CLUSTER["max_attempts"]). Tasks are queued only
by services, through `memory_core.jobs.enqueue`, after the transaction commits.
"""

from __future__ import annotations


def ping(token: str) -> str:
    """Health check that touches no data; proves a cluster picks up and finishes tasks."""
    return f"pong:{token}"
