"""Django's PostgreSQL backend, pointed at the embedded server that it starts on first connect."""

from __future__ import annotations

from typing import Any

from config.embedded_postgres import ensure_server
from config.postgres import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        # NAME of the main database (not the test one) is created if missing; the test
        # database is created by Django itself through the same server.
        main_db = self.settings_dict.get("EMBEDDED_MAIN_DB") or "postgres"
        params["host"] = ensure_server(self.settings_dict["PGDATA"], main_db)
        params.pop("port", None)
        return params
