"""Privacy tests share the root fixtures (the owner / other / operator trio, `moderator`); chat turns
come from `tests.chat.helpers`, the erasure scan from `memory_core.scan`."""
