"""System checks of the deployment (`manage.py check --deploy`) beyond Django's own."""

from __future__ import annotations

import stat
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register


@register(Tags.security, deploy=True)
def env_file_private(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    """The .env the settings read holds SECRET_KEY (sessions, sealed secrets): its owner's only."""
    path = settings.ENV_FILE
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return []
    if not mode & (stat.S_IRWXG | stat.S_IRWXO):
        return []
    return [
        Warning(
            f"{path} can be read by other users of this machine (mode {stat.filemode(mode)}); it holds "
            "SECRET_KEY, which signs sessions and seals the stored webhook secrets.",
            hint=f"chmod 600 {path}",
            id="config.W001",
        )
    ]
