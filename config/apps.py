"""`config` as an installed app, only so that its management commands (`qcluster`) are found."""

from django.apps import AppConfig


class ConfigConfig(AppConfig):
    name = "config"
    label = "config"
    verbose_name = "Configuration"
