"""The API layer's answer to the engine's question "who hears about this namespace?"
(settings.WEBHOOK_AUDIENCE_RESOLVER): the tenant that owns it, with the id the tenant knows it by."""

from __future__ import annotations

from typing import Any

from api.models import EntityKind, TenantNamespace
from memory_core.webhooks.dispatch import tenant_audience


def namespace_audiences(namespace_id: int) -> dict[str, dict[str, Any]]:
    link = (
        TenantNamespace.objects.filter(namespace_id=namespace_id)
        .values_list("tenant_id", "kind", "external_id")
        .first()
    )
    if link is None:
        return {}
    tenant_id, kind, external_id = link
    field = "user_id" if kind == EntityKind.USER else "agent_id"
    return {tenant_audience(tenant_id): {field: external_id}}
