"""What the MCP tools' arguments are, described for the model, and how each tool may act; shared
by the tool modules (`api.mcp.tools`, `api.mcp.graph_tools`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

UserId = Annotated[
    str | None,
    Field(description="Tenant API keys only: your end user's id. Leave out with a personal token."),
]
AgentId = Annotated[
    str | None,
    Field(description="Tenant API keys only: an agent's id, instead of user_id. Leave out otherwise."),
]
MemoryId = Annotated[str, Field(description="The memory's id, as returned by search, list or add.")]
MemoryTypeName = Literal["semantic", "episodic", "procedural"]
EntityId = Annotated[str, Field(description="The entity's id, as entity_list or entity_search return it.")]
RelationId = Annotated[str, Field(description="The relation's id, from entity_get or relation_list.")]
Predicate = Annotated[
    Literal[
        "parent", "child", "sibling", "relative", "spouse", "partner", "friend", "colleague", "manager",
        "pet", "works_at", "role", "lives_in", "other",
    ],
    Field(description="How they are linked: subject's <predicate> is object (role: a job title as value)."),
]  # fmt: skip
EntityKindName = Literal["person", "organisation", "place", "pet", "product", "other"]

# How each tool may act, for the client to weigh before calling it.
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


def iso(value: datetime | None) -> str | None:
    """The REST API's serializers read dates as ISO 8601 text, as they arrive in JSON."""
    return value.isoformat() if value is not None else None
