"""Retrieval quality on LoCoMo: evidence recall@5/10/20 of vector, keyword, hybrid recall and BM25.

Each conversation becomes a namespace and each turn a memory "Speaker said, on DATE: text"; the
questions of categories 1-4 are asked, and the turns named as their evidence are the relevant set.
Recall@k of a question is the share of its evidence turns among the first k results, averaged
over questions. BM25 (plain Python, over the same texts) is the reference baseline.

By default the turns go in through the public write path, one call per turn as a mem0 client adds
them (`load_public`); `--bulk` inserts them past it, with the turn before each as its context,
and says so. With `CONTEXT_VECTOR=deferred` (the default) the context-vector job then runs to
completion before any question is asked, as the cluster would run it after the writes
(`memory_core.context_vectors`), and a line says so; `--before-job` first asks the hybrid
questions with the write path's stand-in vectors, as recall reads them until the job has run.

`python -m bench locomo [--bulk] [--ablate] [--sweep] [--misses N] [--conversations N] [--runtimes]
[--before-job]`: --ablate
ranks again with each recall component switched off, --sweep prints the similarity/keyword blend sweep,
--misses prints missed questions with their evidence, --runtimes runs the whole evaluation on each local
embedding runtime (ONNX Runtime, then torch as the baseline) and prints the differences.
"""

from __future__ import annotations

import argparse
import math
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bench import common
from bench.locomo_data import Conversation, Turn, load_all

if TYPE_CHECKING:
    from memory_core.models import Namespace

KS = (5, 10, 20)


def bm25_ranker(texts: list[str], *, k1: float = 1.2, b: float = 0.75) -> Callable[[str], list[int]]:
    """Okapi BM25 over lower-cased word tokens; returns indexes of `texts`, best first."""
    docs = [re.findall(r"\w+", text.lower()) for text in texts]
    avg_len = sum(map(len, docs)) / len(docs)
    df = Counter(word for doc in docs for word in set(doc))
    tfs = [Counter(doc) for doc in docs]
    idf = {word: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for word, n in df.items()}

    def rank(query: str) -> list[int]:
        words = set(re.findall(r"\w+", query.lower()))
        scores = [
            sum(
                idf[w] * tf[w] * (k1 + 1) / (tf[w] + k1 * (1 - b + b * len(doc) / avg_len))
                for w in words
                if w in tf
            )
            for tf, doc in zip(tfs, docs, strict=True)
        ]
        return sorted((i for i in range(len(docs)) if scores[i] > 0), key=lambda i: -scores[i])

    return rank


def load_public(conversations: list[Conversation]) -> dict[str, Namespace]:
    """One namespace per conversation, each turn added by the public write path as a client would
    through mem0's route with `infer: false`: one call per turn (`memory_add`, guarded, judged,
    reconciled), the turn's id and the session's date given as a client can give them, each a
    turn (`turn=True`, as mem0's route marks its messages) read with the turn added before it.
    Prints what became of the turns."""
    from memory_core.choices import ActorKind
    from memory_core.models import Namespace, SourceKind
    from memory_core.pipeline import memory_add

    namespaces: dict[str, Namespace] = {}
    actions: Counter[str] = Counter()
    for conversation in conversations:
        namespace = Namespace.objects.create(path=f"agent/locomo-{conversation.name}", kind="agent")
        for turn in conversation.turns:
            outcome = memory_add(
                namespace=namespace,
                content=turn.content,
                source_kind=SourceKind.API_IMPORT,
                actor_kind=ActorKind.API,
                source_message_ids=[turn.dia_id],
                valid_from=turn.said_at,
                exact=True,
                turn=True,
            )
            actions[str(outcome.action)] += 1
        namespaces[conversation.name] = namespace
    print(
        "loaded through the public write path (memory_add, one call per turn): "
        + ", ".join(f"{name} {count}" for name, count in sorted(actions.items()))
    )
    return namespaces


def _load(conversations: list[Conversation]) -> dict[str, Namespace]:
    """One namespace per conversation, one memory per turn (embedded in batches, bulk inserted):
    BYPASSES the write path (no guard, no judgement, no reconciliation), for comparison only.

    Each turn is indexed with the turn before it in its session, as the product's write path
    does for turns added in order (`memory_core.search_context`), and marked as a turn recorded in
    the order it was said (`recall.neighbours` reads both).
    """
    from memory_core.embeddings import get_embedder
    from memory_core.models import MemoryEntry, MemoryType, Namespace, SourceKind
    from memory_core.search_context import context_document, preceding_turns

    embedder = get_embedder()
    namespaces: dict[str, Namespace] = {}
    for conversation in conversations:
        namespace = Namespace.objects.create(path=f"agent/locomo-{conversation.name}", kind="agent")
        contexts: list[str] = []
        for session in _sessions(conversation):
            contexts += preceding_turns([turn.content for turn in session])
        vectors = embedder.embed([turn.content for turn in conversation.turns])
        documents = [
            context_document(context, turn.content)
            for context, turn in zip(contexts, conversation.turns, strict=True)
        ]
        context_vectors = embedder.embed(documents)
        MemoryEntry.objects.bulk_create(
            MemoryEntry(
                namespace=namespace,
                type=MemoryType.EPISODIC,
                content=turn.content,
                source_kind=SourceKind.EXTRACTED,
                source_conversation=f"locomo-{conversation.name}",
                source_message_ids=[turn.dia_id],
                valid_from=turn.said_at,
                # a second apart, in order, as a client adding them one by one records them
                recorded_at=turn.said_at + timedelta(seconds=index),
                said_as_turn=True,
                embedding=vector,
                search_context=context,
                context_embedding=context_vector,
                embedding_model=embedder.name,
            )
            for index, (turn, vector, context, context_vector) in enumerate(
                zip(conversation.turns, vectors, contexts, context_vectors, strict=True)
            )
        )
        namespaces[conversation.name] = namespace
    return namespaces


def _sessions(conversation: Conversation) -> list[list[Turn]]:
    """The turns grouped by session ("D3:7" is turn 7 of session 3), in order."""
    sessions: dict[str, list[Turn]] = {}
    for turn in conversation.turns:
        sessions.setdefault(turn.dia_id.split(":")[0], []).append(turn)
    return list(sessions.values())


def recall_ids(
    namespace: Namespace, query: str, *, asked_at: datetime, query_embedding: list[float] | None = None
) -> list[str]:
    """The turns (dia ids) hybrid `memory_recall` returns for a question, best first, asked as of
    `asked_at`; the figures' "hybrid" row."""
    from memory_core import recall

    result = recall.memory_recall(
        namespaces=[namespace],
        query=query,
        query_embedding=query_embedding,
        budget_tokens=100_000,
        limit=max(KS),
        record=False,
        reference_date=asked_at,
    )
    return [item.entry.source_message_ids[0] for item in result.items]


def recall_at(ranked_ids: list[str], evidence: frozenset[str], k: int) -> float:
    return len(set(ranked_ids[:k]) & evidence) / len(evidence)


def evaluate(
    *,
    sweep: bool = False,
    ablate: bool = False,
    misses: int = 0,
    conversations_limit: int = 0,
    bulk: bool = False,
    before_job: bool = False,
) -> dict[str, dict[int, float]]:
    from django.conf import settings
    from django.test import override_settings

    from memory_core import lexical
    from memory_core.embeddings import get_embedder, runtime_in_use
    from memory_core.models import MemoryEntry
    from memory_core.recall import candidates
    from memory_core.recall.candidates import load_entries, where_of

    print(f"embeddings: {runtime_in_use()}; CONTEXT_VECTOR={settings.CONTEXT_VECTOR}")
    conversations = load_all()
    if conversations_limit > 0:
        conversations = conversations[:conversations_limit]
    common.truncate()
    with common.timed() as load_time:
        if bulk:
            print("loading with bulk_create: BYPASSES the write path; not the product's figure")
            namespaces = _load(conversations)
        else:
            namespaces = load_public(conversations)
    questions = [(c, q) for c in conversations for q in c.questions]
    with common.timed() as embed_time:
        query_vectors = get_embedder().embed([q.text for _, q in questions])
    turns = sum(len(c.turns) for c in conversations)
    print(
        f"{len(conversations)} conversations, {turns} turns (embedded and loaded in {load_time():.1f} s), "
        f"{len(questions)} questions of categories 1-4 (embedded in {embed_time():.1f} s)"
    )

    def dia_ids(entries: list[MemoryEntry]) -> list[str]:
        return [entry.source_message_ids[0] for entry in entries]

    def loaded(rows: list[Any]) -> list[MemoryEntry]:
        entries = load_entries(rows)
        return [entries[row.pk] for row in rows if row.pk in entries]

    rankers = {c.name: bm25_ranker([t.content for t in c.turns]) for c in conversations}
    # Questions are asked as of the end of their conversation (dates in them are read from there).
    asked_at = {c.name: max(t.said_at for t in c.turns) for c in conversations}

    def ranked_ids(method: str, conversation: Conversation, text: str, vector: list[float]) -> list[str]:
        namespace = namespaces[conversation.name]
        scope = MemoryEntry.objects.in_namespaces([namespace.pk]).current()
        if method == "bm25":
            return [conversation.turns[i].dia_id for i in rankers[conversation.name](text)]
        if method == "vector":
            rows = common.one_source(where_of(scope), "vector", embedding=vector, k=max(KS))
            return dia_ids(loaded(rows))
        if method == "keyword":
            terms = candidates.prepare_search(text)
            weights = lexical.term_weights(namespace_ids=[namespace.pk], terms=terms)
            rows = common.one_source(where_of(scope), "keyword", weights=weights, k=max(KS))
            return dia_ids(loaded(rows))
        return recall_ids(namespace, text, asked_at=asked_at[conversation.name], query_embedding=vector)

    def run(method: str, *, by_category: bool = False) -> dict[int, float]:
        totals = dict.fromkeys(KS, 0.0)
        per_category: dict[int, list[tuple[float, ...]]] = {}
        per_conversation: dict[str, list[tuple[float, ...]]] = {}
        shown = 0
        for (conversation, question), vector in zip(questions, query_vectors, strict=True):
            ids = ranked_ids(method, conversation, question.text, vector)
            figures = tuple(recall_at(ids, question.evidence, k) for k in KS)
            hit = float(bool(set(ids[:10]) & question.evidence))
            per_category.setdefault(question.category, []).append((*figures, hit))
            per_conversation.setdefault(conversation.name, []).append((*figures, hit))
            for k, figure in zip(KS, figures, strict=True):
                totals[k] += figure
            if shown < misses and figures[1] < 1.0 and method == "hybrid":
                shown += 1
                _print_miss(conversation, question.text, question.evidence, ids)
        if by_category:
            names = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
            print(
                f"  {'category':<16}{'n':>5}" + "".join(f"{'R@' + str(k):>8}" for k in KS) + f"{'hit@10':>8}"
            )
            groups = [(f"{c} {names.get(c, '')}", per_category[c]) for c in sorted(per_category)]
            groups += [(f"conversation {name}", rows) for name, rows in per_conversation.items()]
            for label, rows in groups:
                means = [sum(row[i] for row in rows) / len(rows) for i in range(len(KS) + 1)]
                print(f"  {label:<16}{len(rows):>5}" + "".join(f"{m:8.3f}" for m in means))
        return {k: totals[k] / len(questions) for k in KS}

    if before_job and context_waiting():
        figures = run("hybrid")
        print(
            f"hybrid before the context-vector job (stand-in vectors, {context_waiting()} waiting):"
            + "".join(f"  R@{k} {figures[k]:.3f}" for k in KS),
            flush=True,
        )
    run_context_job()

    results: dict[str, dict[int, float]] = {}
    print(f"{'method':<36}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
    for method, label in (
        ("bm25", "BM25 (baseline, plain Python)"),
        ("vector", "vector only (MiniLM cosine)"),
        ("keyword", "keyword only (BM25 in SQL)"),
        ("hybrid", "hybrid memory_recall"),
    ):
        with common.timed() as elapsed:
            results[method] = run(method)
        print(
            f"{label:<36}"
            + "".join(f"{results[method][k]:8.3f}" for k in KS)
            + f"   {elapsed() / len(questions) * 1000:6.1f} ms/question",
            flush=True,
        )
    for k in KS:
        print(
            f"hybrid vs BM25 @ {k}: {common.ratio(results['hybrid'][k], results['bm25'][k])}, "
            f"vs vector: {common.ratio(results['hybrid'][k], results['vector'][k])}"
        )
    print("\nhybrid per question category (hit@10: at least one evidence turn in the first 10):")
    run("hybrid", by_category=True)

    if ablate:
        from memory_core.recall import COMPONENTS

        print("\nablation (hybrid, one component off at a time):")
        for off in ("none", *COMPONENTS, "all"):
            enabled = () if off == "all" else tuple(c for c in COMPONENTS if c != off)
            with override_settings(RECALL_COMPONENTS=enabled):
                figures = run("hybrid")
            print(f"  without {off:<12}" + "".join(f"  R@{k} {figures[k]:.3f}" for k in KS), flush=True)

    if sweep:
        print("\nsweep of the similarity / keyword weights (others at their defaults):")
        for similarity in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            weights = {"similarity": similarity, "keyword": round(1 - similarity, 2)}
            with override_settings(RECALL_WEIGHTS=weights):
                figures = run("hybrid")
            print(f"  {weights}: " + "  ".join(f"R@{k} {figures[k]:.3f}" for k in KS), flush=True)
    return results


def context_waiting() -> int:
    from memory_core.context_vectors import waiting

    return waiting()


def run_context_job() -> None:
    """The context-vector job to completion (`CONTEXT_VECTOR=deferred`), before any question,
    and the term vectors it embeds after the context documents (`memory_core.term_vectors`)."""
    from memory_core.context_vectors import context_vectors_drain

    run_term_job()
    left = context_waiting()
    if not left:
        print("context-vector job: nothing waiting")
        return
    report = context_vectors_drain()
    print(
        f"context-vector job run to completion before the questions: {report.stored} of {left} waiting "
        f"documents embedded and stored in {report.seconds:.1f} s ({report.model_calls} model calls "
        f"taking {report.model_seconds:.1f} s), "
        f"{context_waiting()} waiting",
        flush=True,
    )


def run_term_job() -> None:
    """The term vectors the job embeds (the words recall relates to a query's), to completion."""
    from memory_core.term_vectors import term_vectors_drain, waiting

    left = waiting()
    report = term_vectors_drain()
    print(
        f"term vectors: {report.stored} of {left} waiting terms embedded and stored "
        f"in {report.seconds:.1f} s ({report.model_calls} model calls), {report.pairs} related pairs",
        flush=True,
    )


def _print_miss(conversation: Conversation, question: str, evidence: frozenset[str], ids: list[str]) -> None:
    by_id = {turn.dia_id: turn.content for turn in conversation.turns}
    print(f"\nMISS {question}")
    for dia_id in sorted(evidence):
        where = ids.index(dia_id) + 1 if dia_id in ids else "-"
        print(f"   evidence {dia_id} (rank {where}): {by_id[dia_id][:150]}")
    for dia_id in ids[:3]:
        print(f"   got {dia_id}: {by_id[dia_id][:120]}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench locomo")
    parser.add_argument("--sweep", action="store_true", help="also sweep the similarity/keyword weights")
    parser.add_argument("--ablate", action="store_true", help="also rank with each component switched off")
    parser.add_argument("--misses", type=int, default=0, help="print this many questions hybrid misses")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--runtimes", action="store_true", help="compare EMBEDDING_RUNTIME onnx and torch")
    parser.add_argument(
        "--before-job",
        action="store_true",
        help="also ask the hybrid questions before the context-vector job has run (deferred mode)",
    )
    parser.add_argument(
        "--bulk",
        action="store_true",
        help="load with bulk_create, past the write path (with the turn before as context)",
    )
    args = parser.parse_args(argv)
    common.setup()
    common.header("LoCoMo retrieval (evidence recall@k)")
    if not args.runtimes:
        evaluate(
            sweep=args.sweep,
            ablate=args.ablate,
            misses=args.misses,
            conversations_limit=args.conversations,
            bulk=args.bulk,
            before_job=args.before_job,
        )
        return
    compare_runtimes(conversations_limit=args.conversations)


def compare_runtimes(*, conversations_limit: int) -> None:
    """The same evaluation with turns and questions embedded on each runtime (torch is the baseline)."""
    from django.test import override_settings

    results: dict[str, dict[str, dict[int, float]]] = {}
    for runtime in ("onnx", "torch"):
        print(f"\nEMBEDDING_RUNTIME={runtime}:")
        with override_settings(EMBEDDING_RUNTIME=runtime):
            results[runtime] = evaluate(conversations_limit=conversations_limit)
    print("\nonnx minus torch (evidence recall):")
    for method in ("vector", "hybrid"):
        deltas = [results["onnx"][method][k] - results["torch"][method][k] for k in KS]
        print(f"  {method:<8}" + "".join(f"  R@{k} {d:+.4f}" for k, d in zip(KS, deltas, strict=True)))


if __name__ == "__main__":
    main()
