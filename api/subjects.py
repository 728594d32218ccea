"""Whom an API call is about (a `Subject`), and the rules for naming it: a person reaches only their
own memories; a tenant key names one end user (`user_id`) or agent (`agent_id`).

A leaf of the API layer, so that both the reads (`api.selectors`) and the writes (`api.services`)
apply the same rules without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from api.models import EntityKind, Tenant
from memory_core.actors import Actor
from memory_core.errors import MemoryServiceError
from memory_core.models import Namespace


@dataclass(frozen=True)
class Subject:
    """Whose memories: `actor` owns `namespace` (a person, or a tenant's shadow user)."""

    actor: Actor
    namespace: Namespace
    kind: str = EntityKind.USER
    external_id: str = ""  # the tenant's id for it; "" for a person acting on their own memories
    tenant: Tenant | None = None


def address_error(message: str, field: str = "user_id") -> MemoryServiceError:
    """A 400 on the id field the caller got wrong."""
    return MemoryServiceError(message, field_errors={field: [message]})


def subject_address(
    *, tenant: Tenant | None, user_id: str | None, agent_id: str | None, agents: bool = True
) -> tuple[str, str] | None:
    """Which of the tenant's entities a call names, as (kind, external id); None for a person, who
    reaches only their own memories. Refuses ids from a person, both or neither from a tenant key,
    and an agent where only end users may be named."""
    if tenant is None:
        if user_id or agent_id:
            raise address_error(
                "user_id and agent_id are for tenant API keys; "
                "a personal token reaches only your own memories.",
                "user_id" if user_id else "agent_id",
            )
        return None
    if bool(user_id) == bool(agent_id):
        raise address_error(
            "Give either user_id or agent_id." if not user_id else "Give user_id or agent_id, not both."
        )
    if agent_id and not agents:
        raise address_error("This endpoint is for end users: give user_id.", "agent_id")
    return (EntityKind.USER, str(user_id)) if user_id else (EntityKind.AGENT, str(agent_id))
