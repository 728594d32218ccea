"""`config` as an installed app, so that its management commands (`qcluster`) and its deployment
checks (`config.checks`) are found."""

from django.apps import AppConfig

from config import checks  # noqa: F401  # registers the checks


class ConfigConfig(AppConfig):
    name = "config"
    label = "config"
    verbose_name = "Configuration"
