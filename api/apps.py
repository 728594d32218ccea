from django.apps import AppConfig
from django.utils.translation import gettext_lazy

# Registers the OpenAPI description of the tenant-key authentication with drf-spectacular.
from api import schema  # noqa: F401


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = gettext_lazy("REST API")
