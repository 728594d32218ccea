"""Tasks run by the real clusters of tests/serving (imported by dotted path in their workers)."""

from __future__ import annotations

import os
import time


def mark_and_wait(path: str, seconds: float) -> str:
    """Write who started, wait, write who finished: the file tells how often the task ran."""
    with open(path, "a") as out:
        out.write(f"start {os.getpid()}\n")
    time.sleep(seconds)
    with open(path, "a") as out:
        out.write(f"done {os.getpid()}\n")
    return "done"


def mark_and_fail(path: str) -> None:
    """Write who ran, then fail."""
    with open(path, "a") as out:
        out.write(f"fail {os.getpid()}\n")
    raise RuntimeError("failed on purpose")
