"""Benchmarks of the memory engine, run against a database of their own (`bench`), never dev data.

`python -m bench` runs them all at a bounded default scale; `python -m bench locomo` (or
`recall_latency`, `write_throughput`) runs one. Each prints its figures next to a baseline
measured in the same run.
"""
