from django.apps import AppConfig


class MemoryCoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory_core"
    verbose_name = "Memory engine"
