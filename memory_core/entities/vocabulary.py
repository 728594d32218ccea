"""The entity kinds and relation predicates of the knowledge-graph layer (stored values are the
strings; see docs/entities.md). A leaf module: models, rules and services import it."""

from __future__ import annotations

from django.db import models


class EntityKind(models.TextChoices):
    PERSON = "person", "Person"
    ORGANISATION = "organisation", "Organisation"
    PLACE = "place", "Place"
    PET = "pet", "Pet"
    PRODUCT = "product", "Product"
    OTHER = "other", "Other"


class RelationStatus(models.TextChoices):
    ACTIVE = "active", "Active"
    SUPERSEDED = "superseded", "Superseded"


class Predicate(models.TextChoices):
    """A small vocabulary; anything else is `OTHER` with its words in `Relation.label`."""

    PARENT = "parent", "Parent"  # subject's parent is object (label: mother, father, 妈妈 …)
    CHILD = "child", "Child"
    SIBLING = "sibling", "Sibling"
    RELATIVE = "relative", "Relative"  # grandparents, cousins, aunts …
    SPOUSE = "spouse", "Spouse"
    PARTNER = "partner", "Partner"
    FRIEND = "friend", "Friend"
    COLLEAGUE = "colleague", "Colleague"
    MANAGER = "manager", "Manager"
    PET = "pet", "Pet"
    WORKS_AT = "works_at", "Works at"
    ROLE = "role", "Role"  # a value: the job title
    LIVES_IN = "lives_in", "Lives in"
    OTHER = "other", "Other"


# A newer relation of one of these supersedes the subject's current one (its window is closed),
# as a newer statement supersedes the same key slot.
SINGLE_VALUED = frozenset(
    {
        Predicate.SPOUSE,
        Predicate.PARTNER,
        Predicate.WORKS_AT,
        Predicate.ROLE,
        Predicate.LIVES_IN,
        Predicate.MANAGER,
    }
)
# Predicates whose object is an entity of this kind (created on first mention).
OBJECT_KIND: dict[str, str] = {
    Predicate.WORKS_AT: EntityKind.ORGANISATION,
    Predicate.LIVES_IN: EntityKind.PLACE,
    Predicate.PET: EntityKind.PET,
}
# Predicates whose object is a value (text), not an entity.
VALUE_PREDICATES = frozenset({Predicate.ROLE})
