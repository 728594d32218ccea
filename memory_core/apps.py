from django.apps import AppConfig


class MemoryCoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory_core"
    verbose_name = "Memory engine"

    def ready(self) -> None:
        # A misspelt RECALL_COMPONENTS stops the process at start, not every recall with a 500.
        from memory_core.recall import recall_components

        recall_components()
