"""`manage.py issue_user_token <username>` — a personal API token (replaces the previous one an
operator issued; the tokens a person made for their own clients stay)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.services import user_token_issue


class Command(BaseCommand):
    help = "Issue a personal API token: it reaches only this user's own memories."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"], is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {options['username']!r}.")
        issued = user_token_issue(user=user)
        self.stderr.write(
            f"Token {issued.token.prefix}… for {user.get_username()} (shown once, stored only as a hash; "
            "the previous one an operator issued no longer works):"
        )
        self.stdout.write(issued.key)
