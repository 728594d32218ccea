"""Write throughput with local embeddings: batched (one embedding call + bulk INSERTs) vs one by one.

Both paths write the same rows (the entry and its "created" history event) for the same texts,
real conversation turns from LoCoMo. Baseline: `memory_create` once per memory, as a naive import
would call it (one embedding, two INSERTs and a transaction each).

`python -m bench write_throughput [--count N]`
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from bench import common
from bench.locomo_data import load_all

if TYPE_CHECKING:
    from memory_core.models import Namespace


def _texts(count: int) -> list[str]:
    turns = [turn.content for conversation in load_all() for turn in conversation.turns]
    return [turns[i % len(turns)] for i in range(count)]


def one_by_one(namespace: Namespace, texts: list[str]) -> None:
    from memory_core.services import EntryDraft, memory_create

    for text in texts:
        memory_create(
            namespace=namespace, draft=EntryDraft(content=text, type="episodic", source_kind="extracted")
        )


def batched(namespace: Namespace, texts: list[str]) -> tuple[float, float]:
    """Returns (seconds embedding, seconds writing)."""
    from django.db import transaction

    from memory_core.embeddings import get_embedder
    from memory_core.models import ActorKind, EventAction, MemoryEntry, MemoryEvent

    embedder = get_embedder()
    with common.timed() as embedding_time:
        vectors = embedder.embed(texts)  # batches of EMBEDDING_BATCH_SIZE inside
    with common.timed() as write_time, transaction.atomic():
        entries = MemoryEntry.objects.bulk_create(
            (
                MemoryEntry(
                    namespace=namespace,
                    type="episodic",
                    content=text,
                    source_kind="extracted",
                    embedding=vector,
                    embedding_model=embedder.name,
                )
                for text, vector in zip(texts, vectors, strict=True)
            ),
            batch_size=1000,
        )
        MemoryEvent.objects.bulk_create(
            (
                MemoryEvent(
                    namespace=namespace,
                    entry=entry,
                    entry_ref=entry.pk,
                    action=EventAction.CREATED,
                    actor_kind=ActorKind.SYSTEM,
                    data={"content": entry.content, "status": entry.status, "type": entry.type},
                )
                for entry in entries
            ),
            batch_size=1000,
        )
    return embedding_time(), write_time()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench write_throughput")
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args(argv)
    common.setup()
    common.header("Write throughput (local embeddings)")
    from memory_core.embeddings import get_embedder
    from memory_core.models import MemoryEntry, Namespace

    common.truncate()
    texts = _texts(args.count)
    get_embedder().embed_query("warm up the model")
    slow_ns = Namespace.objects.create(path="agent/bench-one-by-one", kind="agent")
    fast_ns = Namespace.objects.create(path="agent/bench-batched", kind="agent")

    with common.timed() as slow:
        one_by_one(slow_ns, texts)
    with common.timed() as fast:
        embedding, writing = batched(fast_ns, texts)
    assert MemoryEntry.objects.filter(namespace=fast_ns).count() == len(texts)

    slow_rate, fast_rate = len(texts) / slow(), len(texts) / fast()
    print(f"{len(texts)} memories, mean {sum(map(len, texts)) / len(texts):.0f} characters")
    print(f"  one by one, memory_create (baseline)  {slow_rate:7.1f} memories/s  ({slow():.1f} s)")
    print(
        f"  batched, embed + bulk insert          {fast_rate:7.1f} memories/s  ({fast():.1f} s: "
        f"embedding {embedding:.1f} s, database {writing:.2f} s)"
    )
    print(f"  batched / one by one: {common.ratio(fast_rate, slow_rate)}", flush=True)


if __name__ == "__main__":
    main()
