# Memory vectors in half precision (`memory_core.vector_storage`): both now fit in the row instead of
# TOAST (with the table's toast_tuple_target raised), and an exact scan of a namespace reads a
# quarter of the pages it did. The HNSW indexes are dropped first (their operator class is
# `vector`'s), the columns cast in place and the indexes built again with `halfvec_cosine_ops`. Changing a column's type rewrites the table and rebuilding an index reads all
# of it: an exclusive lock for their duration, as the nightly erasure rewrite takes (docs/deploy.md).

import memory_core.vector_storage
import pgvector.django.indexes
from django.conf import settings
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('memory_core', '0020_answer_style'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # A row is toasted past 2032 bytes by default: with both vectors (1.5 KB) a statement of a
        # few Chinese sentences already crossed it, and a vector went out of line. Up to 4080 bytes
        # (two rows a page) everything stays in the row; longer rows compress their text first.
        migrations.RunSQL(
            "ALTER TABLE memory_core_memoryentry SET (toast_tuple_target = 4080)",
            "ALTER TABLE memory_core_memoryentry RESET (toast_tuple_target)",
        ),
        migrations.RemoveIndex(
            model_name='memoryentry',
            name='memory_embedding_hnsw',
        ),
        migrations.RemoveIndex(
            model_name='memoryentry',
            name='memory_context_embedding_hnsw',
        ),
        migrations.AlterField(
            model_name='memoryentry',
            name='context_embedding',
            field=memory_core.vector_storage.HalfVectorField(blank=True, dimensions=384, null=True),
        ),
        migrations.AlterField(
            model_name='memoryentry',
            name='embedding',
            field=memory_core.vector_storage.HalfVectorField(blank=True, dimensions=384, null=True),
        ),
        migrations.AddIndex(
            model_name='memoryentry',
            index=pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['embedding'], m=16, name='memory_embedding_hnsw', opclasses=['halfvec_cosine_ops']),
        ),
        migrations.AddIndex(
            model_name='memoryentry',
            index=pgvector.django.indexes.HnswIndex(ef_construction=64, fields=['context_embedding'], m=16, name='memory_context_embedding_hnsw', opclasses=['halfvec_cosine_ops']),
        ),
    ]
