"""Forgetting and consolidation: the scheduled passes that expire, archive and merge memories.

Four passes, run in this order by `forget_all` (the `memory-forgetting` schedule and
`manage.py forget`); each only touches active entries, is capped by `max_changes`, can be a dry
run, and writes every change to the history with actor "job" and a reason (never the content):

1. `expire_ended_windows` (expiry): the validity window closed → expired.
2. `expire_ttl` (expiry): an explicit `expires_at` passed, or the type's TTL ran out in active days.
3. `decay` (decay): retention on the user's clock fell below the threshold, or the namespace is
   over its budget and the entry is among its least valuable → archived; never protected ones,
   never more than a share of a namespace per pass.
4. `consolidate` (consolidation): near-duplicates that are the same statement
   (`sameness.same_statement`) are merged.

Time is counted on the user's clock (`clock`): days on which the namespace was in use, so a
namespace nobody touches neither decays nor expires by TTL. Worked example, with the defaults
(half-life 30 active days, threshold 0.05): a fact of importance 0.5, never recalled, has
retention 0.6 * 0.5 ** (age / 30). Its owner chats every day for 107 days: 0.6 * 0.5 ** 3.57 =
0.051, kept; on the 108th active day 0.0496 < 0.05, archived. Had they left for a year after
learning it, the year counts 0 active days: retention stays 0.6 and nothing is archived; the
108 active days start counting when they come back. Recalled 10 times, its half-life is
30 * (1 + ln 11) = 102 active days and it lasts about a year of daily use.

Archived entries stay visible and restorable (`archive.memory_restore`, /me/, the REST API).

Every function takes `now` (default `timezone.now()`) so tests and `manage.py forget --now` can
run the passes at any instant. Changes lock the namespace (as `memory_add` does) and the rows
with `SKIP LOCKED` and re-check `status = 'active'`, so a concurrent write is neither
overwritten nor waited for (busy rows wait for the next run); each batch commits alone.
"""

from __future__ import annotations

from memory_core.forgetting.archive import (
    ForgettingRun,
    archived_entries,
    forgetting_runs,
    memory_restore,
)
from memory_core.forgetting.clock import clock_refresh
from memory_core.forgetting.config import (
    capacity_default,
    consolidate_similarity,
    decay_threshold,
    half_life_base_days,
    max_share_per_pass,
    protected_categories,
    ttl_days,
)
from memory_core.forgetting.consolidation import _find_merges, consolidate
from memory_core.forgetting.decay import decay, decay_score, half_life_days
from memory_core.forgetting.decay import retention_sql as _retention_sql
from memory_core.forgetting.expiry import expire_ended_windows, expire_ttl
from memory_core.forgetting.report import (
    CONSOLIDATE,
    DECAY,
    EXPIRE_ENDED_WINDOWS,
    EXPIRE_TTL,
    Change,
    PassReport,
)
from memory_core.forgetting.runner import PASSES, forget_all

__all__ = [
    "CONSOLIDATE",
    "DECAY",
    "EXPIRE_ENDED_WINDOWS",
    "EXPIRE_TTL",
    "PASSES",
    "Change",
    "ForgettingRun",
    "PassReport",
    "_find_merges",
    "_retention_sql",
    "archived_entries",
    "capacity_default",
    "clock_refresh",
    "consolidate",
    "consolidate_similarity",
    "decay",
    "decay_score",
    "decay_threshold",
    "expire_ended_windows",
    "expire_ttl",
    "forget_all",
    "forgetting_runs",
    "half_life_base_days",
    "half_life_days",
    "max_share_per_pass",
    "memory_restore",
    "protected_categories",
    "ttl_days",
]
