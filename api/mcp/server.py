"""The MCP server: its instructions, and tool arguments checked as the REST API checks a body; the
tools themselves are `api.mcp.tools`."""

from __future__ import annotations

from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent
from pydantic import AnyHttpUrl, ValidationError
from rest_framework import exceptions

from api.errors import error_body
from api.mcp.calls import as_json
from api.mcp.tools import register

INSTRUCTIONS = (
    "Long-term memory of the user you are talking to. At the start of a conversation read the "
    "profile resource (memory://profile) for safety facts, identity and standing preferences. Call "
    "memory_search before answering anything that may depend on what the user told you before; cite "
    "a memory by its id and date when you rely on it. Call memory_add when the user states a durable "
    "fact or preference, or asks you to remember something. Never store passwords, tokens or card "
    "numbers: they are refused. Rules that relax a control wait for an operator."
)


class _Server(MCPServer):
    """Tool arguments are checked as the API checks a body: an unknown name, or a value of the
    wrong type, is refused with the API's 400 body, field by field (the SDK would drop the first
    silently and describe the second in pydantic's words)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> CallToolResult | InputRequiredResult:
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            unknown = sorted(set(arguments) - set((tool.parameters or {}).get("properties", {})))
            if unknown:
                return _refused({argument: ["Unknown argument."] for argument in unknown})
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            errors: dict[str, list[str]] = {}
            for error in exc.__cause__.errors():
                field = ".".join(str(part) for part in error["loc"]) or "non_field_errors"
                errors.setdefault(field, []).append(str(error["msg"]))
            return _refused(errors)


def _refused(errors: dict[str, list[str]]) -> CallToolResult:
    status, body = error_body(exceptions.ValidationError(errors)) or (400, {})
    result = body | {"status": status}
    return CallToolResult(
        content=[TextContent(type="text", text=as_json(result))], structured_content=result, is_error=True
    )


def build_server(*, via: str, token_verifier: TokenVerifier | None = None) -> MCPServer:
    """A server whose tools act through the REST API's rules; `via` names it on erasure receipts.
    Over HTTP, `token_verifier` checks every request's credentials."""
    # The SDK's auth settings name an OAuth issuer; our keys are issued by operators and users in
    # the app itself and no OAuth routes are served, so the issuer is a label never fetched.
    auth = (
        AuthSettings(issuer_url=AnyHttpUrl("http://localhost/"), resource_server_url=None)
        if token_verifier
        else None
    )
    server = _Server(
        name="memory",
        title="Long-term memory",
        instructions=INSTRUCTIONS,
        version="1",
        token_verifier=token_verifier,
        auth=auth,
    )
    register(server, via=via)
    return server
