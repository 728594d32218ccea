"""The entity kinds and relation predicates of the knowledge-graph layer (stored values are the
strings; see docs/entities.md). A leaf module: models, rules and services import it."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_noop


class EntityKind(models.TextChoices):
    PERSON = "person", gettext_noop("Person")
    ORGANISATION = "organisation", gettext_noop("Organisation")
    PLACE = "place", gettext_noop("Place")
    PET = "pet", gettext_noop("Pet")
    PRODUCT = "product", gettext_noop("Product")
    OTHER = "other", gettext_noop("Other")


class RelationStatus(models.TextChoices):
    ACTIVE = "active", gettext_noop("Active")
    SUPERSEDED = "superseded", gettext_noop("Superseded")


class Predicate(models.TextChoices):
    """A small vocabulary; anything else is `OTHER` with its words in `Relation.label`."""

    PARENT = "parent", gettext_noop("Parent")  # subject's parent is object (label: mother, father, 妈妈 …)
    CHILD = "child", gettext_noop("Child")
    SIBLING = "sibling", gettext_noop("Sibling")
    RELATIVE = "relative", gettext_noop("Relative")  # grandparents, cousins, aunts …
    SPOUSE = "spouse", gettext_noop("Spouse")
    PARTNER = "partner", gettext_noop("Partner")
    FRIEND = "friend", gettext_noop("Friend")
    COLLEAGUE = "colleague", gettext_noop("Colleague")
    MANAGER = "manager", gettext_noop("Manager")
    PET = "pet", gettext_noop("Pet")
    WORKS_AT = "works_at", gettext_noop("Works at")
    ROLE = "role", gettext_noop("Role")  # a value: the job title
    LIVES_IN = "lives_in", gettext_noop("Lives in")
    OTHER = "other", gettext_noop("Other")


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
