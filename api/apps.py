from django.apps import AppConfig


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "REST API"

    def ready(self) -> None:
        # Registers the OpenAPI description of the tenant-key authentication with drf-spectacular.
        from api import schema  # noqa: F401
