"""What an erasure leaves of the graph: the mentions and support rows of the erased entries went
with them (foreign-key cascade); here the relations left without support go, then the entities
left with neither mentions nor relations, and the survivors' names and aliases are re-derived
from the mentions that remain, so no word of an erased memory stays behind. An ending whose
statement went ("I divorced Marco" erased or corrected) is withdrawn: the relation ends at the
ending another statement still gives, or holds again."""

from __future__ import annotations

from django.db import connection
from django.db.models import Min

from memory_core.entities.models import Entity, EntityMention, Relation, RelationEnding, RelationSupport
from memory_core.entities.vocabulary import SINGLE_VALUED, RelationStatus


def entities_prune(*, namespace_ids: list[int]) -> int:
    """Delete what no memory supports any more in these namespaces; the number of rows deleted."""
    if not namespace_ids:
        return 0
    endings_withdrawn(namespace_ids=namespace_ids)
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


def endings_withdrawn(*, namespace_ids: list[int]) -> int:
    """Relations that lost an ending's statement (`RelationEnding.entry` set to null) end at the
    earliest ending left, or, with none left, hold again: current, unless a newer relation of a
    single-valued predicate took their place meanwhile, which then closes them as a supersede
    would. The number of relations whose window changed."""
    withdrawn = RelationEnding.objects.filter(namespace_id__in=namespace_ids, entry__isnull=True)
    relation_ids = set(withdrawn.values_list("relation_id", flat=True))
    if not relation_ids:
        return 0
    withdrawn.delete()
    left = dict(
        RelationEnding.objects.filter(relation_id__in=relation_ids)
        .values("relation_id")
        .annotate(first=Min("at"))
        .values_list("relation_id", "first")
    )
    changed = 0
    for relation in Relation.objects.filter(pk__in=relation_ids, superseded_by__isnull=True):
        if relation.pk in left:
            relation.valid_to = left[relation.pk]
        else:
            newer = _newer(relation)
            relation.valid_to = newer.valid_from if newer else None
            relation.superseded_by = newer
            relation.status = RelationStatus.SUPERSEDED if newer else RelationStatus.ACTIVE
        relation.save(update_fields=["valid_to", "status", "superseded_by"])
        changed += 1
    return changed


def _newer(relation: Relation) -> Relation | None:
    if relation.predicate not in SINGLE_VALUED:
        return None
    return (
        Relation.objects.filter(
            namespace_id=relation.namespace_id,
            subject_id=relation.subject_id,
            predicate=relation.predicate,
            status=RelationStatus.ACTIVE,
            valid_from__gte=relation.valid_from,
        )
        .exclude(pk=relation.pk)
        .order_by("valid_from")
        .first()
    )
