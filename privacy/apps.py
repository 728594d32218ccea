from django.apps import AppConfig
from django.utils.translation import gettext_lazy

from config.log_filters import install


class PrivacyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "privacy"
    verbose_name = gettext_lazy("Privacy")

    def ready(self) -> None:
        # No search term (nor any other query string) in the web servers' access logs.
        install()
