"""Fixtures shared by the engine's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def decay_by_retention_alone(settings):
    """Tests that pin the retention arithmetic: any faded entry may decay, as before the
    negligible-only defaults (those are tested in test_forgetting_value.py)."""
    settings.FORGET_DECAY_MAX_IMPORTANCE = 1.0
    settings.FORGET_DECAY_MIN_IDLE_DAYS = 0
    settings.FORGET_DECAY_TYPES = ["episodic", "semantic"]
