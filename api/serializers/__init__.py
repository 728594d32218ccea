"""Input and output serializers of the API, shared by its surfaces: `core` (the strict fields, and
memories, recall, erasures, conversations, extractions, moderation), `entities`, `webhooks`. The
mem0-compatible shapes are `api.mem0.serializers`."""
