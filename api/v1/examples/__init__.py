"""Example payloads of the `/api/v1/` operations, as the OpenAPI docs show them: `core` (memories,
recall, erasures, conversations, extractions, moderation), `entities`, `webhooks`."""
