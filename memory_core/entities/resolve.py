"""Entity resolution inside one namespace, never across: a `Ref` ("Ana", "my sister",
"my sister Ana", "Ana's husband") to the stored `Entity` it means, created when there is none.

Order of evidence: the namespace's own user for "I / my / 我"; an entity already called by the
name (its aliases), preferring the one the owner has that kin relation to; for a kin word with no
name, the entity the owner currently has that relation to (so "my sister" is Ana once "my sister
Ana" was said); an unnamed entity known only by that kin word takes the first name given. A new
organisation or place whose name's embedding is nearly that of a known one of the same kind is
that one (`EMBEDDING_MERGE_SIMILARITY`). A person's given name and full name are one person when
the namespace knows only one such ("Tom" and "Tom Hargreaves", "建国" and "林建国": `_by_given_name`).
Callers hold the namespace lock (the write pipeline's).
"""

from __future__ import annotations

from typing import Any

from django.db.models import BooleanField, Q
from django.db.models.expressions import RawSQL
from pgvector.django import CosineDistance

from memory_core import prepared
from memory_core.embeddings import get_embedder
from memory_core.entities.kinship import is_plural, kin, label_said, names_a_group
from memory_core.entities.models import NAME_MAX_CHARS, Entity, Relation
from memory_core.entities.names import given_name
from memory_core.entities.rules import Ref
from memory_core.entities.vocabulary import SINGLE_VALUED, EntityKind, Predicate, RelationStatus
from memory_core.language import is_chinese

SELF_NAME = "the user"
EMBEDDING_MERGE_SIMILARITY = 0.93
# Kinds a name may be resolved across: "Rex" said as a pet and later as "Rex" the person is one.
_COMPATIBLE: dict[str, set[str]] = {
    EntityKind.PERSON: {EntityKind.PERSON, EntityKind.OTHER},
    EntityKind.PET: {EntityKind.PET, EntityKind.PERSON, EntityKind.OTHER},
    EntityKind.ORGANISATION: {EntityKind.ORGANISATION, EntityKind.OTHER},
    EntityKind.PLACE: {EntityKind.PLACE, EntityKind.OTHER},
}


def alias_of(text: str) -> str:
    return " ".join(text.split()).lower()[:NAME_MAX_CHARS]


def surfaces(ref: Ref) -> list[str]:
    """The words a ref was named by: its name, the kin word said and its English label."""
    words = [ref.name] if ref.name else []
    if ref.kin:
        words.append(ref.kin)
        if kin(ref.kin):
            words.append(label_said(ref.kin))
    return list(dict.fromkeys(alias_of(w) for w in words if w.strip()))


def _named(namespace_id: int, alias: str, kinds: tuple[str, ...]) -> Any:
    """The entity of `kinds` called `alias`, the latest updated (`Resolver._by_name`; compiled
    once: `prepared`)."""
    return Entity.objects.filter(
        namespace_id=namespace_id, is_self=False, aliases__contains=[alias], kind__in=kinds
    ).order_by("-updated_at")[:1]


class Resolver:
    """Resolves the refs of one or more statements of a namespace; remembers what it resolved."""

    def __init__(self, namespace_id: int) -> None:
        self.namespace_id = namespace_id
        self._self: Entity | None = None
        self._seen: dict[Ref, Entity] = {}
        self.created: list[Entity] = []
        # Entities that got their name here (created with it, or known till now by a kin word only):
        # what was said of that name before is looked for (`hooks.earlier_mentions`).
        self.named: list[Entity] = []

    def self_entity(self) -> Entity:
        if self._self is None:
            self._self, _ = Entity.objects.get_or_create(
                namespace_id=self.namespace_id,
                is_self=True,
                defaults={"kind": EntityKind.PERSON, "name": SELF_NAME},
            )
        return self._self

    def resolve(self, ref: Ref) -> Entity:
        if ref.is_self:
            return self.self_entity()
        if ref not in self._seen:
            self._seen[ref] = self._resolve(ref)
        return self._seen[ref]

    def _resolve(self, ref: Ref) -> Entity:
        owner = self.resolve(ref.owner) if ref.kin else None
        found = kin(ref.kin) if ref.kin else None
        related = self._related(owner, found[0], found[1]) if owner is not None and found else []
        # "my friends" and "my friend Lena" share a relation, not an entity (`names_a_group`).
        related = [e for e in related if (not e.named and names_a_group(e.aliases)) == is_plural(ref.kin)]
        if ref.name:
            entity = self._by_name(ref, related)
            if entity is None and owner is not None and found is not None:
                unnamed = [e for e in related if not e.named and self._fills(owner, e, found[0], ref)]
                entity = unnamed[0] if unnamed else None
                if entity is not None:
                    entity.name, entity.named = ref.name[:NAME_MAX_CHARS], True
                    entity.save(update_fields=["name", "named", "updated_at"])
                    self.named.append(entity)
            return entity or self._create(ref, named=True)
        if related:
            return related[0]
        return self._create(ref, named=False)

    def _related(self, owner: Entity, predicate: str, label: str) -> list[Entity]:
        """The entities `owner` currently has this relation to, the latest first; for a kin word
        whose label fixes the meaning ("sister"), only those of that label. One has one boss, one
        husband at a time, whatever the word ("my boss" and "my manager"): any label then."""
        relations = (
            Relation.objects.filter(
                namespace_id=self.namespace_id,
                subject=owner,
                predicate=predicate,
                status=RelationStatus.ACTIVE,
                object__isnull=False,
            )
            .select_related("object")
            .order_by("-valid_from")
        )
        if predicate not in SINGLE_VALUED:
            relations = relations.filter(Q(label=label) | Q(label=""))
        return [r.object for r in relations if r.object is not None]

    def _fills(self, owner: Entity, unnamed: Entity, predicate: str, ref: Ref) -> bool:
        """Whether a name said now names `unnamed`, known so far only by a kin word. A boss or
        colleague said with a workplace ("my manager at Halden is Rebecca") is the "my boss" said
        before only if that one was not said to work elsewhere, and the owner has not changed
        jobs since it was said (a new job's manager is someone else)."""
        if predicate not in (Predicate.MANAGER, Predicate.COLLEAGUE):
            return True
        jobs = Relation.objects.filter(namespace_id=self.namespace_id, predicate=Predicate.WORKS_AT)
        if ref.works_at:
            elsewhere = jobs.filter(subject=unnamed, status=RelationStatus.ACTIVE).exclude(
                object__aliases__contains=[alias_of(ref.works_at)]
            )
            if elsewhere.exists():
                return False
        since = (
            Relation.objects.filter(
                namespace_id=self.namespace_id, subject=owner, object=unnamed, predicate=predicate
            )
            .order_by("valid_from")
            .values_list("valid_from", flat=True)
            .first()
        )
        if since is None:
            return True
        return not jobs.filter(subject=owner).filter(Q(valid_from__gt=since) | Q(valid_to__gt=since)).exists()

    def _by_name(self, ref: Ref, related: list[Entity]) -> Entity | None:
        alias = alias_of(ref.name)
        kinds = _COMPATIBLE.get(ref.kind, {ref.kind})
        for entity in related:
            if alias in entity.aliases:
                return entity
        args: list[prepared.Value] = [self.namespace_id, alias, tuple(sorted(kinds))]
        candidates = prepared.run("entity by name", _named, args)
        if candidates:
            return candidates[0]
        if ref.kind in (EntityKind.ORGANISATION, EntityKind.PLACE):
            return self._by_embedding(ref)
        return self._by_given_name(alias, kinds)

    def _by_given_name(self, alias: str, kinds: set[str]) -> Entity | None:
        """The one person known by the full name of this given name, or by the given name of this
        full name ("Tom" ↔ "Tom Hargreaves"; "建国" ↔ "林建国", a one-character surname); it takes
        the new name as an alias. Two candidates (two Toms) are ambiguous: none is taken."""
        pattern = given_name_pattern(alias)
        if pattern is None:
            return None
        other_name = RawSQL(_OTHER_NAME, [pattern], BooleanField())  # noqa: S611  # constant SQL, a parameter
        candidates = list(
            Entity.objects.filter(namespace_id=self.namespace_id, is_self=False, named=True, kind__in=kinds)
            .alias(hit=other_name)
            .filter(hit=True)[:2]
        )
        if len(candidates) != 1:
            return None
        entity = candidates[0]
        entity.aliases = sorted({*entity.aliases, alias})
        entity.save(update_fields=["aliases", "updated_at"])
        return entity

    def _by_embedding(self, ref: Ref) -> Entity | None:
        embedder = get_embedder()
        vector = embedder.embed_query(ref.name)
        nearest = (
            Entity.objects.filter(
                namespace_id=self.namespace_id,
                kind=ref.kind,
                embedding__isnull=False,
                embedding_model=embedder.name,
            )
            .annotate(distance=CosineDistance("embedding", vector))
            .order_by("distance")
            .first()
        )
        if nearest is not None and 1 - float(nearest.distance) >= EMBEDDING_MERGE_SIMILARITY:  # type: ignore[attr-defined]
            return nearest
        self._pending_embedding = (ref, vector, embedder.name)
        return None

    def _create(self, ref: Ref, *, named: bool) -> Entity:
        name = ref.name if named else _placeholder(ref, self)
        entity = Entity(
            namespace_id=self.namespace_id,
            kind=ref.kind,
            name=name[:NAME_MAX_CHARS],
            named=named,
            aliases=[alias_of(ref.name)] if named else [],
        )
        pending = getattr(self, "_pending_embedding", None)
        if pending is not None and pending[0] == ref:
            entity.embedding, entity.embedding_model = pending[1], pending[2]
        elif named:
            embedder = get_embedder()
            entity.embedding, entity.embedding_model = embedder.embed_query(name), embedder.name
        entity.save(force_insert=True)
        self.created.append(entity)
        if named:
            self.named.append(entity)
        return entity


# Whether one of an entity's aliases is LIKE the pattern `given_name_pattern` makes.
_OTHER_NAME = "EXISTS (SELECT 1 FROM unnest(aliases) a WHERE a LIKE %s)"


def given_name_pattern(alias: str) -> str | None:
    """The LIKE pattern of the aliases a person's other name would have: a given name's full names
    ("tom" → "tom %"), a full name's given name (`given_name`); in Chinese a given name of two
    characters and a full name of three ("建国" ↔ "林建国"). None for other shapes."""
    escaped = alias.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    if is_chinese(alias) and len(alias) == 2:
        return f"_{escaped}"
    if not is_chinese(alias) and len(escaped.split()) == 1 and len(alias) > 1:
        return f"{escaped} %"
    return given_name(escaped)


def placeholder_name(kin_word: str, owner_name: str | None) -> str:
    """The name of an entity known only by a kin word, in the word's language: "my sister",
    "Ana's husband", "我的老公", "安娜的老公" (`owner_name` None: the user's own). The pages say it in
    their language (`privacy.kin_words`); the API and recall's context read it as it is."""
    if is_chinese(kin_word):
        return f"我的{kin_word}" if owner_name is None else f"{owner_name}的{kin_word}"
    return f"my {kin_word}" if owner_name is None else f"{owner_name}'s {kin_word}"


def _placeholder(ref: Ref, resolver: Resolver) -> str:
    owner = resolver.resolve(ref.owner)
    return placeholder_name(ref.kin, None if owner.is_self else owner.name)
