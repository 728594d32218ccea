"""`manage.py revoke_user_token pt_1a2b3c4d` — a personal API token stops working at once."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.services import user_token_revoke
from memory_core.errors import NotFound


class Command(BaseCommand):
    help = "Revoke a personal API token by its prefix (as listed in the admin); recorded in the audit trail."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix", help="pt_ and 8 hex characters")
        parser.add_argument("--by", required=True, help="username of the operator revoking it (audited)")

    def handle(self, *args: Any, **options: Any) -> None:
        actor = get_user_model().objects.filter(username=options["by"]).first()
        if actor is None:
            raise CommandError(f"No user {options['by']!r}.")
        try:
            token = user_token_revoke(prefix=options["prefix"], actor=actor, reason="revoked by command")
        except NotFound as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"Revoked {token.prefix}… of {token.user}.")
