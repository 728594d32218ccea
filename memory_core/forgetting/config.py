"""The forgetting job's constants (tuned in code, config.tuning) and its one setting, the default
budget; read at call time, so tests and `override_settings` see changes."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from config.tuning import tuned
from memory_core.models import MemoryType

# An unused memory's value halves in a month of active days (more with use, evidence, confidence);
# `python -m bench forgetting` measures the whole policy on LoCoMo (docs/architecture.md).
FORGET_DECAY_HALF_LIFE_DAYS = 30.0
FORGET_DECAY_THRESHOLD = 0.05  # retention (1 down to 0) below which a memory counts as faded
# Decay alone (no budget pressure) only takes what is clearly negligible: low importance, an
# event rather than a fact, never recalled nor confirmed, idle this many active days.
FORGET_DECAY_MAX_IMPORTANCE = 0.3
FORGET_DECAY_MIN_IDLE_DAYS = 180
FORGET_DECAY_TYPES = (MemoryType.EPISODIC.value,)
# Events go stale in a season of active days; facts and rules hold until replaced.
MEMORY_TTL_DAYS: dict[str, float | None] = {
    MemoryType.EPISODIC: 90,
    MemoryType.SEMANTIC: None,
    MemoryType.PROCEDURAL: None,
}
FORGET_MAX_CHANGES_PER_PASS = 500  # a pass does bounded work; what is left waits for the next one
# Near-duplicates of one namespace above this cosine are merged, and only when `sameness` agrees.
CONSOLIDATE_SIMILARITY = 0.92
FORGET_MAX_SHARE_PER_PASS = 0.1  # forgetting stays gradual: no pass empties a namespace, whatever went wrong
# What a person would be hurt to lose: safety facts, who they are, their family, how they like
# things done. Never archived on their own (the user can still erase or hide them).
FORGET_PROTECTED_CATEGORIES = ("safety", "profile", "identity", "relationship", "family", "preference")


def half_life_base_days() -> float:
    days = float(tuned("FORGET_DECAY_HALF_LIFE_DAYS", FORGET_DECAY_HALF_LIFE_DAYS))
    if days <= 0:
        raise ValueError("FORGET_DECAY_HALF_LIFE_DAYS must be positive.")
    return days


def decay_threshold() -> float:
    return float(tuned("FORGET_DECAY_THRESHOLD", FORGET_DECAY_THRESHOLD))


def decay_max_importance() -> float:
    value = float(tuned("FORGET_DECAY_MAX_IMPORTANCE", FORGET_DECAY_MAX_IMPORTANCE))
    if not 0 <= value <= 1:
        raise ValueError("FORGET_DECAY_MAX_IMPORTANCE must be in [0, 1].")
    return value


def decay_min_idle_days() -> int:
    value = int(tuned("FORGET_DECAY_MIN_IDLE_DAYS", FORGET_DECAY_MIN_IDLE_DAYS))
    if value < 0:
        raise ValueError("FORGET_DECAY_MIN_IDLE_DAYS must not be negative.")
    return value


def decay_types() -> tuple[str, ...]:
    """Memory types decay may archive without budget pressure (procedural never)."""
    types = tuple(tuned("FORGET_DECAY_TYPES", FORGET_DECAY_TYPES))
    unknown = set(types) - set(MemoryType.values)
    if unknown:
        raise ValueError(f"FORGET_DECAY_TYPES: unknown type(s) {sorted(unknown)}.")
    return types


def ttl_days() -> dict[str, float | None]:
    """TTL in days per memory type (None: never), configured values over the defaults."""
    ttls = {**MEMORY_TTL_DAYS, **tuned("MEMORY_TTL_DAYS", {})}
    for type_, days in ttls.items():
        if days is not None and float(days) <= 0:
            raise ValueError(f"MEMORY_TTL_DAYS[{type_!r}] must be positive or None.")
    return ttls


def consolidate_similarity() -> float:
    return float(tuned("CONSOLIDATE_SIMILARITY", CONSOLIDATE_SIMILARITY))


def capacity_default() -> int | None:
    """Active entries a namespace may hold before the least valuable are archived (None: no limit)."""
    value = int(settings.FORGET_CAPACITY)
    if value < 0:
        raise ValueError("FORGET_CAPACITY must be 0 (no limit) or positive.")
    return value or None


def max_share_per_pass() -> float:
    share = float(tuned("FORGET_MAX_SHARE_PER_PASS", FORGET_MAX_SHARE_PER_PASS))
    if not 0 < share <= 1:
        raise ValueError("FORGET_MAX_SHARE_PER_PASS must be in (0, 1].")
    return share


def protected_categories() -> tuple[str, ...]:
    return tuple(tuned("FORGET_PROTECTED_CATEGORIES", FORGET_PROTECTED_CATEGORIES))


def cap(max_changes: int | None) -> int:
    value = int(
        max_changes
        if max_changes is not None
        else tuned("FORGET_MAX_CHANGES_PER_PASS", FORGET_MAX_CHANGES_PER_PASS)
    )
    if value < 0:
        raise ValueError("max_changes must not be negative.")
    return value


def instant(now: datetime | None) -> datetime:
    if now is None:
        return timezone.now()
    if timezone.is_naive(now):
        raise ValueError("now must be timezone-aware.")
    return now
