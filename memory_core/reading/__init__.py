"""The engine's reading floor: pure text functions that the extractor, the write pipeline, the
entity graph and recall share. `words` holds the word lists and name, place and organisation
patterns; nothing here imports the engine above it (import-linter holds it)."""
