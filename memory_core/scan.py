"""Where does a string still live? The scan behind `manage.py erasure_verify` and the erasure tests.

Four places, each reported separately:
- every column of every table of the schema, cast to text (text, JSON, arrays, tsvector …: nothing
  is skipped by type), django-q's tables and Django's admin log included;
- the planner statistics (`pg_stats`: most-common values and histograms of text columns);
- django-q's queued and finished tasks, decoded (their payloads are signed pickles);
- the server's files, when they are on this machine: every file of the database's directory
  (heap, TOAST, index, free-space maps), the WAL segments and the server log, searched as bytes.

The file scan matches the string's UTF-8 bytes, ignoring ASCII case. It cannot see inside values
PostgreSQL compressed (TOAST compresses values over about 2 kB), so a canary for a test of the
files should sit in a short text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.db.utils import DatabaseError
from django_q.models import OrmQ, Task

_CHUNK = 8 * 1024 * 1024


@dataclass
class ScanReport:
    marker: str
    columns: dict[str, list[str]] = field(default_factory=dict)  # table → columns
    statistics: list[str] = field(default_factory=list)  # "table.column"
    job_queue: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # paths relative to the data directory
    data_directory: str = ""  # "" when the server's files are not reachable from here

    @property
    def found(self) -> bool:
        return bool(self.columns or self.statistics or self.job_queue or self.files)

    def lines(self) -> list[str]:
        out = [f"table {t}: {', '.join(cols)}" for t, cols in sorted(self.columns.items())]
        out += [f"statistics {s}" for s in self.statistics]
        out += [f"job queue {j}" for j in self.job_queue]
        out += [f"file {f}" for f in self.files]
        return out


# Column types that can hold someone's words (a short number can also be part of a timestamp).
TEXT_TYPES = ("text", "character varying", "character", "json", "jsonb", "ARRAY", "tsvector", "bytea")


def scan_database(marker: str, *, text_only: bool = False) -> dict[str, list[str]]:
    """Every table and column of the schema whose text form contains `marker` (any case);
    with `text_only`, only columns that can hold text (for short markers such as a PIN)."""
    hits: dict[str, list[str]] = {}
    pattern = "%" + marker.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name = %s",
                [table],
            )
            for column, data_type in cursor.fetchall():
                if text_only and data_type not in TEXT_TYPES:
                    continue
                q = connection.ops.quote_name
                cursor.execute(
                    f"SELECT EXISTS (SELECT 1 FROM {q(table)} WHERE {q(column)}::text ILIKE %s)",  # noqa: S608
                    [pattern],
                )
                if cursor.fetchone()[0]:
                    hits.setdefault(table, []).append(column)
    return hits


def scan_statistics(marker: str) -> list[str]:
    """Columns whose planner statistics (most-common values, histogram) quote `marker`."""
    pattern = "%" + marker.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename, attname FROM pg_stats WHERE schemaname = current_schema() AND ("
            "most_common_vals::text ILIKE %s OR histogram_bounds::text ILIKE %s "
            "OR most_common_elems::text ILIKE %s) ORDER BY 1, 2",
            [pattern, pattern, pattern],
        )
        return [f"{table}.{column}" for table, column in cursor.fetchall()]


def scan_job_queue(marker: str) -> list[str]:
    """Queued and finished django-q tasks whose decoded payload or result mentions `marker`."""
    folded = marker.casefold()
    found = [f"queued {q.key}" for q in OrmQ.objects.all() if folded in repr(q.task).casefold()]
    for task in Task.objects.all():
        if folded in repr((task.func, task.args, task.kwargs, task.result)).casefold():
            found.append(f"task {task.id}")
    return found


def data_directory() -> Path | None:
    """The server's data directory if it is on this machine (the embedded server's always is)."""
    candidates: list[str] = []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('data_directory')")
            candidates.append(cursor.fetchone()[0])
    except DatabaseError:  # not a superuser nor pg_read_all_settings
        pass
    candidates.append(str(settings.DATABASES["default"].get("PGDATA") or ""))
    for candidate in candidates:
        path = Path(candidate) if candidate else None
        if path is not None and (path / "PG_VERSION").is_file():
            return path
    return None


def _file_contains(path: Path, needle: bytes) -> bool:
    overlap = len(needle) - 1
    tail = b""
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                window = (tail + chunk).lower()
                if needle in window:
                    return True
                tail = window[-overlap:] if overlap else b""
    except OSError:  # removed meanwhile (a WAL segment, a rewritten table's old file)
        return False
    return False


def scan_files(marker: str, root: Path) -> list[str]:
    """Files of this database, WAL segments and server logs under `root` that contain `marker`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
        oid = cursor.fetchone()[0]
    needle = marker.encode().lower()
    places = [root / "base" / str(oid), root / "pg_wal", root / "log"]
    found = []
    for place in places:
        files = sorted(p for p in place.rglob("*") if p.is_file()) if place.is_dir() else [place]
        for path in files:
            if path.is_file() and _file_contains(path, needle):
                found.append(str(path.relative_to(root)))
    return found


def erasure_scan(marker: str, *, files: bool = True) -> ScanReport:
    """Every place above where `marker` is found; `files=False` skips the server's files."""
    if not marker.strip():
        raise ValueError("Give a non-empty text to look for.")
    report = ScanReport(
        marker=marker,
        columns=scan_database(marker),
        statistics=scan_statistics(marker),
        job_queue=scan_job_queue(marker),
    )
    root = data_directory() if files else None
    if root is not None:
        try:  # write every dirty page to the files first, or the scan misses what is only in memory
            with connection.cursor() as cursor:
                cursor.execute("CHECKPOINT")
        except DatabaseError:
            pass  # no privilege: the files are scanned as they are
        report.data_directory = str(root)
        report.files = scan_files(marker, root)
    return report
