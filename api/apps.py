from django.apps import AppConfig

# Registers the OpenAPI description of the tenant-key authentication with drf-spectacular.
from api import schema  # noqa: F401


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "REST API"
