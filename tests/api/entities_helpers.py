"""Adding and recalling through the REST API, and reading the graph the engine built."""

from __future__ import annotations

from typing import Any

from memory_core.entities.models import Entity, Relation
from memory_core.models import Namespace


def add(client: Any, content: str, user: str = "u1", **extra: Any) -> dict[str, Any]:
    response = client.post("/api/v1/memories/", {"user_id": user, "content": content, **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def recall(client: Any, query: str, user: str = "u1", **extra: Any) -> list[dict[str, Any]]:
    body = {"user_id": user, "query": query, "limit": 5, **extra}
    response = client.post("/api/v1/recall/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def contents(items: list[dict[str, Any]]) -> list[str]:
    return [item["entry"]["content"] for item in items]


def namespace_of(entry: dict[str, Any]) -> Namespace:
    from memory_core.models import MemoryEntry

    return MemoryEntry.objects.get(pk=entry["entry"]["id"]).namespace


def entities(namespace: Namespace) -> dict[str, Entity]:
    return {e.name: e for e in Entity.objects.filter(namespace=namespace, is_self=False)}


def relations(namespace: Namespace, **filters: Any) -> list[Relation]:
    return list(
        Relation.objects.filter(namespace=namespace, **filters)
        .select_related("subject", "object")
        .order_by("valid_from")
    )
