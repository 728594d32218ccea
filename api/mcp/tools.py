"""The MCP tools and the profile resource, described for the model that decides to call them, one
registration function per group; each tool runs an `api.mcp.operations` function (`api.mcp.calls`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import CallToolResult
from pydantic import Field

from api.mcp import operations as op
from api.mcp.arguments import (
    ERASES,
    READ_ONLY,
    WRITES,
    AgentId,
    MemoryId,
    MemoryTypeName,
    UserId,
    iso,
)
from api.mcp.calls import as_json, run, run_tool
from api.mcp.graph_tools import register_graph

# Date-range bounds of memory_list.
Since = Annotated[datetime | None, Field(description="At or after this instant (ISO 8601).")]
Before = Annotated[datetime | None, Field(description="Before this instant (ISO 8601).")]
HeldAfter = Annotated[datetime | None, Field(description="Held at some moment after this instant.")]
HeldBefore = Annotated[datetime | None, Field(description="Held at some moment before this instant.")]


def register(server: MCPServer, *, via: str) -> None:
    """The tools and the profile resource, in the order clients list them."""
    _memory_write_tools(server)
    _memory_read_tools(server)
    _memory_list_tool(server)
    _memory_change_tools(server)
    _memory_erase_tools(server, via=via)
    register_graph(server, via=via)
    _profile_resource(server)


def _memory_write_tools(server: MCPServer) -> None:
    """Write statements, and hand a conversation over for extraction."""

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
            importance=importance, pinned=pinned, valid_from=iso(valid_from), valid_to=iso(valid_to),
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


def _memory_read_tools(server: MCPServer) -> None:
    """Answer a question from memory, read one memory, follow an extraction job."""

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
        reference_date: Annotated[
            datetime | None,
            Field(
                description="When the conversation takes place (ISO 8601 with a time zone): dates in "
                "the query such as 'last week' are read from it. Default: `at`, else now."
            ),
        ] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Find what is remembered about the user that matters for a question. Call it before
        answering anything that may depend on earlier conversations (preferences, plans, facts,
        past events). Returns `results`, the statements that answer it, most relevant first, each
        with its id, validity dates and source; and `always`, the safety and profile facts to heed
        whatever the query."""
        return await run_tool(
            ctx, op.READ, op.memory_search, query=query, limit=limit, at=iso(at), types=types,
            reference_date=iso(reference_date), user_id=user_id, agent_id=agent_id,
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

    @server.tool(annotations=READ_ONLY)
    async def memory_job(
        ctx: Context,
        job_id: Annotated[int | str, Field(description="The job's id, as memory_add_messages returned it.")],
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """Where an extraction job stands: queued, running, done (`result` says how many statements
        were added, merged or superseded) or failed (`error`). Call it after memory_add_messages when
        you need to know the memories are in before searching them."""
        return await run_tool(ctx, op.READ, op.memory_job, job_id=job_id, user_id=user_id, agent_id=agent_id)


def _memory_list_tool(server: MCPServer) -> None:
    """Browse the statements, with filters and date ranges."""

    @server.tool(annotations=READ_ONLY)
    async def memory_list(
        ctx: Context,
        q: Annotated[str | None, Field(description="Only statements containing these words or ids.")] = None,
        type: Annotated[
            MemoryTypeName | list[MemoryTypeName] | None, Field(description="Only this kind, or these kinds.")
        ] = None,
        status: Annotated[
            str | list[str] | None,
            Field(
                description="active, superseded, pending_review, rejected, archived, expired or hidden; "
                "one, or a list."
            ),
        ] = None,
        category: Annotated[str | None, Field(description="Only this category.")] = None,
        current: Annotated[bool | None, Field(description="Only what holds now.")] = None,
        recorded_after: Since = None,
        recorded_before: Before = None,
        updated_after: Since = None,
        updated_before: Before = None,
        valid_after: HeldAfter = None,
        valid_before: HeldBefore = None,
        limit: Annotated[int | None, Field(description="Page size, 1..200 (default 50).")] = None,
        offset: Annotated[int | None, Field(description="Where the page starts (next_offset).")] = None,
        user_id: UserId = None,
        agent_id: AgentId = None,
    ) -> CallToolResult:
        """List the stored statements, newest first, with filters: learned (recorded_*), last
        changed (updated_*) or holding (valid_*) within a date range, e.g.
        memory_list(status="superseded", recorded_after="2026-01-01T00:00:00Z"). Call it when the
        user asks what you remember about them, or to browse; to answer a question use memory_search."""
        return await run_tool(
            ctx, op.READ, op.memory_list_page, q=q, type=type, status=status, category=category,
            current=current, recorded_after=iso(recorded_after), recorded_before=iso(recorded_before),
            updated_after=iso(updated_after), updated_before=iso(updated_before),
            valid_after=iso(valid_after), valid_before=iso(valid_before), limit=limit, offset=offset,
            user_id=user_id, agent_id=agent_id,
        )  # fmt: skip


def _memory_change_tools(server: MCPServer) -> None:
    """Correct and restore a memory, and what happened to one."""

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

    @server.tool(annotations=READ_ONLY)
    async def memory_history(
        ctx: Context, memory_id: MemoryId, user_id: UserId = None, agent_id: AgentId = None
    ) -> CallToolResult:
        """Every change to a memory, oldest first (created, merged, superseded, corrected, approved
        …), with who made it and why. Call it when the user asks how or when something was learned."""
        return await run_tool(
            ctx, op.READ, op.memory_history_of, memory_id=memory_id, user_id=user_id, agent_id=agent_id
        )


def _memory_erase_tools(server: MCPServer, *, via: str) -> None:
    """Erase a memory, or all of them."""

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
