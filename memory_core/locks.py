"""The namespace row locks every writer of a namespace takes, in one place below the services.

Writers take the namespace row FOR NO KEY UPDATE: one writer per namespace, and no conflict with
the FOR KEY SHARE locks that inserts referencing the row take (recall's log rows), so a recall
and a write on one user never deadlock.
"""

from __future__ import annotations

from memory_core.models import Namespace


def lock_namespace(namespace_id: int) -> Namespace:
    """The namespace row FOR NO KEY UPDATE: one writer per namespace, no deadlock with readers
    whose inserts reference it."""
    return Namespace.objects.select_for_update(no_key=True).get(pk=namespace_id)


def lock_namespaces(namespace_ids: set[int]) -> set[int]:
    """Lock the namespaces no one is writing to right now; return their ids.

    `memory_add` holds its namespace row lock (FOR NO KEY UPDATE, as here) while it decides and
    writes, so a pass that holds it too never interleaves with a write (say, evidence added to an
    entry while it is being merged away). Never waits: a busy namespace is left for the next run.
    """
    return set(
        Namespace.objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk__in=namespace_ids)
        .values_list("pk", flat=True)
    )
