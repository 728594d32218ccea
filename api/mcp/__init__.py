"""The MCP server: the memory tools for agents that speak the Model Context Protocol, over streamable
HTTP (mounted at `/mcp/` by `config.asgi`) and stdio (`manage.py mcp --user NAME`).

An entry point like the REST API and part of it: the same credentials and scopes (`api.auth`,
`api.permissions`), the same addressing rules (`api.subjects`, `api.selectors`), the same input
checks (`api.serializers`) and the same operations over the engine (`api.operations`). docs/mcp.md.

`server` builds it, `tools` declares the tools and the resource, `operations` is what each does,
`calls` how one call runs, `callers` who calls, `http` the HTTP transport.
"""
