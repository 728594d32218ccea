"""The servers of these tests run the production settings, whose cache is the database's table."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.test import override_settings

PRODUCTION_CACHE = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "cache"}
}


@pytest.fixture(scope="session", autouse=True)
def _production_cache_table(django_db_setup, django_db_blocker) -> None:
    # The test settings keep a per-process cache; the servers started here share the table.
    with django_db_blocker.unblock(), override_settings(CACHES=PRODUCTION_CACHE):
        call_command("createcachetable", verbosity=0)
