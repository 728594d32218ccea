"""Two connections made to overlap on purpose (a barrier, not luck): one transaction holds its
locks while a second connection runs, until that one finishes or waits on a lock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connection, connections, transaction


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def waits_on_a_lock(pid: int) -> bool:
    # The activity view is read once per transaction unless its snapshot is cleared: a caller in a
    # transaction would see the first reading for ever.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return bool(row) and row[0] == "Lock"


def overlap(
    *, held: Callable[[], object], meanwhile: Callable[[], object], then: Callable[[], object] | None = None
) -> list[BaseException]:
    """`held` runs in a transaction; `meanwhile` starts on a second connection once it has; when
    that has finished or waits on a lock, the first transaction does `then` (if given) and commits.
    Returns what either side raised."""
    held_done = threading.Barrier(2, timeout=10)
    other_pid: list[int] = []
    other_done = threading.Event()
    errors: list[BaseException] = []

    def holder() -> None:
        try:
            with transaction.atomic():
                held()
                held_done.wait()
                deadline = time.monotonic() + 10
                while not other_done.is_set() and time.monotonic() < deadline:
                    if other_pid and waits_on_a_lock(other_pid[0]):
                        break
                    time.sleep(0.01)
                if then is not None:
                    then()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def other() -> None:
        try:
            other_pid.append(backend_pid())
            held_done.wait()
            meanwhile()
        except BaseException as exc:
            errors.append(exc)
        finally:
            other_done.set()
            connections.close_all()

    threads = [threading.Thread(target=holder), threading.Thread(target=other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return errors


def in_thread(work: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    """`work` in another thread (another request, its own connection); its result or error."""
    seen: dict[str, Any] = {}

    def run() -> None:
        try:
            seen["result"] = work()
        except BaseException as exc:
            seen["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, seen
