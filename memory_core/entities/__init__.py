"""Entities and relations: the knowledge-graph layer beside the memory entries (issue 19).

`models` holds the rows, `rules` the offline extraction (English and Chinese), `resolve` entity
resolution within a namespace, `services` the writes (every one under the namespace lock the
write pipeline holds), `selectors` the reads, `recall` the graph candidate source, `erasure`
the pruning that follows an erased memory. The API is listed in docs/entities.md.
"""
