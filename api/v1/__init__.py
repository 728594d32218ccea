"""REST API `/api/v1/`: thin views over the memory_core, lifecycle, moderation and chat services.

Each view validates its input with a small serializer, resolves whose memories the call is about
(`api.selectors`, or `api.services.subject_ensure` for writes), calls one service and serialises
the result. Errors are JSON (`api.errors`). One module per resource: `memories`, `erasures`,
`recall`, `entities`, `conversations`, `extractions`, `imports`, `moderation`, `webhooks`; their
routes in `urls`; what they share with the MCP tools is in `api.operations`, with each other in
`api.base`; their OpenAPI examples in `api.v1.examples`.
"""
