"""Speed at scale on LoCoMo, side by side with mem0 OSS (issue 15's table, in one run).

Figures, each with its baseline in the same run:

* query embedding p50/p95: ONNX Runtime (default) vs torch, one thread; batch rate, all cores;
* ingest, one by one: `memory_add` vs mem0 `Memory.add(infer=False)` (pgvector on the same
  embedded server, the same packaged MiniLM through sentence-transformers, no LLM call, spaCy on;
  mem0's entity linking after it is timed on its own line, `bench.mem0_baseline`); each
  turn with the turn before it as its context, as the mem0-compatible endpoint stores them
  (so ours embeds two texts per turn, mem0 one); SQL statements per add;
* ingest, batched: `memory_add_many` in batches of `--batch` vs one by one; statements per batch;
* CPU per add (issue 33: at most 20 ms outside the embedding), one by one and batched: this
  process's CPU time over the ingest, less what the embedding model calls took
  (`embeddings.embedding_cpu_seconds`: the judgement's sentence vectors included); mem0's process
  CPU per add beside ours (its embedding cannot be told apart);
* with `CONTEXT_VECTOR=deferred` (the default), the context-vector job after each ingest, run to
  completion and timed on its own (documents/s, 64 to a model call), and each ingest with its
  job's time added (what the two cores do per turn in all);
* `memory_recall` in-process including the query embedding, p50/p95, recording on: ours on ONNX
  and on torch vs mem0 `Memory.search` over the same conversations, with its keyword search and
  entity boost on (a line from mem0's own objects says so, another how many searches used them);
* recall log: rows written, then bounded by `RECALL_LOG_RETENTION_DAYS`.

`python -m bench speed [--conversations 2] [--one-by-one 150] [--queries 150] [--batch 25] [--no-mem0]
[--mem0-plain] [--ingest-only]`; `--mem0-plain` withholds spaCy from mem0 (cosine only, as before).
LoCoMo recall, ours against mem0, is `python -m bench mem0_quality`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from bench import common, mem0_baseline
from bench.locomo_data import Conversation, load_all


def _times(items: list[Any], run: Callable[[Any], object]) -> list[float]:
    durations = []
    for item in items:
        start = time.perf_counter()
        run(item)
        durations.append(time.perf_counter() - start)
    return durations


@contextmanager
def _cpu() -> Iterator[Callable[[], tuple[float, float]]]:
    """`with _cpu() as spent: …` then `spent()`: (process CPU seconds of the block, of which inside
    the embedding model calls). `time.process_time` counts every thread of this process: the
    in-process embedding's too, which `embeddings.embedding_cpu_seconds` measures apart."""
    from memory_core.embeddings import embedding_cpu_seconds

    start, model_start = time.process_time(), embedding_cpu_seconds()
    end: list[tuple[float, float]] = []
    yield lambda: end[0] if end else (time.process_time() - start, embedding_cpu_seconds() - model_start)
    end.append((time.process_time() - start, embedding_cpu_seconds() - model_start))


def _line(label: str, values: list[float]) -> None:
    print(f"  {label:<44} {common.summary_ms(values)}", flush=True)


def _embedding(texts: list[str], queries: list[str]) -> None:
    from django.test import override_settings

    from memory_core.embeddings import LocalEmbedder
    from memory_core.torch_embedding import batch_threads

    print("query embedding (one thread) and batch embedding (all cores):")
    embedder = LocalEmbedder()
    results: dict[str, tuple[list[float], float]] = {}
    for runtime in ("torch", "onnx"):
        with override_settings(EMBEDDING_RUNTIME=runtime):
            embedder.embed([queries[0]])  # load
            single = _times(queries, lambda q: embedder.embed([q]))
            with common.timed() as elapsed:
                embedder.embed(texts)
            results[runtime] = (single, len(texts) / elapsed())
        _line(f"{runtime} query", single)
        print(
            f"  {runtime} batch of {len(texts)} on {batch_threads()} threads: "
            f"{results[runtime][1]:7.1f} texts/s"
        )
    onnx, torch = results["onnx"], results["torch"]
    print(
        "  onnx vs torch: query p50 "
        f"{common.ratio(common.percentile(torch[0], 50), common.percentile(onnx[0], 50))}"
        f" faster, batch {common.ratio(onnx[1], torch[1])}"
    )


def _statements(run: Callable[[], object]) -> int:
    """SQL statements `run` sends, savepoints aside."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        run()
    return sum(1 for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE")))


def _ingest(conversations: list[Conversation], one_by_one: int, batch: int, mem0: Any) -> dict[str, Any]:
    from memory_core.models import Namespace
    from memory_core.pipeline import memory_add, write_request
    from memory_core.pipeline_batch import memory_add_many
    from memory_core.search_context import preceding_turns

    print("ingest (LoCoMo turns with their preceding turn as context, stored as given, local embeddings):")
    texts = [turn.content for turn in conversations[0].turns]
    sample = list(zip(texts, preceding_turns(texts), strict=True))[:one_by_one]
    single = Namespace.objects.create(path="agent/speed-single", kind="agent")

    def add(item: tuple[str, str]) -> None:
        memory_add(namespace=single, content=item[0], context=item[1], exact=True)

    with _cpu() as one_cpu:
        ours = _times(sample[1:], add)
    ours_rate = len(ours) / sum(ours)
    per_add = _statements(lambda: add(sample[0]))
    print(
        f"  ours memory_add one by one: {ours_rate:7.1f}/s   ({common.summary_ms(ours)}); "
        f"{per_add} SQL statements per add"
    )
    _context_job(len(sample), sum(ours) / len(ours) * len(sample))

    namespaces: dict[str, Any] = {}
    total = 0
    per_batch: list[int] = []
    with _cpu() as batched_cpu, common.timed() as elapsed:
        for conversation in conversations:
            namespace = Namespace.objects.create(path=f"agent/speed-{conversation.name}", kind="agent")
            namespaces[conversation.name] = namespace
            turns = [turn.content for turn in conversation.turns]
            contexts = preceding_turns(turns)
            for start in range(0, len(turns), batch):
                requests = [
                    write_request(content=text, context=context, exact=True)
                    for text, context in zip(
                        turns[start : start + batch], contexts[start : start + batch], strict=True
                    )
                ]
                if start == batch:  # a full batch into a namespace that holds one already: counted
                    per_batch.append(
                        _statements(
                            lambda ns=namespace, r=requests: memory_add_many(namespace=ns, requests=r)
                        )
                    )
                else:
                    memory_add_many(namespace=namespace, requests=requests)
            total += len(turns)
    batched_seconds = elapsed()
    batched_rate = total / batched_seconds
    print(
        f"  ours memory_add_many, batches of {batch}: {batched_rate:7.1f}/s ({total} turns); "
        f"vs one by one {common.ratio(batched_rate, ours_rate)}; "
        f"{per_batch[0] if per_batch else '-'} SQL statements per batch"
    )
    _cpu_per_add(one_cpu(), len(ours), batched_cpu(), total)
    _context_job(total, batched_seconds)
    if mem0 is not None:
        _mem0_ingest(conversations, mem0, ours_rate, batched_rate, one_cpu()[0] / len(ours))
    return namespaces


def _cpu_per_add(one: tuple[float, float], ones: int, batched: tuple[float, float], total: int) -> None:
    """Issue 33's budget: the write path's own CPU per add, the embedding model's apart."""

    def ms(seconds: float, adds: int) -> float:
        return seconds / adds * 1000

    outside_one, outside_batched = ms(one[0] - one[1], ones), ms(batched[0] - batched[1], total)
    print(
        f"  CPU per add outside the embedding: {outside_one:.1f} ms one by one, "
        f"{outside_batched:.1f} ms batched (target ≤ 20 ms); in the embedding: "
        f"{ms(one[1], ones):.1f} ms, {ms(batched[1], total):.1f} ms; process CPU per add "
        f"{ms(one[0], ones):.1f} ms, {ms(batched[0], total):.1f} ms"
    )


def _context_job(turns: int, ingest_seconds: float) -> None:
    """`CONTEXT_VECTOR=deferred`: the job that embeds the waiting context documents, run to
    completion and timed apart from the ingest it follows; then the ingest with its job's time."""
    from memory_core.context_vectors import context_vectors_drain, waiting
    from memory_core.embeddings import texts_embedded

    left = waiting()
    if not left:
        return
    before = texts_embedded()
    report = context_vectors_drain()
    print(
        f"    context-vector job, run to completion: {report.stored} documents in {report.seconds:.1f} s, "
        f"{report.stored / report.seconds:7.1f}/s ({report.model_calls} model calls taking "
        f"{report.model_seconds:.1f} s, "
        f"{texts_embedded() - before} texts; {waiting()} waiting after); "
        f"ingest with its job: {turns / (ingest_seconds + report.seconds):7.1f} turns/s"
    )


def _mem0_ingest(
    conversations: list[Conversation], mem0: Any, ours_rate: float, batched_rate: float, ours_cpu: float
) -> None:
    """mem0's add one by one, then its entity linking for what it stored (timed apart: its
    `add(infer=False)` links none, and the entity boost needs the links)."""
    added: list[tuple[str, str, str]] = []

    def add(item: tuple[str, str]) -> None:
        text, name = item
        added.append((mem0_baseline.add_turn(mem0, text, user_id=name), text, name))

    with _cpu() as mem0_cpu:
        mem0_times = _times([(t.content, c.name) for c in conversations for t in c.turns], add)
    mem0_rate = len(mem0_times) / sum(mem0_times)
    mem0_per_add = mem0_cpu()[0] / len(mem0_times)
    print(
        f"  mem0 Memory.add(infer=False) one by one: {mem0_rate:7.1f}/s   ({common.summary_ms(mem0_times)}); "
        f"process CPU per add {mem0_per_add * 1000:.1f} ms (its embedding included; ours one by one "
        f"{common.ratio(ours_cpu, mem0_per_add)} of it)"
    )
    print(
        f"  ours vs mem0: one by one {common.ratio(ours_rate, mem0_rate)}, "
        f"batched {common.ratio(batched_rate, mem0_rate)}"
    )
    if mem0_baseline.entity_extraction_on():
        link_times = _times(
            added, lambda item: mem0_baseline.link_entities(mem0, item[0], item[1], user_id=item[2])
        )
        print(
            f"  mem0 entity linking after the add (its own, per memory): "
            f"{len(link_times) / sum(link_times):7.1f}/s   ({common.summary_ms(link_times)})"
        )
    print(f"  {mem0_baseline.status(mem0)}")


def _recall(conversations: list[Conversation], namespaces: dict[str, Any], queries: int, mem0: Any) -> None:
    from django.test import override_settings

    from memory_core.embeddings import query_cache
    from memory_core.recall import memory_recall

    questions = [(c.name, q.text) for c in conversations for q in c.questions][:queries]
    print(f"recall in-process incl. the query embedding ({len(questions)} LoCoMo questions, recording on):")

    def ours(item: tuple[str, str]) -> None:
        name, text = item
        memory_recall(namespaces=[namespaces[name]], query=text, limit=20, budget_tokens=2000)

    figures: dict[str, list[float]] = {}
    for runtime in ("torch", "onnx"):
        with override_settings(EMBEDDING_RUNTIME=runtime):
            query_cache.clear()
            ours(questions[0])
            query_cache.clear()  # every question embedded: the cache is not what is measured
            figures[runtime] = _times(questions, ours)
        _line(f"ours memory_recall ({runtime})", figures[runtime])
    query_cache.clear()
    if mem0 is not None:
        figures["mem0"] = _times(
            questions, lambda item: mem0.search(item[1], filters={"user_id": item[0]}, top_k=20)
        )
        _line("mem0 Memory.search", figures["mem0"])
        explained = [
            mem0.search(text, filters={"user_id": name}, top_k=20, explain=True)["results"]
            for name, text in questions
        ]
        print(f"  {mem0_baseline.search_signals(explained)} (the same questions again, explain=True)")
        for runtime in ("torch", "onnx"):
            theirs, ours_p95 = common.percentile(figures["mem0"], 95), common.percentile(figures[runtime], 95)
            print(f"  mem0 p95 / ours ({runtime}) p95: {common.ratio(theirs, ours_p95)}")


def _recall_log() -> None:
    from django.test import override_settings
    from django.utils import timezone

    from memory_core.models import RecallLog
    from memory_core.recall import log as recall_log

    rows = RecallLog.objects.count()
    RecallLog.objects.filter(pk__in=RecallLog.objects.order_by("pk").values("pk")[: rows // 2]).update(
        created_at=timezone.now() - timedelta(days=400)
    )
    with override_settings(RECALL_LOG_RETENTION_DAYS=90), common.timed() as elapsed:
        pruned = recall_log.prune()
    print(
        f"recall log: {rows} rows written by this run; half aged past the retention, "
        f"{pruned} pruned in {elapsed() * 1000:.0f} ms, {RecallLog.objects.count()} left "
        "(before: never pruned)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench speed")
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--one-by-one", type=int, default=150, help="turns added one by one by each system")
    parser.add_argument("--queries", type=int, default=150)
    parser.add_argument("--batch", type=int, default=25)
    parser.add_argument("--no-mem0", action="store_true")
    parser.add_argument("--mem0-plain", action="store_true", help="mem0 without spaCy (cosine only)")
    parser.add_argument("--ingest-only", action="store_true", help="the ingest figures alone")
    args = parser.parse_args(argv)
    common.setup()
    common.header("Speed at scale on LoCoMo, ours vs mem0 OSS")
    conversations = load_all()[: args.conversations]
    common.truncate()
    from django.conf import settings

    print(
        f"{len(conversations)} conversations, {sum(len(c.turns) for c in conversations)} turns; "
        f"CONTEXT_VECTOR={settings.CONTEXT_VECTOR}; start: {common.load_average()}"
    )
    texts = [turn.content for turn in conversations[0].turns[:200]]
    if not args.ingest_only:
        _embedding(texts, [q.text for q in conversations[0].questions[:100]])
    mem0 = None
    if not args.no_mem0:
        why_not = mem0_baseline.use_spacy(on=not args.mem0_plain)
        mem0 = mem0_baseline.memory("mem0_speed_bench")
        print(mem0_baseline.status(mem0) + (f" ({why_not})" if why_not else ""))
    namespaces = _ingest(conversations, args.one_by_one, args.batch, mem0)
    if not args.ingest_only:
        _recall(conversations, namespaces, args.queries, mem0)
        _recall_log()
    print(f"end: {common.load_average()}")


if __name__ == "__main__":
    main()
