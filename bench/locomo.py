"""Retrieval quality on LoCoMo: evidence recall@5/10/20 of vector, keyword, hybrid recall and BM25.

Each conversation becomes a namespace and each turn a memory "Speaker said, on DATE: text"; the
questions of categories 1-4 are asked, and the turns named as their evidence are the relevant set.
Recall@k of a question is the share of its evidence turns among the first k results, averaged
over questions. BM25 (plain Python, over the same texts) is the reference baseline.

`python -m bench locomo [--sweep] [--conversations N] [--runtimes]`: --sweep also prints the
similarity/keyword blend sweep behind the default weights; --runtimes runs the whole evaluation on
each local embedding runtime (ONNX Runtime, then torch as the baseline) and prints the differences.
"""

from __future__ import annotations

import argparse
import math
import re
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from bench import common
from bench.locomo_data import Conversation, load_all

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


def _load(conversations: list[Conversation]) -> dict[str, Namespace]:
    """One namespace per conversation, one memory per turn (embedded in batches, bulk inserted)."""
    from memory_core.embeddings import get_embedder
    from memory_core.models import MemoryEntry, MemoryType, Namespace, SourceKind

    embedder = get_embedder()
    namespaces: dict[str, Namespace] = {}
    for conversation in conversations:
        namespace = Namespace.objects.create(path=f"agent/locomo-{conversation.name}", kind="agent")
        vectors = embedder.embed([turn.content for turn in conversation.turns])
        MemoryEntry.objects.bulk_create(
            MemoryEntry(
                namespace=namespace,
                type=MemoryType.EPISODIC,
                content=turn.content,
                source_kind=SourceKind.EXTRACTED,
                source_conversation=f"locomo-{conversation.name}",
                source_message_ids=[turn.dia_id],
                valid_from=turn.said_at,
                recorded_at=turn.said_at,
                embedding=vector,
                embedding_model=embedder.name,
            )
            for turn, vector in zip(conversation.turns, vectors, strict=True)
        )
        namespaces[conversation.name] = namespace
    return namespaces


def _recall_at(ranked_ids: list[str], evidence: frozenset[str], k: int) -> float:
    return len(set(ranked_ids[:k]) & evidence) / len(evidence)


def evaluate(*, sweep: bool = False, conversations_limit: int = 0) -> dict[str, dict[int, float]]:
    from django.db import transaction
    from django.test import override_settings

    from memory_core import recall
    from memory_core.embeddings import get_embedder, runtime_in_use
    from memory_core.models import MemoryEntry

    print(f"embeddings: {runtime_in_use()}")
    conversations = load_all()
    if conversations_limit > 0:
        conversations = conversations[:conversations_limit]
    common.truncate()
    with common.timed() as load_time:
        namespaces = _load(conversations)
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

    rankers = {c.name: bm25_ranker([t.content for t in c.turns]) for c in conversations}

    def run(method: str) -> dict[int, float]:
        totals = dict.fromkeys(KS, 0.0)
        for (conversation, question), vector in zip(questions, query_vectors, strict=True):
            namespace = namespaces[conversation.name]
            scope = MemoryEntry.objects.in_namespaces([namespace.pk]).current()
            if method == "bm25":
                ids = [conversation.turns[i].dia_id for i in rankers[conversation.name](question.text)]
            elif method == "vector":
                with transaction.atomic():
                    recall.prepare_search(question.text)
                    rows = recall.vector_candidates(scope, embedding=vector, text_query=None, k=max(KS))
                ids = dia_ids(sorted(rows, key=lambda e: getattr(e, "distance", 0.0)))
            elif method == "keyword":
                with transaction.atomic():
                    terms = recall.discriminating_terms(scope, recall.prepare_search(question.text))
                    query = recall.any_term(terms)
                    rows = recall.keyword_candidates(scope, text_query=query, embedding=None, k=max(KS))
                ids = dia_ids(rows)
            else:
                result = recall.memory_recall(
                    namespaces=[namespace],
                    query=question.text,
                    query_embedding=vector,
                    budget_tokens=100_000,
                    limit=max(KS),
                    record=False,
                )
                ids = dia_ids([item.entry for item in result.items])
            for k in KS:
                totals[k] += _recall_at(ids, question.evidence, k)
        return {k: totals[k] / len(questions) for k in KS}

    results: dict[str, dict[int, float]] = {}
    print(f"{'method':<28}" + "".join(f"{'R@' + str(k):>8}" for k in KS))
    for method, label in (
        ("bm25", "BM25 (baseline)"),
        ("vector", "vector only (MiniLM cosine)"),
        ("keyword", "keyword only (ts_rank_cd)"),
        ("hybrid", "hybrid memory_recall"),
    ):
        results[method] = run(method)
        print(f"{label:<28}" + "".join(f"{results[method][k]:8.3f}" for k in KS), flush=True)
    for k in KS:
        print(
            f"hybrid vs BM25 @ {k}: {common.ratio(results['hybrid'][k], results['bm25'][k])}, "
            f"vs vector: {common.ratio(results['hybrid'][k], results['vector'][k])}"
        )

    if sweep:
        print("\nsweep of the similarity / keyword weights (others at their defaults):")
        for similarity in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            weights = {"similarity": similarity, "keyword": round(1 - similarity, 2)}
            with override_settings(RECALL_WEIGHTS=weights):
                figures = run("hybrid")
            print(f"  {weights}: " + "  ".join(f"R@{k} {figures[k]:.3f}" for k in KS), flush=True)
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench locomo")
    parser.add_argument("--sweep", action="store_true", help="also sweep the similarity/keyword weights")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--runtimes", action="store_true", help="compare EMBEDDING_RUNTIME onnx and torch")
    args = parser.parse_args(argv)
    common.setup()
    common.header("LoCoMo retrieval (evidence recall@k)")
    if not args.runtimes:
        evaluate(sweep=args.sweep, conversations_limit=args.conversations)
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
