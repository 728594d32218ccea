"""The default organisation namespace (settings.DEFAULT_ORG_NAMESPACE), so that an operator can
approve a rule on a fresh install without creating a namespace first."""

from django.conf import settings
from django.db import migrations


def create(apps, schema_editor):  # type: ignore[no-untyped-def]
    Namespace = apps.get_model("memory_core", "Namespace")
    path = settings.DEFAULT_ORG_NAMESPACE
    if path:
        Namespace.objects.get_or_create(path=path, defaults={"kind": path.split("/", 1)[0]})


class Migration(migrations.Migration):
    dependencies = [
        ("privacy", "0001_initial"),
        ("memory_core", "0006_tombstones"),
    ]

    # Reversing leaves the namespace: it may hold approved procedures by then.
    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
