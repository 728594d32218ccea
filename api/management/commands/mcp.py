"""`manage.py mcp --user NAME`: the MCP server over stdio, for desktop clients (Claude Desktop,
Cursor …) that start it as a child process. Every call acts for that user, as their personal token
would; no token is needed, since whoever can run this command can read the database anyway."""

from __future__ import annotations

from typing import Any

import anyio
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections

from api.auth import Caller
from api.mcp.callers import stdio_caller
from api.mcp.operations import VIA_STDIO
from api.mcp.server import build_server


class Command(BaseCommand):
    help = "Serve the memory tools over MCP on stdin/stdout, acting for one user."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="Username whose memories the client reaches.")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["user"], is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {options['user']!r}.")
        connections.close_all()  # each tool call opens its own, in a worker thread
        stdio_caller.set(Caller(user=user, auth=None))
        # Nothing may write to stdout but the protocol: the SDK points fd 1 at stderr while serving.
        anyio.run(build_server(via=VIA_STDIO).run_stdio_async)
