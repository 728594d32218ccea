"""The recall log and the access counts: written in one statement per recall, pruned by retention."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from memory_core.models import MemoryEntry, RecallLog
from memory_core.recall.types import RecallResult

# Rows deleted per statement, so a first prune of a large backlog never holds long locks.
PRUNE_BATCH = 10_000

_ENTRY = MemoryEntry._meta.db_table
_LOG = RecallLog._meta.db_table

# Recording never waits on a writer, so it can never be part of a lock cycle with the write path:
# the counted rows are locked in id order with SKIP LOCKED (a row a write is changing right now —
# a merge of a batch, an extraction — is simply not counted by this one recall), and the log
# rows' entries take only KEY SHARE locks, which neither the write pipeline's FOR NO KEY UPDATE
# on the namespace nor its row updates block. The log records every item still there.
#
# An erasure deletes entries while a recall logs them. The log rows' entries are locked (`kept`,
# KEY SHARE, what their foreign-key check takes anyway) before the counts, in id order as the
# erasure locks them: an entry being deleted is waited for and then, gone, not logged; under READ
# COMMITTED a locking read sees the row's latest version, where a plain join or EXISTS sees the
# statement's snapshot and the foreign key fails at commit.
_RECORD_SQL = f"""
WITH kept AS (
    SELECT id FROM {_ENTRY} WHERE id = ANY(%(ids)s::uuid[]) ORDER BY id FOR KEY SHARE
), counted AS (
    UPDATE {_ENTRY} SET access_count = access_count + 1, last_accessed_at = %(now)s
    WHERE id IN (
        SELECT id FROM {_ENTRY} WHERE id IN (SELECT id FROM kept)
        ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
    )
), logged AS (
    INSERT INTO {_LOG} (namespace_id, entry_id, turn_ref, rank, score, created_at)
    SELECT item.namespace_id, item.entry_id, %(turn_ref)s, item.rank, item.score, %(now)s
    FROM unnest(%(namespaces)s::bigint[], %(entries)s::uuid[], %(scores)s::float8[])
        WITH ORDINALITY AS item(namespace_id, entry_id, score, rank)
    JOIN kept ON kept.id = item.entry_id  -- an entry erased since it was found: not logged
)
"""  # noqa: S608  # table names from the models; every value is a parameter


# Counts and log rows are a record of use, not user data: standing alone (no caller's
# transaction), their statement commits without waiting for the WAL flush (`synchronous_commit`
# off for this transaction only, in the same query string). A crash of the database server may
# then lose the last fraction of a second of them; it never leaves them half written. Measured
# on LoCoMo recalls: the statement's p95 3.1 -> 2.1 ms.
_ASYNC_COMMIT = "SELECT set_config('synchronous_commit', 'off', true); "


def record(result: RecallResult) -> None:
    """Access counts and log rows of a recall's result, in one statement (`record_items`)."""
    record_items(
        turn_ref=result.turn_ref,
        items=[(item.entry.namespace_id, item.entry.pk, item.score) for item in result.items],
    )


def record_items(
    *,
    turn_ref: str,
    items: Sequence[tuple[int, uuid.UUID, float]],
    then: str = "SELECT 1",
    then_params: dict[str, Any] | None = None,
) -> list[tuple[Any, ...]]:
    """Count the access of one recall's items — (namespace id, entry id, score), in rank order —
    and log them, in one statement (see `_RECORD_SQL`); nothing for no items. An entry erased
    since the recall found it, or by an erasure committing meanwhile, is neither counted nor
    logged.

    `then`, a SELECT with named parameters (`then_params`), is the statement's main query and its
    rows are returned: recall reads the entries it returns in the same round trip. It sees the
    rows as they were before the counts (one snapshot for the whole statement)."""
    if not items:
        return []
    params = {
        "now": timezone.now(),
        "ids": sorted({str(entry_id) for _, entry_id, _ in items}),
        "turn_ref": turn_ref[:100],
        "namespaces": [namespace_id for namespace_id, _, _ in items],
        "entries": [str(entry_id) for _, entry_id, _ in items],
        "scores": [score for _, _, score in items],
        **(then_params or {}),
    }
    with connection.cursor() as cursor:
        if connection.in_atomic_block:  # the caller's transaction decides how it commits
            cursor.execute(_RECORD_SQL + then, params)
        else:
            cursor.execute(_ASYNC_COMMIT + _RECORD_SQL + then, params)
            cursor.nextset()
        return cursor.fetchall()


def retention_days() -> int:
    return int(settings.RECALL_LOG_RETENTION_DAYS)


def prune(now: datetime | None = None) -> int:
    """Delete log rows older than `RECALL_LOG_RETENTION_DAYS` (0 keeps everything); the number
    deleted. Run by the forgetting schedule and `manage.py forget`. What the rows said survives,
    aggregated, in each entry's access_count and last_accessed_at (the "used N times, last on …"
    the user's page shows); the activity page's recent recalls are within the retention window."""
    days = retention_days()
    if days <= 0:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted = 0
    while True:
        # Oldest first, in bounded batches served by the created_at index.
        batch = RecallLog.objects.filter(created_at__lt=cutoff).order_by("created_at").values("pk")
        count, _ = RecallLog.objects.filter(pk__in=batch[:PRUNE_BATCH]).delete()
        deleted += count
        if count < PRUNE_BATCH:
            return deleted
