# The entity graph's version per namespace, for recall's in-memory copy of each graph
# (`memory_core.entities.graph_cache`): every statement that inserts, updates or deletes an entity,
# relation, mention or relation support moves the namespace's `graph_version` to a new value of a
# sequence. A sequence never hands out a value twice, even when the transaction that took it rolls
# back, so a version names one state of a graph; triggers catch every path that writes these
# tables (the pipeline, corrections, merges, erasure, imports, the admin), where code could forget
# one. Statement triggers with transition tables: one UPDATE a statement, not one a row. The walk
# moves to Python over the cached graph, so the PL/pgSQL walk of 0019 is dropped.

import importlib

from django.db import migrations, models

SEQUENCE = "memory_graph_version_seq"
TABLES = (
    "memory_core_entity",
    "memory_core_relation",
    "memory_core_entitymention",
    "memory_core_relationsupport",
)

FUNCTION = """
CREATE FUNCTION memory_graph_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE memory_core_namespace SET graph_version = nextval('memory_graph_version_seq')
        WHERE id IN (SELECT namespace_id FROM new_rows);
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE memory_core_namespace SET graph_version = nextval('memory_graph_version_seq')
        WHERE id IN (SELECT namespace_id FROM old_rows);
    ELSE
        UPDATE memory_core_namespace SET graph_version = nextval('memory_graph_version_seq')
        WHERE id IN (SELECT namespace_id FROM old_rows UNION SELECT namespace_id FROM new_rows);
    END IF;
    RETURN NULL;
END
$$
"""

# PostgreSQL takes transition tables only on a trigger of one event: three triggers a table.
_EVENTS = (
    ("insert", "INSERT", "NEW TABLE AS new_rows"),
    ("update", "UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    ("delete", "DELETE", "OLD TABLE AS old_rows"),
)
TRIGGERS = [
    f"CREATE TRIGGER graph_version_{name} AFTER {event} ON {table} REFERENCING {tables} "
    "FOR EACH STATEMENT EXECUTE FUNCTION memory_graph_changed()"
    for table in TABLES
    for name, event, tables in _EVENTS
]
DROP_TRIGGERS = [f"DROP TRIGGER graph_version_{name} ON {table}" for table in TABLES for name, _, _ in _EVENTS]


def _walk_function() -> tuple[str, str]:
    walk = importlib.import_module("memory_core.migrations.0019_graph_function")
    return walk.FUNCTION, walk.DROP


class Migration(migrations.Migration):

    dependencies = [
        ('memory_core', '0021_halfvec_vectors'),
    ]

    operations = [
        migrations.AddField(
            model_name='namespace',
            name='graph_version',
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.RunSQL(
            [f"CREATE SEQUENCE {SEQUENCE}", FUNCTION, *TRIGGERS],
            [*DROP_TRIGGERS, "DROP FUNCTION memory_graph_changed()", f"DROP SEQUENCE {SEQUENCE}"],
        ),
        migrations.RunSQL(_walk_function()[1], _walk_function()[0]),
    ]
