"""`manage.py issue_api_key --tenant <slug> --scopes read,write [--name label]` — prints the key once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from api.models import Tenant
from api.services import api_key_issue
from memory_core.errors import MemoryServiceError


class Command(BaseCommand):
    help = "Issue an API key for a tenant. The key is shown once and stored only as a hash."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True)
        parser.add_argument(
            "--scopes", default="read,write", help="Comma-separated: read, write, erase, moderate."
        )
        parser.add_argument("--name", default="", help="A label, e.g. the service that uses it.")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(f"No tenant {options['tenant']!r}.")
        scopes = [scope.strip() for scope in options["scopes"].split(",") if scope.strip()]
        try:
            key, plaintext = api_key_issue(tenant=tenant, scopes=scopes, name=options["name"])
        except MemoryServiceError as exc:
            raise CommandError(f"{exc.message} {exc.field_errors}") from exc
        self.stderr.write(
            f"Key {key.prefix} for {tenant.slug}, scopes {','.join(key.scopes)}. "
            "Store it now; it is not shown again:"
        )
        self.stdout.write(plaintext)
