"""What an erasure leaves of the graph: the mentions and support rows of the erased entries went
with them (foreign-key cascade); here the relations left without support go, then the entities
left with neither mentions nor relations, and the survivors' names and aliases are re-derived
from the mentions that remain, so no word of an erased memory stays behind."""

from __future__ import annotations

from django.db import connection

from memory_core.entities.models import Entity, EntityMention, Relation, RelationSupport


def entities_prune(*, namespace_ids: list[int]) -> int:
    """Delete what no memory supports any more in these namespaces; the number of rows deleted."""
    if not namespace_ids:
        return 0
    deleted, _ = (
        Relation.objects.filter(namespace_id__in=namespace_ids)
        .exclude(pk__in=RelationSupport.objects.filter(namespace_id__in=namespace_ids).values("relation_id"))
        .delete()
    )
    orphans = (
        Entity.objects.filter(namespace_id__in=namespace_ids, is_self=False)
        .exclude(pk__in=EntityMention.objects.filter(namespace_id__in=namespace_ids).values("entity_id"))
        .exclude(pk__in=Relation.objects.filter(namespace_id__in=namespace_ids).values("subject_id"))
        .exclude(
            pk__in=Relation.objects.filter(namespace_id__in=namespace_ids, object__isnull=False).values(
                "object_id"
            )
        )
    )
    count, _ = orphans.delete()
    deleted += count
    # The self entity holds no words of the user's; it goes when nothing refers to it.
    count, _ = (
        Entity.objects.filter(namespace_id__in=namespace_ids, is_self=True)
        .exclude(pk__in=Relation.objects.filter(namespace_id__in=namespace_ids).values("subject_id"))
        .exclude(
            pk__in=Relation.objects.filter(namespace_id__in=namespace_ids, object__isnull=False).values(
                "object_id"
            )
        )
        .delete()
    )
    _rederive_aliases(namespace_ids)
    return deleted + count


def _rederive_aliases(namespace_ids: list[int]) -> None:
    """Aliases are exactly the surviving mentions' words; a name no mention uses any more is
    replaced by one that is still used (or, with none, the entity becomes unnamed)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE memory_core_entity e SET aliases = COALESCE(m.words, '{}'), updated_at = now()
            FROM memory_core_entity e2
            LEFT JOIN LATERAL (
                SELECT array_agg(DISTINCT surface ORDER BY surface) AS words
                FROM memory_core_entitymention WHERE entity_id = e2.id
            ) m ON true
            WHERE e.id = e2.id AND e.namespace_id = ANY(%s) AND NOT e.is_self
              AND e.aliases IS DISTINCT FROM COALESCE(m.words, '{}')
            """,
            [namespace_ids],
        )
        cursor.execute(
            """
            UPDATE memory_core_entity e
            SET name = COALESCE(
                    (SELECT initcap(a) FROM unnest(e.aliases) a ORDER BY length(a) DESC LIMIT 1), 'someone'),
                named = false, updated_at = now()
            WHERE e.namespace_id = ANY(%s) AND NOT e.is_self AND e.named
              AND NOT (lower(e.name) = ANY(e.aliases))
            """,
            [namespace_ids],
        )
