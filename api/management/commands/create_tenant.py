"""`manage.py create_tenant <slug> --name "Acme" [--by <operator username>]`"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.services import tenant_create
from memory_core.errors import MemoryServiceError


class Command(BaseCommand):
    help = "Create a tenant (an app or organisation that integrates through API keys)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "slug", help="Lower-case letters, digits and hyphens; names its agents' namespaces."
        )
        parser.add_argument("--name", default="", help="Display name (default: the slug).")
        parser.add_argument("--by", default="", help="Username of the operator creating it.")

    def handle(self, *args: Any, **options: Any) -> None:
        creator = None
        if options["by"]:
            creator = get_user_model().objects.filter(username=options["by"]).first()
            if creator is None:
                raise CommandError(f"No user {options['by']!r}.")
        try:
            tenant = tenant_create(
                name=options["name"] or options["slug"], slug=options["slug"], created_by=creator
            )
        except MemoryServiceError as exc:
            raise CommandError(f"{exc.message} {exc.field_errors or ''}".strip()) from exc
        self.stdout.write(f"Created tenant {tenant.slug} ({tenant.name}).")
