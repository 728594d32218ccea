"""The user's clock: time counted in days on which the namespace was in use, not in calendar days.

A day counts ("an active day") when the namespace was recalled from (a chat turn, an API or MCP
search) or written to by its user, an API client or extraction from their conversations. Jobs,
operators and the system do not make a day active. The days are kept in `ActiveDay` (namespace,
date; no content), filled by `clock_refresh` from the recall log and the history, incrementally,
at the start of every forgetting pass.

An entry's age on the user's clock is the number of active days after the day of its last use:

    last_use = the latest of: when it was learned (recorded_at), last recalled (last_accessed_at),
               last confirmed (newest evidence row: said again, merged) and last restored by the user
    age      = active days of its namespace strictly after last_use's date, up to `now`'s date

So a namespace nobody touches does not age at all: a user back from a year away finds what they
left. Someone who uses the assistant every day ages at the calendar's pace, as before.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import connection, models, transaction

from memory_core.models import (
    ActiveDay,
    ActorKind,
    EventAction,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    RecallLog,
)

# Who makes a day active: someone using the memory, not maintenance.
ACTIVE_ACTORS = (ActorKind.USER, ActorKind.API, ActorKind.EXTRACTION)


def _table(model: type[models.Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def clock_refresh() -> int:
    """Record the active days found in the recall log and the history since the last refresh.

    Starts a day before the newest day already recorded (a transaction still open at midnight may
    commit late) and is idempotent (ON CONFLICT DO NOTHING); returns the rows added.
    """
    days = _table(ActiveDay)
    sql = f"""
        INSERT INTO {days} (namespace_id, day)
        SELECT namespace_id, (created_at AT TIME ZONE 'UTC')::date FROM {_table(RecallLog)}
         WHERE created_at >= %(since)s
        UNION
        SELECT namespace_id, (created_at AT TIME ZONE 'UTC')::date FROM {_table(MemoryEvent)}
         WHERE created_at >= %(since)s AND actor_kind = ANY(%(actors)s)
        ON CONFLICT (namespace_id, day) DO NOTHING
    """  # noqa: S608 - table names are quoted identifiers; values are parameters
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SELECT max(day) FROM {days}")  # noqa: S608
        newest = cursor.fetchone()[0]
        today = datetime.now(UTC).date()
        since = (
            datetime.combine(min(newest, today) - timedelta(days=1), datetime.min.time(), tzinfo=UTC)
            if newest is not None
            else datetime(1970, 1, 1, tzinfo=UTC)
        )
        cursor.execute(sql, {"since": since, "actors": [str(actor) for actor in ACTIVE_ACTORS]})
        return cursor.rowcount


def entry_column(name: str) -> str:
    return f"{_table(MemoryEntry)}.{connection.ops.quote_name(name)}"


def last_use_sql() -> str:
    """SQL for an entry's last use (see the module docstring); PostgreSQL's greatest() skips NULLs."""
    evidence, events = _table(MemoryEvidence), _table(MemoryEvent)
    entry_id = entry_column("id")
    return (
        f"greatest({entry_column('recorded_at')}, {entry_column('last_accessed_at')}, "  # noqa: S608
        f"(SELECT max(v.created_at) FROM {evidence} v WHERE v.entry_id = {entry_id}), "
        f"(SELECT max(ev.created_at) FROM {events} ev WHERE ev.entry_id = {entry_id} "
        f"AND ev.action = '{EventAction.RESTORED.value}'))"
    )


def active_days_since_sql(start_sql: str) -> str:
    """SQL counting the entry's namespace's active days after `start_sql`'s date, up to %(today)s.

    One parameter, the date of `now` (UTC), named by the caller's params order: pass `today(now)`.
    """
    return (
        f"(SELECT count(*) FROM {_table(ActiveDay)} d "  # noqa: S608 - quoted names only
        f"WHERE d.namespace_id = {entry_column('namespace_id')} "
        f"AND d.day > ({start_sql} AT TIME ZONE 'UTC')::date AND d.day <= %s)"
    )


def today(now: datetime) -> object:
    return now.astimezone(UTC).date()
