"""The MCP tools and the profile resource, described for the model that decides to call them, one
registration function per group; each tool runs an `api.mcp.operations` function (`api.mcp.calls`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from api.mcp import operations as op
from api.mcp.calls import as_json, run, run_tool

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
EntityId = Annotated[str, Field(description="The entity's id, as returned by entity_list.")]
RelationId = Annotated[str, Field(description="The relation's id, from entity_get or relation_list.")]
EntityKindName = Literal["person", "organisation", "place", "pet", "product", "other"]


# How each tool may act, for the client to weigh before calling it.
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


def register(server: MCPServer, *, via: str) -> None:
    """The tools and the profile resource, in the order clients list them."""
    _memory_tools(server)
    _memory_change_tools(server, via=via)
    _entity_tools(server, via=via)
    _relation_tools(server)
    _profile_resource(server)


def _memory_tools(server: MCPServer) -> None:
    """Write, search, list and read the user's statements."""

    @server.tool(annotations=WRITES)
    async def memory_add(
        ctx: Context,
        content: Annotated[
            str, Field(description="One self-contained statement, e.g. 'The user is vegetarian.'")
        ],
        type: Annotated[
            MemoryTypeName | None,
            Field(
                description="semantic: a lasting fact (default); episodic: something that happened; "
                "procedural: how a task must be done (waits for an operator)."
            ),
        ] = None,
        category: Annotated[
            str | None,
            Field(description="profile, preference, safety, event, task_state … (default general)."),
        ] = None,
        key: Annotated[
            str | None,
            Field(description="A stable slot such as home_city: a new value supersedes the old one."),
        ] = None,
        importance: Annotated[float | None, Field(description="0..1, default 0.5.")] = None,
        pinned: Annotated[
            bool | None, Field(description="Always recalled: only for safety facts such as allergies.")
        ] = None,
        valid_from: Annotated[
            datetime | None, Field(description="When the fact started to hold (ISO 8601); default now.")
        ] = None,
        valid_to: Annotated[datetime | None, Field(description="When it stopped holding, if it did.")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Remember one statement about the user. Call it when the user states a durable fact,
        preference or commitment, or says "remember that …". Write the statement in the third person,
        self-contained. The answer says what happened: added, merged (already known), superseded (an
        older value replaced), pending_review (a rule, waiting for an operator), ignored, or rejected
        (it held a secret; nothing was stored)."""
        return await run_tool(
            ctx, op.WRITE, op.memory_add, content=content, type=type, category=category, key=key,
            importance=importance, pinned=pinned, valid_from=_iso(valid_from), valid_to=_iso(valid_to),
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=WRITES)
    async def memory_add_messages(
        ctx: Context,
        messages: Annotated[
            list[dict[str, str]],
            Field(
                description="The conversation, oldest first: [{'role': 'user'|'assistant', 'content': …, "
                "'created_at'?: ISO 8601}]. Only the user's messages count as evidence."
            ),
        ],
        conversation: Annotated[
            str | None, Field(description="Your reference for the conversation (same transcript, same job).")
        ] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Hand a finished conversation over for memory extraction: the server picks out the
        durable facts and preferences itself. Call it at the end of a conversation instead of many
        memory_add calls. Returns the extraction job (queued, done, or skipped if the user paused
        memory)."""
        return await run_tool(
            ctx, op.WRITE, op.memory_extract, messages=messages, conversation=conversation,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def memory_search(
        ctx: Context,
        query: Annotated[str, Field(description="What you need to know, in words: 'food allergies'.")],
        limit: Annotated[int | None, Field(description="At most this many statements (default 20).")] = None,
        at: Annotated[
            datetime | None,
            Field(description="Answer as of this instant (ISO 8601): what held then, not now."),
        ] = None,
        types: Annotated[list[MemoryTypeName] | None, Field(description="Only these kinds.")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Find what is remembered about the user that matters for a question. Call it before
        answering anything that may depend on earlier conversations (preferences, plans, facts,
        past events). Returns `results`, the statements that answer it, most relevant first, each
        with its id, validity dates and source; and `always`, the safety and profile facts to heed
        whatever the query."""
        return await run_tool(
            ctx, op.READ, op.memory_search, query=query, limit=limit, at=_iso(at), types=types,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def memory_list(
        ctx: Context,
        q: Annotated[str | None, Field(description="Only statements containing these words or ids.")] = None,
        type: Annotated[list[MemoryTypeName] | None, Field(description="Only these kinds.")] = None,
        status: Annotated[
            list[str] | None,
            Field(description="active, superseded, pending_review, rejected, archived, expired, hidden."),
        ] = None,
        category: Annotated[str | None, Field(description="Only this category.")] = None,
        current: Annotated[bool | None, Field(description="Only what holds now.")] = None,
        limit: Annotated[int | None, Field(description="Page size, 1..200 (default 50).")] = None,
        offset: Annotated[int | None, Field(description="Where the page starts (next_offset).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """List the stored statements, newest first, with filters. Call it when the user asks what
        you remember about them, or to browse; to answer a question use memory_search instead."""
        return await run_tool(
            ctx, op.READ, op.memory_list_page, q=q, type=type, status=status, category=category,
            current=current, limit=limit, offset=offset, user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def memory_get(
        ctx: Context, memory_id: MemoryId, user_id: UserId = None, agent_id: AgentId = None
    ) -> CallToolResult:
        """One memory in full: its statement, status, validity window, provenance (where it came
        from) and what it superseded. Call it to check a memory before correcting or citing it."""
        return await run_tool(
            ctx, op.READ, op.memory_get, memory_id=memory_id, user_id=user_id, agent_id=agent_id
        )


def _memory_change_tools(server: MCPServer, *, via: str) -> None:
    """Correct, restore and erase a memory, or erase them all; and what happened to one."""

    @server.tool(annotations=WRITES)
    async def memory_correct(
        ctx: Context,
        memory_id: MemoryId,
        content: Annotated[str, Field(description="The right statement, in full.")],
        reason: Annotated[str | None, Field(description="Why, in the user's words.")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Fix a memory that is wrong, when the user says so ("no, I moved to Lyon"). The corrected
        statement becomes a new version and the old one is kept as superseded. Returns the new
        version (a new id)."""
        return await run_tool(
            ctx, op.WRITE, op.memory_correct_one, memory_id=memory_id, content=content, reason=reason,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=WRITES)
    async def memory_restore(
        ctx: Context, memory_id: MemoryId, user_id: UserId = None, agent_id: AgentId = None
    ) -> CallToolResult:
        """Bring back a memory the forgetting job archived, when the user says it still matters
        ("you forgot my bike's name"). List archived ones with memory_list(status=["archived"]).
        An active memory is returned unchanged; any other status is a conflict."""
        return await run_tool(
            ctx, op.WRITE, op.memory_restore_one, memory_id=memory_id, user_id=user_id, agent_id=agent_id
        )

    @server.tool(annotations=ERASES)
    async def memory_erase(
        ctx: Context,
        memory_id: MemoryId,
        erase_sources: Annotated[
            bool | None, Field(description="Also delete the conversations it came from or was used in.")
        ] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Erase one memory for good (and its older versions), when the user asks you to forget it.
        Irreversible; only a content-free receipt remains."""
        return await run_tool(
            ctx, op.ERASE, op.memory_erase, memory_id=memory_id, via=via, erase_sources=erase_sources,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=ERASES)
    async def memory_erase_all(
        ctx: Context,
        confirm: Annotated[
            bool,
            # Strict: "yes", "true" or 1 from a model are not the boolean the docs ask for.
            Field(
                strict=True,
                description="Must be true, and only after the user explicitly asked to forget everything.",
            ),
        ],
        erase_sources: Annotated[bool | None, Field(description="Also delete every conversation.")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Erase every memory of the user. Irreversible. Call it only when the user explicitly asks
        to forget everything, and confirm with them first."""
        return await run_tool(
            ctx, op.ERASE, op.memory_erase_all, via=via, confirm=confirm, erase_sources=erase_sources,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

    @server.tool(annotations=READ_ONLY)
    async def memory_history(
        ctx: Context, memory_id: MemoryId, user_id: UserId = None, agent_id: AgentId = None
    ) -> CallToolResult:
        """Every change to a memory, oldest first (created, merged, superseded, corrected, approved
        …), with who made it and why. Call it when the user asks how or when something was learned."""
        return await run_tool(
            ctx, op.READ, op.memory_history_of, memory_id=memory_id, user_id=user_id, agent_id=agent_id
        )


def _entity_tools(server: MCPServer, *, via: str) -> None:
    """People and places (issue 19): list, read, correct, merge and erase the entities."""

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
            ctx, op.READ, op.entity_get, entity_id=entity_id, at=_iso(at), history=history,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip

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


def _relation_tools(server: MCPServer) -> None:
    """The links between the entities: list, read, correct and erase them."""

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
            ctx, op.READ, op.relation_list, entity=entity, predicate=predicate, at=_iso(at), history=history,
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
            valid_to=_iso(valid_to), user_id=user_id, agent_id=agent_id,
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


def _profile_resource(server: MCPServer) -> None:
    @server.resource(
        "memory://profile{?user_id,agent_id}",
        name="profile",
        title="The user's profile",
        description="Safety facts, identity and standing preferences that hold now. Read it at the start "
        "of a conversation. Tenant API keys add ?user_id=… (or ?agent_id=…).",
        mime_type="application/json",
    )
    async def profile(ctx: Context, user_id: str | None = None, agent_id: str | None = None) -> str:
        result = await run(ctx, op.READ, op.profile, user_id=user_id, agent_id=agent_id)
        if "status" in result and "detail" in result:
            raise ResourceError(as_json(result))
        return as_json(result)


def _iso(value: datetime | None) -> str | None:
    """The REST API's serializers read dates as ISO 8601 text, as they arrive in JSON."""
    return value.isoformat() if value is not None else None
