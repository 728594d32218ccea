# Full-text search reads Chinese segmented into words (memory_core.language): two columns hold the
# segmented statement and context (NULL when that is the text itself) and the generated tsvector
# reads them. Existing rows are segmented here; the BM25 statistics (0007's triggers) are rebuilt
# from the new vectors and their update trigger also watches the new columns.

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.functions.comparison
from django.db import migrations, models

from memory_core.language import search_text

STATS_FUNCTION = "memory_search_stats()"
DROP_TRIGGERS = """
DROP TRIGGER memory_search_stats_update ON memory_core_memoryentry;
DROP TRIGGER memory_search_stats_insert_delete ON memory_core_memoryentry;
"""
REBUILD_STATS = """
DELETE FROM memory_core_searchterm;
DELETE FROM memory_core_searchstats;
INSERT INTO memory_core_searchterm (namespace_id, term, entries)
    SELECT namespace_id, t, count(*) FROM memory_core_memoryentry, unnest(tsvector_to_array(search_vector)) AS t
    GROUP BY namespace_id, t;
INSERT INTO memory_core_searchstats (namespace_id, entries, total_length)
    SELECT namespace_id, count(*), coalesce(sum(length(search_vector)), 0) FROM memory_core_memoryentry
    GROUP BY namespace_id;
"""


def create_triggers(columns: str) -> str:
    return f"""
CREATE TRIGGER memory_search_stats_insert_delete AFTER INSERT OR DELETE ON memory_core_memoryentry
    FOR EACH ROW EXECUTE FUNCTION {STATS_FUNCTION};
CREATE TRIGGER memory_search_stats_update
    AFTER UPDATE OF {columns} ON memory_core_memoryentry
    FOR EACH ROW EXECUTE FUNCTION {STATS_FUNCTION};
"""


OLD_COLUMNS = "content, key, search_context, namespace_id"
NEW_COLUMNS = "content, key, search_context, search_text, search_context_text, namespace_id"


def segment_existing(apps, schema_editor):
    """Fill the segmented copies of every entry whose text has something to segment or fold."""
    entry_model = apps.get_model("memory_core", "MemoryEntry")
    batch = []
    rows = entry_model.objects.only("id", "content", "search_context").order_by("pk")
    for entry in rows.iterator(chunk_size=2000):
        entry.search_text = search_text(entry.content)
        entry.search_context_text = search_text(entry.search_context)
        if entry.search_text is not None or entry.search_context_text is not None:
            batch.append(entry)
        if len(batch) >= 500:
            entry_model.objects.bulk_update(batch, ["search_text", "search_context_text"])
            batch = []
    if batch:
        entry_model.objects.bulk_update(batch, ["search_text", "search_context_text"])


class Migration(migrations.Migration):
    dependencies = [
        ("memory_core", "0015_webhook_secret_grace"),
    ]

    operations = [
        migrations.RunSQL(DROP_TRIGGERS, REBUILD_STATS + create_triggers(OLD_COLUMNS)),
        migrations.AddField(
            model_name="memoryentry",
            name="search_context_text",
            field=models.TextField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="memoryentry",
            name="search_text",
            field=models.TextField(blank=True, editable=False, null=True),
        ),
        # PostgreSQL cannot change a generated column's expression: drop it (and its index), add it.
        migrations.RemoveIndex(model_name="memoryentry", name="memory_search_gin"),
        migrations.RemoveField(model_name="memoryentry", name="search_vector"),
        migrations.AddField(
            model_name="memoryentry",
            name="search_vector",
            field=models.GeneratedField(
                db_persist=True,
                expression=django.contrib.postgres.search.CombinedSearchVector(
                    django.contrib.postgres.search.SearchVector(
                        django.db.models.functions.comparison.Coalesce("search_text", "content"),
                        "key",
                        config="english",
                        weight="A",
                    ),
                    "||",
                    django.contrib.postgres.search.SearchVector(
                        django.db.models.functions.comparison.Coalesce("search_context_text", "search_context"),
                        config="english",
                        weight="D",
                    ),
                    django.contrib.postgres.search.SearchConfig("english"),
                ),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AddIndex(
            model_name="memoryentry",
            index=django.contrib.postgres.indexes.GinIndex(fields=["search_vector"], name="memory_search_gin"),
        ),
        migrations.RunPython(segment_existing, migrations.RunPython.noop),
        migrations.RunSQL(REBUILD_STATS + create_triggers(NEW_COLUMNS), DROP_TRIGGERS),
    ]
