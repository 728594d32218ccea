"""The disk pass after erasures: make the bytes of erased rows unreadable on disk, not just in SQL.

PostgreSQL does not zero the space of deleted rows. After a DELETE their bytes stay in the table
files (heap, TOAST and index pages) until the pages are rewritten; a plain VACUUM only marks the
space free. Old statistics (`pg_statistic`, most-common values of text columns) and the WAL
keep copies too. So:

- **Soon after each erasure** (debounced: `compaction_request` leaves one one-off django-q
  schedule, `ERASURE_VACUUM_DELAY_SECONDS` ahead, that a burst of erasures shares), the vacuum
  pass rewrites every table of the schema up to `ERASURE_REWRITE_NOW_MAX_MB` (`VACUUM (FULL,
  ANALYZE)`: a new file holding only live rows, indexes and TOAST rebuilt, the old file
  truncated at once) and vacuums the bigger ones (`VACUUM (ANALYZE, INDEX_CLEANUP ON)`: dead rows
  and their index entries gone from SQL's reach, statistics re-sampled without them).
- **Every night** (`ERASURE_REWRITE_HOUR`, checked hourly by the `erasure-rewrite` schedule, which
  also acts whenever a receipt has waited `ERASURE_REWRITE_MAX_HOURS`), the rewrite pass rewrites
  every table whatever its size, so no erased byte stays in a table file for more than 24 hours.
- Either pass, once every table is rewritten: statistics of tables left empty are cleared (ANALYZE
  keeps the old ones when it samples no row), `pg_statistic` itself is rewritten, then
  `pg_switch_wal()` and `CHECKPOINT` retire the WAL segments that held the rows: the embedded
  server runs with `wal_recycle = off`, so they are deleted, not renamed for reuse
  (`config.embedded_postgres`). Receipts up to the pass's start get `vacuumed_at` / `rewritten_at`.

A rewrite takes an ACCESS EXCLUSIVE lock on its table for its duration (reads wait); it gives up
after `ERASURE_LOCK_TIMEOUT_SECONDS` rather than queue everyone behind it, and the table is tried
again by the next pass. A transaction that started before the erasure committed may still see
the rows, and VACUUM then keeps them: the pass waits for such transactions
(`ERASURE_SNAPSHOT_WAIT_SECONDS`) and otherwise leaves the receipts pending.
VACUUM cannot run in a transaction: the passes refuse to run inside one.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Max
from django.db.utils import DatabaseError
from django.utils import timezone
from django_q.models import Schedule

from config.tuning import tuned
from memory_core.errors import MemoryServiceError
from memory_core.jobs import one_off_soon
from memory_core.models import ErasureReceipt

logger = logging.getLogger(__name__)

VACUUM_SCHEDULE = "erasure-vacuum"
VACUUM_TASK = "memory_core.tasks.run_erasure_vacuum"


ERASURE_VACUUM_DELAY_SECONDS = 60  # a burst of erasures (a list cleared one by one) shares one pass
# Readers of a table wait while it is rewritten: about 4 s for 32 MB of memories (docs/privacy.md).
ERASURE_REWRITE_NOW_MAX_MB = 32
# With the hourly check and the pass's own time, no erased byte stays on disk past 24 hours.
ERASURE_REWRITE_MAX_HOURS = 20
ERASURE_LOCK_TIMEOUT_SECONDS = 5.0  # a rewrite gives up rather than hold every reader; the next retries
# Transactions older than the erasure (they may still see its rows) get this long to finish.
ERASURE_SNAPSHOT_WAIT_SECONDS = 30.0


@dataclass
class PassReport:
    """What a pass did, for the command's output, the task's result and the log (names only)."""

    rewritten: list[str] = field(default_factory=list)
    vacuumed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # table → why
    notes: list[str] = field(default_factory=list)
    statistics_cleared: list[str] = field(default_factory=list)
    wal_retired: bool = False
    receipts_vacuumed: int = 0
    receipts_rewritten: int = 0
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """Every table rewritten and nothing skipped: no erased byte left in a table file."""
        return not self.vacuumed and not self.skipped

    def as_dict(self) -> dict[str, object]:
        return {
            "rewritten": len(self.rewritten),
            "vacuumed": len(self.vacuumed),
            "skipped": self.skipped,
            "notes": self.notes,
            "statistics_cleared": self.statistics_cleared,
            "wal_retired": self.wal_retired,
            "receipts_vacuumed": self.receipts_vacuumed,
            "receipts_rewritten": self.receipts_rewritten,
            "seconds": round(self.seconds, 2),
        }


# --- Requests (debounce) ---------------------------------------------------------------------------


def compaction_request() -> Schedule:
    """Ask for a vacuum pass soon. A pass already waiting is shared: a burst of erasures costs one.

    A one-off django-q schedule named `erasure-vacuum` is the debounce: the cluster's scheduler
    turns it into a task at `next_run` and deletes it, so the next erasure asks for a new one. Rows,
    not timers, so it holds across processes and with synchronous test tasks alike.
    """
    return one_off_soon(
        name=VACUUM_SCHEDULE,
        func=VACUUM_TASK,
        seconds=tuned("ERASURE_VACUUM_DELAY_SECONDS", ERASURE_VACUUM_DELAY_SECONDS),
    )


def rewrite_due(*, now: datetime | None = None) -> bool:
    """The hourly check of the nightly rewrite: pending receipts, and the quiet hour or a deadline."""
    hour = int(settings.ERASURE_REWRITE_HOUR)
    if hour < 0:  # the operator runs `manage.py erasure_compact --rewrite` from cron instead
        return False
    now = now or timezone.now()
    oldest = ErasureReceipt.objects.filter(rewritten_at__isnull=True).order_by("created_at").first()
    if oldest is None:
        return False
    if timezone.localtime(now).hour == hour:
        return True
    return now - oldest.created_at >= timedelta(
        hours=tuned("ERASURE_REWRITE_MAX_HOURS", ERASURE_REWRITE_MAX_HOURS)
    )


# --- The pass ----------------------------------------------------------------------------------


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def erasable_tables() -> list[tuple[str, int]]:
    """Every ordinary table of the schema with its total size (heap, TOAST, indexes), in bytes.

    Derived from the catalog, not listed by hand: any table may hold a copy of something erased
    (chat, jobs, admin log, django-q's queue), and rewriting a small table costs next to nothing.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm') ORDER BY c.relname"
        )
        return [(name, int(size)) for name, size in cursor.fetchall()]


def _older_snapshots(started: datetime) -> int:
    """Other sessions of this database holding a snapshot taken before the pass started."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL AND xact_start < %s",
            [started],
        )
        return int(cursor.fetchone()[0])


def _wait_for_older_snapshots(started: datetime, report: PassReport) -> bool:
    deadline = time.monotonic() + tuned("ERASURE_SNAPSHOT_WAIT_SECONDS", ERASURE_SNAPSHOT_WAIT_SECONDS)
    while True:
        count = _older_snapshots(started)
        if not count:
            return True
        if time.monotonic() >= deadline:
            report.notes.append(
                f"{count} transaction(s) older than the pass still running: erased rows they may "
                "see are kept by VACUUM; the receipts stay pending."
            )
            return False
        time.sleep(0.2)


def _execute(sql: str, params: list[str] | None = None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _vacuum(table: str, *, full: bool, report: PassReport) -> None:
    options = "FULL, ANALYZE" if full else "ANALYZE, INDEX_CLEANUP ON"
    try:
        _execute(f"VACUUM ({options}) {_quote(table)}")
    except DatabaseError as exc:
        # Lock timeout (a long reader), or no privilege on a table someone else owns.
        report.skipped[table] = type(getattr(exc, "__cause__", None) or exc).__name__
        logger.warning("erasure pass: %s of %s failed: %s", options, table, type(exc).__name__)
        return
    (report.rewritten if full else report.vacuumed).append(table)


def _clear_stale_statistics(tables: list[str], report: PassReport) -> None:
    """ANALYZE of a table that has no row left keeps its old most-common values: clear them."""
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {_quote(table)})")  # noqa: S608
            if cursor.fetchone()[0]:
                continue
            cursor.execute(
                "SELECT attname FROM pg_stats WHERE schemaname = current_schema() AND tablename = %s",
                [table],
            )
            columns = [name for (name,) in cursor.fetchall()]
            try:
                for column in columns:
                    # PostgreSQL 18; needs the MAINTAIN privilege on the table (its owner has it).
                    cursor.execute(
                        "SELECT pg_clear_attribute_stats(current_schema(), %s, %s, false)", [table, column]
                    )
            except DatabaseError:
                report.notes.append(f"statistics of the empty table {table} could not be cleared")
                continue
            if columns:
                report.statistics_cleared.append(table)


def _rewrite_catalog_and_wal(report: PassReport) -> None:
    """Rewrite pg_statistic (old statistics rows are dead tuples too), then retire the WAL."""
    for sql, what in (
        ("VACUUM FULL pg_catalog.pg_statistic", "pg_statistic not rewritten"),
        ("SELECT pg_switch_wal()", "WAL not switched"),
        ("CHECKPOINT", "no checkpoint"),
    ):
        try:
            _execute(sql)
        except DatabaseError as exc:
            # An external server where the app's role lacks the privilege: the operator's job.
            report.notes.append(f"{what} ({type(exc).__name__}); see docs/privacy.md")
            return
    report.wal_retired = True


def compaction_run(*, rewrite_all: bool = False) -> PassReport:
    """One disk pass (module docstring): `rewrite_all` is the nightly one, else the vacuum pass."""
    if connection.in_atomic_block:
        raise MemoryServiceError("The disk pass runs VACUUM, which cannot run inside a transaction.")
    clock = time.monotonic()
    report = PassReport()
    started = timezone.now()
    # Receipts visible now belong to committed erasures: their rows are dead for every later snapshot.
    cutoff = ErasureReceipt.objects.aggregate(last=Max("pk"))["last"] or 0
    snapshots_clear = _wait_for_older_snapshots(started, report)
    limit = tuned("ERASURE_REWRITE_NOW_MAX_MB", ERASURE_REWRITE_NOW_MAX_MB) * 1024 * 1024
    timeout_ms = int(tuned("ERASURE_LOCK_TIMEOUT_SECONDS", ERASURE_LOCK_TIMEOUT_SECONDS) * 1000)
    tables = erasable_tables()
    _execute("SET lock_timeout = %s", [f"{timeout_ms}ms"])
    try:
        for table, size in tables:
            _vacuum(table, full=rewrite_all or size <= limit, report=report)
        _clear_stale_statistics([t for t, _ in tables if t not in report.skipped], report)
        if report.complete:
            _rewrite_catalog_and_wal(report)
    finally:
        _execute("RESET lock_timeout")
    now = timezone.now()
    pending = ErasureReceipt.objects.filter(pk__lte=cutoff)
    report.receipts_vacuumed = pending.filter(vacuumed_at__isnull=True).update(vacuumed_at=now)
    if report.complete and snapshots_clear:
        report.receipts_rewritten = pending.filter(rewritten_at__isnull=True).update(rewritten_at=now)
    report.seconds = time.monotonic() - clock
    logger.info(
        "erasure disk pass: %d rewritten, %d vacuumed, %d skipped, WAL %s, %d receipts done, %.1fs",
        len(report.rewritten),
        len(report.vacuumed),
        len(report.skipped),
        "retired" if report.wal_retired else "kept",
        report.receipts_rewritten,
        report.seconds,
    )
    return report
