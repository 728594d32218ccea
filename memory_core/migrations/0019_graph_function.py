# The graph source of recall as a PL/pgSQL function (memory_core.entities.recall): its statement
# is parsed and planned once per connection and kept as a generic plan (plan_cache_mode on the
# function), where sent as text each recall it spent ~2 ms parsing and planning to run in ~0.2.

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION memory_graph_candidates(
    p_ns integer[], p_names varchar[], p_kin varchar[], p_terms varchar[], p_mine boolean,
    p_predicates varchar[], p_at timestamptz, p_asked float8, p_other float8, p_hops integer,
    p_common float8, p_support float8, p_floor float8, p_limit integer
) RETURNS TABLE (graph_entry_id uuid, graph_score float8)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
    RETURN QUERY
    WITH RECURSIVE edges AS MATERIALIZED (
        SELECT r.id, r.subject_id AS a, r.object_id AS b, r.predicate FROM memory_core_relation r
        WHERE r.namespace_id = ANY(p_ns) AND r.valid_from <= p_at
          AND (r.valid_to IS NULL OR r.valid_to > p_at)
    ), pairs AS MATERIALIZED (
        SELECT a, b, predicate FROM edges WHERE b IS NOT NULL
      UNION ALL
        SELECT b, a, predicate FROM edges WHERE b IS NOT NULL
    ), start AS MATERIALIZED (
        SELECT e.id, e.is_self, e.aliases && p_names AS named, e.aliases && p_kin AS kin
        FROM memory_core_entity e
        WHERE e.namespace_id = ANY(p_ns) AND (e.aliases && p_terms OR e.is_self)
    ), owners AS (
        SELECT id FROM start WHERE named AND NOT is_self
      UNION ALL
        SELECT id FROM start
        WHERE is_self AND (p_mine OR NOT EXISTS (SELECT 1 FROM start WHERE named AND NOT is_self))
    ), kin1 AS MATERIALIZED (
        SELECT p.b AS id FROM pairs p JOIN owners o ON o.id = p.a JOIN start k ON k.id = p.b
        WHERE k.kin AND NOT k.is_self
    ), seeds AS (
        SELECT id FROM start WHERE named AND NOT is_self
      UNION SELECT id FROM kin1
      UNION SELECT p.b FROM pairs p JOIN kin1 ON kin1.id = p.a JOIN start k ON k.id = p.b
            WHERE k.kin AND NOT k.is_self
    ), walk(entity_id, hop, weight) AS (
        SELECT id, 0, LEAST(1.0, p_common::float / GREATEST(1, (
            SELECT count(*) FROM memory_core_entitymention c WHERE c.entity_id = seeds.id
        ))) FROM seeds
      UNION ALL
        SELECT p.b, w.hop + 1,
               w.weight * CASE WHEN p.predicate = ANY(p_predicates) THEN p_asked ELSE p_other END
               * LEAST(1.0, p_common::float / GREATEST(1, (
                   SELECT count(*) FROM memory_core_entitymention c WHERE c.entity_id = p.b
               )))
        FROM walk w JOIN pairs p ON p.a = w.entity_id JOIN memory_core_entity n ON n.id = p.b
        WHERE w.hop < p_hops AND NOT n.is_self
    ), reached AS MATERIALIZED (
        SELECT entity_id, max(weight) AS weight FROM walk GROUP BY entity_id
    )
    SELECT entry_id, max(score) AS score FROM (
        SELECT m.entry_id, b.weight AS score
        FROM reached b JOIN memory_core_entitymention m ON m.entity_id = b.entity_id
      UNION ALL
        SELECT s.entry_id, b.weight * p_support
        FROM reached b JOIN edges r ON r.a = b.entity_id OR r.b = b.entity_id
        JOIN memory_core_relationsupport s ON s.relation_id = r.id
    ) hits
    GROUP BY entry_id HAVING max(score) >= p_floor
    ORDER BY score DESC, entry_id LIMIT p_limit;
END
$$
"""

DROP = """
DROP FUNCTION IF EXISTS memory_graph_candidates(
    integer[], varchar[], varchar[], varchar[], boolean, varchar[], timestamptz, float8, float8,
    integer, float8, float8, float8, integer
)
"""


class Migration(migrations.Migration):
    dependencies = [("memory_core", "0018_topic_terms")]

    operations = [migrations.RunSQL(FUNCTION, DROP)]
