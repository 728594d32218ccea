"""The engine's reading floor: pure text functions that the extractor, the write pipeline, the
entity graph and recall share, by public names. `words` (word lists; name, place and organisation
patterns), `dates` (date phrases; the month table), `normalise` (first person to third, clean-up,
slugs, sentences), `slots` (slot keys and their families). Nothing here imports the engine above
it (import-linter holds it)."""
