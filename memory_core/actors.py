"""Who acts on the engine. `Actor`: anyone a service may be asked by (a signed-in person, an
anonymous visitor, nobody for a job or a command); the querysets decide what each may see.
`Person`: a signed-in person, for services that act only for one (their export, their tokens)."""

from __future__ import annotations

from typing import TypeAlias

from django.contrib.auth.models import AnonymousUser, User

Person: TypeAlias = User
Actor: TypeAlias = User | AnonymousUser | None


def person(actor: Actor) -> Person | None:
    """The signed-in person behind `actor`, or None (anonymous, or the system acting)."""
    return actor if isinstance(actor, User) and actor.is_authenticated else None
