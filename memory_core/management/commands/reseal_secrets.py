"""`manage.py reseal_secrets`: seal the stored secrets (webhook signing secrets, and large imports'
inputs still waiting for their jobs) again under the first configured key, the step of a key
rotation between adding the new key and dropping the old one (docs/deploy.md). Safe to run again
at any time."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from memory_core.imports.intake import pending_inputs_reseal
from memory_core.webhooks.services import endpoint_secrets_reseal


class Command(BaseCommand):
    help = (
        "Re-encrypt stored webhook secrets and waiting import inputs under the first key of "
        "SEALING_KEYS (or SECRET_KEY)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        count = endpoint_secrets_reseal()
        self.stdout.write(f"Sealed again: the secrets of {count} webhook endpoint(s).")
        inputs = pending_inputs_reseal()
        self.stdout.write(f"Sealed again: the inputs of {inputs} import(s) still being read.")
