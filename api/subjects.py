"""Whom an API call is about (a `Subject`), and the rules for naming it: a person reaches only their
own memories; a tenant key names one end user (`user_id`) or agent (`agent_id`).

A leaf of the API layer, so that both the reads (`api.selectors`) and the writes (`api.services`)
apply the same rules without importing each other.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.http.request import RawPostDataException

from api.models import EntityKind, Tenant, TenantNamespace
from api.rows import Columns
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


_NAMESPACE, _OWNER = Columns(Namespace, "n"), Columns(get_user_model(), "u")
# The subject's namespace and owner, as
# TenantNamespace.objects.select_related("namespace__owner").filter(tenant=…, kind=…, external_id=…)
# reads them, as text (api.rows); the owner's id last, NULL for a namespace without an owner.
SUBJECT_ROW = (
    f"SELECT {_NAMESPACE.sql}, {_OWNER.sql}, u.id FROM {TenantNamespace._meta.db_table} l "  # noqa: S608
    f"JOIN {Namespace._meta.db_table} n ON n.id = l.namespace_id "
    f"LEFT JOIN {get_user_model()._meta.db_table} u ON u.id = n.owner_id "
    "WHERE l.tenant_id = %(subject_tenant)s AND l.kind = %(subject_kind)s "
    "AND l.external_id = %(subject_external_id)s"
)

Address = tuple[int, str, str]  # (tenant id, kind, external id)


def subject_row_params(address: Address) -> dict[str, Any]:
    tenant_id, kind, external_id = address
    return {"subject_tenant": tenant_id, "subject_kind": kind, "subject_external_id": external_id}


def subject_from_row(
    row: tuple[Any, ...] | None, *, address: tuple[str, str], tenant: Tenant
) -> Subject | None:
    """The subject of `SUBJECT_ROW`'s row; None for an id never used, or a namespace without its owner."""
    if row is None or row[-1] is None:
        return None
    namespace = _NAMESPACE.instance(row)
    owner = _OWNER.instance(row, len(_NAMESPACE))
    Namespace.owner.field.set_cached_value(namespace, owner)
    kind, external_id = address
    return Subject(owner, namespace, kind, external_id, tenant)


# The subject's row read in the rate count's round trip (`api.throttling`), kept on the request for
# `api.selectors.subject_for`; used only when the address the view validated is the one read.
_READ_AHEAD = "_subject_read_ahead"
# Bodies up to this size are peeked at for their address; a larger one is a write, whose subject is
# made or found by `api.services.subject_ensure` anyway.
READ_AHEAD_BODY = 16 * 1024


def addressed(request: Any, tenant_id: int) -> Address | None:
    """The tenant entity a request names, guessed before the view validates anything: `user_id` or
    `agent_id` at the top of a small JSON body (or in mem0's `filters`, or their `AND`), else in the
    query string. A guess only: `subject_for` checks it against the validated address."""
    found: dict[str, Any] = {}
    meta = request.META
    length = meta.get("CONTENT_LENGTH") or "0"
    if (
        str(meta.get("CONTENT_TYPE", "")).startswith("application/json")
        and length.isdigit()
        and (0 < int(length) <= READ_AHEAD_BODY)
    ):
        try:
            body = json.loads(request._request.body)
        except (ValueError, RecursionError, RawPostDataException):  # not JSON (the view says so), or read
            body = None
        if isinstance(body, dict):
            filters = body.get("filters")
            filters = filters if isinstance(filters, dict) else {}
            both = filters.get("AND")  # mem0's {"AND": [{"user_id": …}, …]}
            for part in both if isinstance(both, list) else []:
                found |= part if isinstance(part, dict) else {}
            found |= {**filters, **body}
    if not (found.get("user_id") or found.get("agent_id")):
        found = request.query_params
    user_id, agent_id = found.get("user_id"), found.get("agent_id")
    if bool(user_id) == bool(agent_id) or not isinstance(user_id or agent_id, str | int):
        return None
    return (
        (tenant_id, EntityKind.USER, str(user_id))
        if user_id
        else (tenant_id, EntityKind.AGENT, str(agent_id))
    )


def read_ahead_keep(request: Any, address: Address, row: tuple[Any, ...] | None) -> None:
    setattr(request, _READ_AHEAD, (address, row))


def read_ahead_row(request: Any, address: Address) -> tuple[Any, ...] | None:
    """The row of `address` when it was read with the rate count and found, once: a later lookup in
    the same request (after a write that made or removed the entity) asks the database again, as
    does one for an entity not found (made since, perhaps, by a concurrent request)."""
    kept = getattr(request, _READ_AHEAD, None)
    if kept is None or kept[0] != address:
        return None
    setattr(request, _READ_AHEAD, None)
    return kept[1]
