"""Production settings: a weak SECRET_KEY is refused with DEBUG off, and `manage.py check --deploy`
is clean with the environment docs/deploy.md documents."""

from __future__ import annotations

import secrets
import subprocess
import sys

import pytest

from tests.serving.processes import ROOT, production_env


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        cwd=ROOT,
        env=production_env(**env),
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.parametrize(
    "key",
    [
        "too-short-0123456789",
        "a" * 64,  # long, but not random
        "django-insecure-" + secrets.token_urlsafe(50),
        "insecure-development-key-do-not-use-in-production",
    ],
)
def test_a_weak_secret_key_is_refused_with_debug_off(key):
    done = _manage("check", SECRET_KEY=key)

    assert done.returncode != 0
    assert "SECRET_KEY must be a random string of at least 50 characters" in done.stderr


def test_check_deploy_is_clean_with_the_documented_environment():
    done = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="memory.example.com",
        CSRF_TRUSTED_ORIGINS="https://memory.example.com",
        SECURE_COOKIES="true",
        SECURE_HSTS_PRELOAD="true",
    )

    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout
