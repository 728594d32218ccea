"""`manage.py revoke_api_key <prefix>` (e.g. mk_1a2b3c4d)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.services import api_key_revoke
from memory_core.errors import NotFound


class Command(BaseCommand):
    help = "Revoke an API key by its prefix; requests with it fail with 401 from now on."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            key = api_key_revoke(prefix=options["prefix"])
        except NotFound as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(
            f"Revoked {key.prefix} of {key.tenant.slug} at {key.revoked_at:%Y-%m-%d %H:%M:%S %Z}."
        )
