"""What the REST views (`api.v1`) and the MCP tools (`api.mcp`) both do, once: given a caller and
validated input, address the subject and call the engine. Neither surface imports the other."""
