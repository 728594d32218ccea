import sys

from django.apps import AppConfig
from django.utils.translation import gettext_lazy

from memory_core.judgement import medicines
from memory_core.judgement.encoder import encoder, safety_encoder
from memory_core.judgement.model import models


class MemoryCoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory_core"
    verbose_name = gettext_lazy("Memory engine")

    def ready(self) -> None:
        # A misspelt RECALL_COMPONENTS stops the process at start, not every recall with a 500.
        # lazy: apps.py is imported before the models it would load (Django's app registry)
        from memory_core.recall.scoring import recall_components

        recall_components()
        # The judgement models are read and checked against their checksums once, at start: a
        # changed or damaged file stops the process instead of deciding what the write path keeps.
        # Training writes new ones, so it is the one command that starts without them.
        if sys.argv[1:2] != ["train_judgement"]:
            models()
            encoder()
            safety_encoder()
            medicines.names()
