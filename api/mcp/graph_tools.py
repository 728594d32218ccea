"""The MCP tools of the knowledge graph: people and places (entities), the relations between them,
their search, the graph page and its clearing; each runs an `api.mcp.operations` function."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from api.mcp import operations as op
from api.mcp.arguments import (
    ERASES,
    READ_ONLY,
    WRITES,
    AgentId,
    EntityId,
    EntityKindName,
    Predicate,
    RelationId,
    UserId,
    iso,
)
from api.mcp.calls import run_tool


def register_graph(server: MCPServer, *, via: str) -> None:
    """The graph's tools, after the memory tools."""
    _entity_read_tools(server)
    _entity_change_tools(server, via=via)
    _relation_read_tools(server)
    _relation_change_tools(server)
    _graph_write_tools(server)


def _entity_read_tools(server: MCPServer) -> None:
    """Find people and places, and open one."""

    @server.tool(annotations=READ_ONLY)
    async def entity_list(
        ctx: Context,
        kind: Annotated[EntityKindName | None, Field(description="Only this kind.")] = None,
        q: Annotated[str | None, Field(description="A name, alias or word such as 'sister'.")] = None,
        limit: Annotated[int | None, Field(description="Page size, 1..200 (default 50).")] = None,
        offset: Annotated[int | None, Field(description="Where the page starts (next_offset).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """The people, places, organisations and pets the user has told you about, by name, with
        the words they were called by (aliases: 'sister', 'Ana'). Call it when the user asks whom
        you know of, or to find an entity's id before entity_get."""
        return await run_tool(
            ctx, op.READ, op.entity_list, kind=kind, q=q, limit=limit, offset=offset,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def entity_search(
        ctx: Context,
        q: Annotated[str, Field(description="A name ('Ana'), or what they are about ('who flies planes').")],
        limit: Annotated[int | None, Field(description="At most this many (1..50, default 10).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Find people, places and things by name or by meaning, best first: each with `score` and
        `matched` (name, meaning, or memory: a statement about it matches). Then open one with
        entity_get for its relations and memories."""
        return await run_tool(
            ctx, op.READ, op.entity_search, q=q, limit=limit, user_id=user_id, agent_id=agent_id
        )

    @server.tool(annotations=READ_ONLY)
    async def entity_get(
        ctx: Context,
        entity_id: EntityId,
        at: Annotated[
            datetime | None, Field(description="What held at this instant (ISO 8601), not now.")
        ] = None,
        history: Annotated[bool | None, Field(description="Ended and superseded relations too.")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Everything known about one person or place: its relations (Ana —spouse→ Marc, Marc
        —role→ pilot) and the memories they rest on. Call it for questions that go through someone
        ("what does my sister's husband do?")."""
        return await run_tool(
            ctx, op.READ, op.entity_get, entity_id=entity_id, at=iso(at), history=history,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip


def _entity_change_tools(server: MCPServer, *, via: str) -> None:
    """Correct, merge and erase an entity."""

    @server.tool(annotations=WRITES)
    async def entity_correct(
        ctx: Context,
        entity_id: EntityId,
        name: Annotated[str | None, Field(description="The right name.")] = None,
        kind: Annotated[EntityKindName | None, Field(description="The right kind.")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Fix an entity's name or kind when the user says it is wrong ("her name is Anna, not
        Ana"). The new name is remembered as an alias too."""
        return await run_tool(
            ctx, op.WRITE, op.entity_correct, entity_id=entity_id, name=name, kind=kind,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=WRITES)
    async def entity_merge(
        ctx: Context,
        entity_id: EntityId,
        into: Annotated[str, Field(description="The id of the entity that stays.")],
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Two entities are one (the user says "Bea is Beatrice"): entity_id's memories, aliases and
        relations move to `into`, which is returned; entity_id is gone."""
        return await run_tool(
            ctx, op.WRITE, op.entity_merge, entity_id=entity_id, into=into, user_id=user_id, agent_id=agent_id
        )

    @server.tool(annotations=ERASES)
    async def entity_erase(
        ctx: Context, entity_id: EntityId, user_id: UserId = None, agent_id: AgentId = None
    ) -> CallToolResult:
        """Forget a person or place entirely, when the user asks you to: every memory that speaks
        of it is erased for good, with its relations. Irreversible; confirm with the user first."""
        return await run_tool(
            ctx, op.ERASE, op.entity_erase, entity_id=entity_id, via=via, user_id=user_id, agent_id=agent_id
        )


def _relation_read_tools(server: MCPServer) -> None:
    """Read relations, one at a time or the graph a page at a time."""

    @server.tool(annotations=READ_ONLY)
    async def relation_list(
        ctx: Context,
        entity: Annotated[str | None, Field(description="Only this entity's relations (either end).")] = None,
        predicate: Annotated[
            str | None,
            Field(
                description="parent, child, sibling, relative, spouse, partner, friend, colleague, "
                "manager, pet, works_at, role, lives_in or other."
            ),
        ] = None,
        at: Annotated[datetime | None, Field(description="What held at this instant (ISO 8601).")] = None,
        history: Annotated[bool | None, Field(description="Ended and superseded relations too.")] = None,
        limit: Annotated[int | None, Field(description="Page size, 1..200 (default 50).")] = None,
        offset: Annotated[int | None, Field(description="Where the page starts (next_offset).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """The links between the people and places the user told you about (who is whose sister,
        who works where), newest first, each with the memories it rests on."""
        return await run_tool(
            ctx, op.READ, op.relation_list, entity=entity, predicate=predicate, at=iso(at), history=history,
            limit=limit, offset=offset, user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def relation_get(
        ctx: Context, relation_id: RelationId, user_id: UserId = None, agent_id: AgentId = None
    ) -> CallToolResult:
        """One relation: who or what it links, the words used ("husband"), when it held, and the
        memories it rests on."""
        return await run_tool(
            ctx, op.READ, op.relation_get, relation_id=relation_id, user_id=user_id, agent_id=agent_id
        )

    @server.tool(annotations=READ_ONLY)
    async def graph_read(
        ctx: Context,
        at: Annotated[datetime | None, Field(description="As it held at this instant (ISO 8601).")] = None,
        history: Annotated[bool | None, Field(description="Ended and superseded relations too.")] = None,
        limit: Annotated[int | None, Field(description="Entities per page, 1..200 (default 50).")] = None,
        offset: Annotated[int | None, Field(description="Where the page starts (next_offset).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """The user's graph a page at a time: `entities` by name and the `relations` that touch them;
        `next_offset` for the next page (null on the last). Call it to see everyone at once; for one
        person use entity_get."""
        return await run_tool(
            ctx, op.READ, op.graph_read, at=iso(at), history=history, limit=limit, offset=offset,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip


def _relation_change_tools(server: MCPServer) -> None:
    """Create, correct (or end) and erase a relation."""

    @server.tool(annotations=WRITES)
    async def relation_create(
        ctx: Context,
        subject_id: Annotated[str, Field(description='An entity id, or "user" for the user themself.')],
        predicate: Predicate,
        object_id: Annotated[str | None, Field(description="The other entity's id (not for role).")] = None,
        value: Annotated[
            str | None, Field(description="For role (or other without object): the value.")
        ] = None,
        label: Annotated[str | None, Field(description="The words used: 'husband', 'sister'.")] = None,
        valid_from: Annotated[datetime | None, Field(description="Since when it holds (ISO 8601).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Link two entities (or an entity and a value) when the user states it ("Marc is Ana's
        husband"). It rests on a statement written as a memory ("Ana's husband is Marc."), so erasing
        that memory removes it. A newer spouse, employer, home or role ends the current one. End a
        relation with relation_correct and `ended: true`."""
        return await run_tool(
            ctx, op.WRITE, op.relation_create, subject_id=subject_id, predicate=predicate,
            object_id=object_id, value=value, label=label, valid_from=iso(valid_from), user_id=user_id,
            agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=WRITES)
    async def relation_correct(
        ctx: Context,
        relation_id: RelationId,
        value: Annotated[
            str | None, Field(description="The right value of a relation to a value (a job title).")
        ] = None,
        ended: Annotated[
            bool | None, Field(description='true: it no longer holds ("they divorced", "she moved").')
        ] = None,
        valid_to: Annotated[
            datetime | None, Field(description="It stopped holding at this instant (ISO 8601).")
        ] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Fix a relation the user says is wrong or over: its value ("she is a surgeon, not a
        nurse"), or that it ended (its window closes; it stays in the history, and the memories
        stay)."""
        return await run_tool(
            ctx, op.WRITE, op.relation_correct, relation_id=relation_id, value=value, ended=ended,
            valid_to=iso(valid_to), user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=ERASES)
    async def relation_erase(
        ctx: Context,
        relation_id: RelationId,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Remove a wrong link ("Marc is not Ana's husband"); the memories themselves stay (correct
        or erase them with the memory tools)."""
        return await run_tool(
            ctx, op.ERASE, op.relation_erase, relation_id=relation_id, user_id=user_id, agent_id=agent_id
        )


def _graph_write_tools(server: MCPServer) -> None:
    """Add an observation to an entity; clear the whole graph."""

    @server.tool(annotations=WRITES)
    async def entity_observe(
        ctx: Context,
        entity_id: EntityId,
        content: Annotated[str, Field(description="One self-contained statement: 'Ana is vegetarian.'")],
        valid_from: Annotated[datetime | None, Field(description="Since when it holds (ISO 8601).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Add an observation about one person or place: stored as a memory (the same checks as
        memory_add: secrets refused, rules wait for an operator) and linked to the entity, so
        entity_get lists it. Returns the entity and the memory."""
        return await run_tool(
            ctx, op.WRITE, op.entity_observe, entity_id=entity_id, content=content,
            valid_from=iso(valid_from), user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=ERASES)
    async def graph_clear(
        ctx: Context,
        confirm: Annotated[
            bool,
            Field(strict=True, description="Must be true, and only after the user explicitly asked."),
        ],
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Clear the user's graph: every entity and relation goes; the memories stay (later
        statements build it again). To forget the memories too, use memory_erase_all. Returns how
        many entities and relations went."""
        return await run_tool(
            ctx, op.ERASE, op.graph_clear, confirm=confirm, user_id=user_id, agent_id=agent_id
        )
