"""The forgetting job's settings, read at call time (so tests and `override_settings` see changes)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from memory_core.models import MemoryType

DEFAULT_HALF_LIFE_DAYS = 30.0
DEFAULT_DECAY_THRESHOLD = 0.05
DEFAULT_TTL_DAYS: dict[str, float | None] = {
    MemoryType.EPISODIC: 90,
    MemoryType.SEMANTIC: None,
    MemoryType.PROCEDURAL: None,
}
DEFAULT_MAX_CHANGES_PER_PASS = 500
DEFAULT_CONSOLIDATE_SIMILARITY = 0.92
DEFAULT_MAX_SHARE_PER_PASS = 0.1
# What a person would be hurt to lose: safety facts, who they are, their family, how they like
# things done. Never archived on their own (the user can still erase or hide them).
DEFAULT_PROTECTED_CATEGORIES = ("safety", "profile", "identity", "relationship", "family", "preference")


def half_life_base_days() -> float:
    days = float(getattr(settings, "FORGET_DECAY_HALF_LIFE_DAYS", DEFAULT_HALF_LIFE_DAYS))
    if days <= 0:
        raise ValueError("FORGET_DECAY_HALF_LIFE_DAYS must be positive.")
    return days


def decay_threshold() -> float:
    return float(getattr(settings, "FORGET_DECAY_THRESHOLD", DEFAULT_DECAY_THRESHOLD))


def ttl_days() -> dict[str, float | None]:
    """TTL in days per memory type (None: never), configured values over the defaults."""
    configured = getattr(settings, "MEMORY_TTL_DAYS", None) or {}
    ttls = {**DEFAULT_TTL_DAYS, **configured}
    for type_, days in ttls.items():
        if days is not None and float(days) <= 0:
            raise ValueError(f"MEMORY_TTL_DAYS[{type_!r}] must be positive or None.")
    return ttls


def consolidate_similarity() -> float:
    return float(getattr(settings, "CONSOLIDATE_SIMILARITY", DEFAULT_CONSOLIDATE_SIMILARITY))


def capacity_default() -> int | None:
    """Active entries a namespace may hold before the least valuable are archived (None: no limit)."""
    value = int(getattr(settings, "FORGET_CAPACITY", 0) or 0)
    if value < 0:
        raise ValueError("FORGET_CAPACITY must be 0 (no limit) or positive.")
    return value or None


def max_share_per_pass() -> float:
    share = float(getattr(settings, "FORGET_MAX_SHARE_PER_PASS", DEFAULT_MAX_SHARE_PER_PASS))
    if not 0 < share <= 1:
        raise ValueError("FORGET_MAX_SHARE_PER_PASS must be in (0, 1].")
    return share


def protected_categories() -> tuple[str, ...]:
    return tuple(getattr(settings, "FORGET_PROTECTED_CATEGORIES", DEFAULT_PROTECTED_CATEGORIES))


def cap(max_changes: int | None) -> int:
    value = (
        max_changes
        if max_changes is not None
        else getattr(settings, "FORGET_MAX_CHANGES_PER_PASS", DEFAULT_MAX_CHANGES_PER_PASS)
    )
    value = int(value)
    if value < 0:
        raise ValueError("max_changes must not be negative.")
    return value


def instant(now: datetime | None) -> datetime:
    if now is None:
        return timezone.now()
    if timezone.is_naive(now):
        raise ValueError("now must be timezone-aware.")
    return now
