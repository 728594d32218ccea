"""LoCoMo evidence recall, ours against mem0 OSS at its best, both through their own add paths, in
one run.

The same turn texts as `bench locomo` ("Speaker said, on DATE: text"), one call per turn:
* ours: the public write path, `memory_add` per turn as mem0's route with `infer: false` adds it
  (`locomo.load_public`), asked through hybrid `memory_recall` (`locomo.recall_ids`);
* mem0: `Memory.add(infer=False)` per turn (no LLM), asked through `Memory.search(top_k=20)`,
  three ways (`bench.mem0_baseline`):
  - spaCy withheld: cosine, plus a keyword match on raw text that needs every query word;
  - spaCy on: keyword search over spaCy lemmas, entities extracted from the questions, but no
    entity linked to a memory (mem0 2.2.1's `add(infer=False)` links none);
  - spaCy on and entities linked by mem0's own per-memory linking after each add (what its LLM
    add does for the memories it stores): every signal of its search on.
The summary compares ours with the best of mem0's runs (at R@10).
BM25 over the same texts (plain Python) is the reference row. Recall@k: the share of a question's
evidence turns among the first k results, averaged over the questions of categories 1-4.

`python -m bench mem0_quality [--conversations N] [--no-plain]`
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from bench import common, mem0_baseline
from bench.locomo import KS, bm25_ranker, load_public, recall_at, recall_ids, run_context_job
from bench.locomo_data import Conversation, load_all

Ranker = Callable[[Conversation, str], list[str]]


def _score(label: str, conversations: list[Conversation], rank: Ranker) -> dict[int, float]:
    """Recall@k of `rank` over every question; prints one row."""
    totals = dict.fromkeys(KS, 0.0)
    asked = 0
    start = time.perf_counter()
    for conversation in conversations:
        for question in conversation.questions:
            ids = rank(conversation, question.text)
            for k in KS:
                totals[k] += recall_at(ids, question.evidence, k)
            asked += 1
    per_question = (time.perf_counter() - start) / asked * 1000
    figures = {k: totals[k] / asked for k in KS}
    print(
        f"{label:<58}" + "".join(f"{figures[k]:8.3f}" for k in KS) + f"   {per_question:6.1f} ms/question",
        flush=True,
    )
    return figures


def _mem0_load(mem: Any, conversations: list[Conversation]) -> list[tuple[str, str, str]]:
    """Every turn through `Memory.add(infer=False)`, one call each; (memory id, text, user) of each."""
    added = []
    with common.timed() as elapsed:
        for conversation in conversations:
            for turn in conversation.turns:
                memory_id = mem0_baseline.add_turn(
                    mem, turn.content, user_id=conversation.name, dia_id=turn.dia_id
                )
                added.append((memory_id, turn.content, conversation.name))
    print(f"  loaded: Memory.add(infer=False) {len(added) / elapsed():.1f} turns/s")
    return added


def _mem0_ranker(mem: Any, searches: list[list[dict[str, Any]]]) -> Ranker:
    """mem0's search as a ranker of dia ids; each search's results (with their score details) are
    kept in `searches`, for the line that says which signals ranked them."""

    def rank(conversation: Conversation, text: str) -> list[str]:
        found = mem.search(text, filters={"user_id": conversation.name}, top_k=max(KS), explain=True)
        searches.append(found["results"])
        return [(item.get("metadata") or {}).get("dia_id", "") for item in found["results"]]

    return rank


def _mem0_rows(conversations: list[Conversation], *, plain: bool) -> dict[str, dict[int, float]]:
    rows: dict[str, dict[int, float]] = {}
    if plain:
        print(f"mem0 ({mem0_baseline.use_spacy(on=False)}):")
        mem = mem0_baseline.memory("mem0_quality_plain")
        _mem0_load(mem, conversations)
        print(f"  {mem0_baseline.status(mem)}")
        searches: list[list[dict[str, Any]]] = []
        rows["mem0, spaCy withheld"] = _score(
            "mem0 Memory.search, spaCy withheld", conversations, _mem0_ranker(mem, searches)
        )
        print(f"  {mem0_baseline.search_signals(searches)}")
    why_not = mem0_baseline.use_spacy(on=True)
    print(f"mem0 with spaCy{f' — unavailable: {why_not}' if why_not else ''}:")
    mem = mem0_baseline.memory("mem0_quality")
    added = _mem0_load(mem, conversations)
    print(f"  {mem0_baseline.status(mem)}")
    searches = []
    rows["mem0, spaCy, no entity links"] = _score(
        "mem0 Memory.search, spaCy, add(infer=False) as is", conversations, _mem0_ranker(mem, searches)
    )
    print(f"  {mem0_baseline.search_signals(searches)}")
    if why_not:
        return rows
    # Link what is stored now, as mem0's LLM add links the memories it stores.
    with common.timed() as elapsed:
        for memory_id, text, user_id in added:
            mem0_baseline.link_entities(mem, memory_id, text, user_id=user_id)
    print(f"  entities linked by mem0's own linking: {len(added) / elapsed():.1f} memories/s")
    print(f"  {mem0_baseline.status(mem)}")
    searches = []
    rows["mem0, spaCy, entities linked"] = _score(
        "mem0 Memory.search, spaCy, entities linked", conversations, _mem0_ranker(mem, searches)
    )
    print(f"  {mem0_baseline.search_signals(searches)}")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench mem0_quality")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--no-plain", action="store_true", help="skip mem0 with spaCy withheld")
    args = parser.parse_args(argv)
    common.setup()
    common.header("LoCoMo evidence recall, ours vs mem0 OSS, each through its own add path")
    print(f"start: {common.load_average()}")
    conversations = load_all()
    if args.conversations > 0:
        conversations = conversations[: args.conversations]
    common.truncate()
    turns = sum(len(c.turns) for c in conversations)
    questions = sum(len(c.questions) for c in conversations)
    print(f"{len(conversations)} conversations, {turns} turns, {questions} questions of categories 1-4")

    with common.timed() as elapsed:
        namespaces = load_public(conversations)
    print(f"ours loaded: memory_add {turns / elapsed():.1f} turns/s")
    run_context_job()  # `CONTEXT_VECTOR=deferred`: as the cluster runs it after the writes
    asked_at = {c.name: max(t.said_at for t in c.turns) for c in conversations}
    header = f"{'':<58}" + "".join(f"{'R@' + str(k):>8}" for k in KS)
    print(header)
    rows = {
        "ours": _score(
            "ours memory_recall (hybrid)",
            conversations,
            lambda c, text: recall_ids(namespaces[c.name], text, asked_at=asked_at[c.name]),
        )
    }
    rankers = {c.name: bm25_ranker([t.content for t in c.turns]) for c in conversations}
    rows["BM25"] = _score(
        "BM25 (reference, plain Python)",
        conversations,
        lambda c, text: [c.turns[i].dia_id for i in rankers[c.name](text)],
    )
    rows |= _mem0_rows(conversations, plain=not args.no_plain)

    print(f"\nsummary ({common.load_average()}):")
    print(header)
    for label, figures in rows.items():
        print(f"{label:<58}" + "".join(f"{figures[k]:8.3f}" for k in KS))
    best = max((label for label in rows if label.startswith("mem0")), key=lambda label: rows[label][10])
    print(
        f"ours minus mem0's best ({best}): "
        + "  ".join(f"R@{k} {rows['ours'][k] - rows[best][k]:+.3f}" for k in KS)
    )


if __name__ == "__main__":
    main()
