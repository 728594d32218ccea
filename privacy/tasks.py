"""Scheduled privacy jobs (django-q2)."""

from __future__ import annotations

from privacy.bulk import pending_erasures_run


def erase_due() -> int:
    """The `privacy-pending-erasures` schedule: erase what is past its Undo window."""
    return pending_erasures_run()
