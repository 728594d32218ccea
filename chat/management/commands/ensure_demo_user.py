"""Create (or reset) the demo login and print how to sign in."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from config import conf


class Command(BaseCommand):
    help = "Create or reset the demo user and print its password."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="Where the app is served.")

    def handle(self, *args: Any, url: str, **options: Any) -> None:
        username = conf.load().DEMO_USERNAME
        password = conf.load().DEMO_PASSWORD or self._stored_password()
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username)
        user.set_password(password)
        user.save(update_fields=["password"])
        verb = "Created" if created else "Reset"
        self.stdout.write(self.style.SUCCESS(f"{verb} the demo login. Open {url} and sign in as:"))
        self.stdout.write(f"    username: {username}\n    password: {password}")

    def _stored_password(self) -> str:
        # Kept in var/ (git-ignored) so the printed password stays the same across runs.
        path = Path(settings.BASE_DIR) / "var" / "demo_password"
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        password = secrets.token_urlsafe(12)
        path.write_text(password + "\n")
        path.chmod(0o600)
        return password
