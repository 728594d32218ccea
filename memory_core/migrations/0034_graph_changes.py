# What changed in each namespace's graph, version by version, so that recall's copy of a graph
# (`memory_core.entities.graph_cache`) applies the rows changed since the version it holds
# instead of reading the whole graph again after every write that names someone. The trigger
# function of 0022 (one statement trigger per table and event) now also logs each changed row's
# id at the version the statement gave its namespace: taken from the same UPDATE of the
# namespace row, whose row lock orders the writers of one namespace (a writer that waited for
# the lock draws its version again once it has it), so every change committed after a copy was
# read carries a version above the copy's.

import importlib

import django.db.models.functions.datetime
from django.db import migrations, models

FUNCTION = """
CREATE OR REPLACE FUNCTION memory_graph_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed_kind smallint := CASE TG_TABLE_NAME
        WHEN 'memory_core_entity' THEN 1
        WHEN 'memory_core_relation' THEN 2
        WHEN 'memory_core_entitymention' THEN 3
        ELSE 4
    END;
BEGIN
    IF TG_OP = 'INSERT' THEN
        WITH bumped AS (
            UPDATE memory_core_namespace SET graph_version = nextval('memory_graph_version_seq')
            WHERE id IN (SELECT namespace_id FROM new_rows) RETURNING id, graph_version
        )
        INSERT INTO memory_core_graphchange (namespace_id, version, kind, row_uuid, row_number)
        SELECT b.id, b.graph_version, changed_kind,
               CASE WHEN changed_kind <= 2 THEN r.id::text::uuid END,
               CASE WHEN changed_kind > 2 THEN r.id::text::bigint END
        FROM new_rows r JOIN bumped b ON b.id = r.namespace_id;
    ELSIF TG_OP = 'DELETE' THEN
        WITH bumped AS (
            UPDATE memory_core_namespace SET graph_version = nextval('memory_graph_version_seq')
            WHERE id IN (SELECT namespace_id FROM old_rows) RETURNING id, graph_version
        )
        INSERT INTO memory_core_graphchange (namespace_id, version, kind, row_uuid, row_number)
        SELECT b.id, b.graph_version, changed_kind,
               CASE WHEN changed_kind <= 2 THEN r.id::text::uuid END,
               CASE WHEN changed_kind > 2 THEN r.id::text::bigint END
        FROM old_rows r JOIN bumped b ON b.id = r.namespace_id;
    ELSE
        WITH changed AS (
            SELECT namespace_id, id::text AS id FROM old_rows
            UNION SELECT namespace_id, id::text FROM new_rows
        ), bumped AS (
            UPDATE memory_core_namespace SET graph_version = nextval('memory_graph_version_seq')
            WHERE id IN (SELECT namespace_id FROM changed) RETURNING id, graph_version
        )
        INSERT INTO memory_core_graphchange (namespace_id, version, kind, row_uuid, row_number)
        SELECT b.id, b.graph_version, changed_kind,
               CASE WHEN changed_kind <= 2 THEN r.id::uuid END,
               CASE WHEN changed_kind > 2 THEN r.id::bigint END
        FROM changed r JOIN bumped b ON b.id = r.namespace_id;
    END IF;
    RETURN NULL;
END
$$
"""


def _before() -> str:
    version = importlib.import_module("memory_core.migrations.0022_graph_version")
    return version.FUNCTION.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


class Migration(migrations.Migration):

    dependencies = [
        ('memory_core', '0033_start_known'),
    ]

    operations = [
        migrations.CreateModel(
            name='GraphChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('namespace_id', models.BigIntegerField()),
                ('version', models.BigIntegerField()),
                ('kind', models.SmallIntegerField(choices=[(1, 'Entity'), (2, 'Relation'), (3, 'Mention'), (4, 'Support')])),
                ('row_uuid', models.UUIDField(null=True)),
                ('row_number', models.BigIntegerField(null=True)),
                ('at', models.DateTimeField(db_default=django.db.models.functions.datetime.Now())),
            ],
            options={
                'indexes': [models.Index(fields=['namespace_id', 'version'], name='graph_change_since'), models.Index(fields=['at'], name='graph_change_at')],
            },
        ),
        migrations.RunSQL(FUNCTION, _before()),
    ]
