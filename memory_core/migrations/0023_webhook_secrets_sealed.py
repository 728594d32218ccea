"""Webhook signing secrets encrypted at rest (`memory_core.sealed`): the columns become text, the
secrets already stored are sealed in place, then the field seals and opens them itself."""

from typing import Any

from django.db import migrations, models

import memory_core.sealed


def _rewrite(apps: Any, change: Any) -> None:
    # The historical model's fields are plain text at this step: values go in and out as they are.
    endpoints = apps.get_model("memory_core", "WebhookEndpoint")
    for pk, secret, previous in endpoints.objects.values_list("pk", "secret", "previous_secret"):
        endpoints.objects.filter(pk=pk).update(secret=change(secret), previous_secret=change(previous))


def seal_existing(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, memory_core.sealed.seal)


def open_existing(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, memory_core.sealed.unseal)


class Migration(migrations.Migration):
    dependencies = [("memory_core", "0022_graph_version")]

    operations = [
        migrations.AlterField(model_name="webhookendpoint", name="secret", field=models.TextField()),
        migrations.AlterField(
            model_name="webhookendpoint",
            name="previous_secret",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.RunPython(seal_existing, open_existing),
        migrations.AlterField(
            model_name="webhookendpoint", name="secret", field=memory_core.sealed.SealedTextField()
        ),
        migrations.AlterField(
            model_name="webhookendpoint",
            name="previous_secret",
            field=memory_core.sealed.SealedTextField(blank=True, default=""),
        ),
    ]
