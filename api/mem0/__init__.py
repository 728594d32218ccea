"""The mem0-compatible surface at the site root: routes, views, mem0's shapes and filter language,
so the unmodified `mem0ai` client works against this system."""
