"""System checks of the deployment (`manage.py check --deploy`) beyond Django's own."""

from __future__ import annotations

import stat
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register

from config import conf


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


@register(deploy=True)
def no_ignored_variables(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    """A variable that used to tune the engine and is now a constant in code: setting it does nothing."""
    return [
        Warning(
            f"{name} is set in the environment but is no longer read: it is tuned in code now.",
            hint="Remove it; docs/configuration.md ('Tuned in code') says where its value lives and why.",
            id="config.W002",
        )
        for name in conf.ignored_variables()
    ]
