"""Shared fixtures: users (owner / other / operator trio) on the real embedded PostgreSQL."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model

# Playwright's sync API runs an event loop in the test thread; the ORM calls made next to it in
# the same test are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

pytest_plugins = ["tests.fixtures_openai", "tests.fixtures_browser", "tests.webhook_receiver"]


@pytest.fixture(scope="session", autouse=True)
def _embedding_model_exported() -> None:
    """Export the ONNX embedding model (once per checkout) before any test times anything."""
    from django.conf import settings

    if settings.EMBEDDING_RUNTIME == "onnx":
        from memory_core.onnx_embedding import ensure_exported

        ensure_exported()


@pytest.fixture(scope="session", autouse=True)
def _translations_compiled() -> None:
    """The .mo catalogues, as scripts/bootstrap writes them (for a pytest run that skipped it)."""
    from config.catalogues import compile_catalogues

    compile_catalogues()


@pytest.fixture
def make_user(db):
    User = get_user_model()

    def _make(username: str, **extra) -> object:
        return User.objects.create_user(username=username, password="pw-" + username, **extra)

    return _make


@pytest.fixture
def owner(make_user):
    return make_user("alice")


@pytest.fixture
def other_user(make_user):
    return make_user("bob")


@pytest.fixture
def operator(make_user):
    return make_user("olga", is_staff=True)


@pytest.fixture
def moderator(operator):
    """The staff operator of the trio, with the moderation permission."""
    from django.contrib.auth.models import Permission

    operator.user_permissions.add(Permission.objects.get(codename="moderate_memories"))
    # Django caches permissions on the instance; a fresh one sees the grant.
    return type(operator).objects.get(pk=operator.pk)
