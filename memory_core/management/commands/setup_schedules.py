"""`manage.py setup_schedules`: install the repeating jobs of memory_core.schedules (safe to rerun)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from memory_core.schedules import install_schedules


class Command(BaseCommand):
    help = "Create or update the django-q2 schedules listed in memory_core.schedules."

    def handle(self, *args: Any, **options: Any) -> None:
        installed = install_schedules()
        if not installed:
            self.stdout.write("No schedules registered.")
            return
        for schedule, created in installed:
            verb = "Created" if created else "Updated"
            self.stdout.write(
                self.style.SUCCESS(f"{verb} {schedule.name}: {schedule.func} every {schedule.minutes} min")
            )
