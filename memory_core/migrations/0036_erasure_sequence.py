# A sequence every erasure moves in its transaction, so that each process empties the caches in
# which it keeps users' words at its next write or recall after the erasure committed
# (`memory_core.process_caches`).

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memory_core", "0035_relation_endings"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE SEQUENCE IF NOT EXISTS memory_erasure_seq",
            reverse_sql="DROP SEQUENCE IF EXISTS memory_erasure_seq",
        ),
    ]
