# A Chinese memory's search copy also holds its key's topic words (memory_core.topics, through
# memory_core.language.search_copies): recompute the copies of existing keyed Chinese rows. The
# BM25 statistics follow through 0016's update trigger, which watches both copies.

from django.db import migrations

from memory_core.language import CJK_CLASS, search_copies


def add_topic_terms(apps, schema_editor):
    entry_model = apps.get_model("memory_core", "MemoryEntry")
    rows = (
        entry_model.objects.exclude(key="")
        .filter(content__regex=CJK_CLASS)
        .only("id", "content", "search_context", "key", "search_text", "search_context_text")
        .order_by("pk")
    )
    batch = []
    for entry in rows.iterator(chunk_size=2000):
        copies = search_copies(entry.content, entry.search_context, entry.key)
        if copies != (entry.search_text, entry.search_context_text):
            entry.search_text, entry.search_context_text = copies
            batch.append(entry)
        if len(batch) >= 500:
            entry_model.objects.bulk_update(batch, ["search_text", "search_context_text"])
            batch = []
    if batch:
        entry_model.objects.bulk_update(batch, ["search_text", "search_context_text"])


def drop_topic_terms(apps, schema_editor):
    """Back to the copies without topic words (0016's)."""
    from memory_core.language import search_text

    entry_model = apps.get_model("memory_core", "MemoryEntry")
    rows = (
        entry_model.objects.exclude(key="")
        .filter(content__regex=CJK_CLASS)
        .only("id", "content", "search_context")
    )
    batch = []
    for entry in rows.iterator(chunk_size=2000):
        entry.search_text, entry.search_context_text = (
            search_text(entry.content),
            search_text(entry.search_context),
        )
        batch.append(entry)
    for start in range(0, len(batch), 500):
        entry_model.objects.bulk_update(batch[start : start + 500], ["search_text", "search_context_text"])


class Migration(migrations.Migration):
    dependencies = [
        ("memory_core", "0017_entities"),
    ]

    operations = [migrations.RunPython(add_topic_terms, drop_topic_terms)]
