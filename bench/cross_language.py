"""Cross-language recall with and without query translation (RECALL_TRANSLATE_QUERY).

One bilingual user's memories (bench/cross_language_data.py: 24 Chinese memories asked about in
English, 24 English memories asked about in Chinese), the default local embedding model. Each
question is recalled three ways in the same run:

- plain: the question as asked (translation off, the default);
- translated: translation on, the translator being the scripted OpenAI-protocol server answering
  with the human translation: the upper bound of a perfect translator, not a real model's figure;
- same language: the human translation asked directly (what a user writing in the memory's
  language gets).

Top-1 and recall@5 per direction, and recall latency with translation off / on (a new question:
the translation cache is cleared before each; and a repeated one). The scripted server answers
at once, so the latency added here is the round trip, a second query embedding and a second
candidate search; a real model adds its own answer time on top.

    python -m bench cross_language
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from typing import Any

from bench import common
from bench.cross_language_data import EN_MEMORIES_ZH_QUESTIONS, PAIRS, ZH_MEMORIES_EN_QUESTIONS, Pair

K = 5


def _load() -> Any:
    from memory_core.embeddings import get_embedder
    from memory_core.models import MemoryEntry, MemoryType, Namespace, SourceKind

    embedder = get_embedder()
    namespace = Namespace.objects.create(path="agent/bench-bilingual", kind="agent")
    texts = [pair.memory for pair in PAIRS]
    MemoryEntry.objects.bulk_create(
        MemoryEntry(
            namespace=namespace,
            type=MemoryType.SEMANTIC,
            content=text,
            source_kind=SourceKind.API_IMPORT,
            embedding=vector,
            context_embedding=vector,
            embedding_model=embedder.name,
        )
        for text, vector in zip(texts, embedder.embed(texts), strict=True)
    )
    return namespace


def _recalled(namespace: Any, question: str) -> list[str]:
    from memory_core.recall import memory_recall

    result = memory_recall(
        namespaces=[namespace], query=question, budget_tokens=100_000, limit=K, record=False
    )
    return [item.entry.content for item in result.items]


def _score(namespace: Any, pairs: list[Pair], ask: Callable[[Pair], str]) -> tuple[float, float]:
    top1 = at_k = 0
    for pair in pairs:
        found = _recalled(namespace, ask(pair))
        top1 += bool(found) and found[0] == pair.memory
        at_k += pair.memory in found[:K]
    return top1 / len(pairs), at_k / len(pairs)


def _latency(namespace: Any, questions: list[str], *, repeats: int, clear: bool) -> list[float]:
    from memory_core import embeddings
    from memory_core.recall import translation as query_translation

    durations = []
    for _ in range(repeats):
        for question in questions:
            if clear:  # a new question: neither its embedding nor its translation is cached
                embeddings.query_cache.clear()
                query_translation.cache.clear()
            with common.timed() as elapsed:
                _recalled(namespace, question)
            durations.append(elapsed())
    return durations


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench cross_language")
    parser.add_argument("--repeats", type=int, default=3, help="latency passes over the questions")
    args = parser.parse_args(argv)
    common.setup()
    common.truncate()
    for name in ("httpx", "httpx2", "openai"):  # a line per request would bury the figures
        logging.getLogger(name).setLevel(logging.WARNING)
    from django.conf import settings

    from memory_core.embeddings import runtime_in_use
    from memory_core.recall import translation as query_translation
    from tests.openai_server import ScriptedOpenAIServer

    oracle = {pair.question: pair.translated for pair in PAIRS}
    server = ScriptedOpenAIServer().start()
    server.answer_with(lambda messages: oracle.get(messages[-1]["content"], messages[-1]["content"]))
    settings.OPENAI_API_KEY = "bench"
    settings.OPENAI_BASE_URL = server.base_url
    common.header(f"Cross-language recall (embeddings: {runtime_in_use()}; {len(PAIRS)} questions)")
    try:
        namespace = _load()
        directions = [
            ("English question -> Chinese memory", ZH_MEMORIES_EN_QUESTIONS),
            ("Chinese question -> English memory", EN_MEMORIES_ZH_QUESTIONS),
            ("both", PAIRS),
        ]
        print(f"{'':38} {'plain':>15} {'translated*':>15} {'same language':>15}")
        print(f"{'':38} {'top-1  R@5':>15} {'top-1  R@5':>15} {'top-1  R@5':>15}")
        for label, pairs in directions:
            settings.RECALL_TRANSLATE_QUERY = False
            plain = _score(namespace, pairs, lambda pair: pair.question)
            same = _score(namespace, pairs, lambda pair: pair.translated)
            settings.RECALL_TRANSLATE_QUERY = True
            query_translation.cache.clear()
            translated = _score(namespace, pairs, lambda pair: pair.question)
            cells = " ".join(f"{top1:6.2f} {at_k:6.2f}   " for top1, at_k in (plain, translated, same))
            print(f"{label:38} {cells}")
        print("* the translator returns the human translation: the upper bound of a perfect translator.")

        questions = [pair.question for pair in PAIRS]
        settings.RECALL_TRANSLATE_QUERY = False
        _latency(namespace, questions, repeats=1, clear=True)  # warm the model and the database
        off = _latency(namespace, questions, repeats=args.repeats, clear=True)
        off_warm = _latency(namespace, questions, repeats=args.repeats, clear=False)
        settings.RECALL_TRANSLATE_QUERY = True
        cold = _latency(namespace, questions, repeats=args.repeats, clear=True)
        warm = _latency(namespace, questions, repeats=args.repeats, clear=False)
        print(f"recall latency, translation off, a new question:   {common.summary_ms(off)}")
        print(f"recall latency, translation on,  a new question:   {common.summary_ms(cold)}")
        print(f"recall latency, translation off, a repeated one:   {common.summary_ms(off_warm)}")
        print(f"recall latency, translation on,  a repeated one:   {common.summary_ms(warm)}")
        added_new = common.percentile(cold, 50) - common.percentile(off, 50)
        added_repeat = common.percentile(warm, 50) - common.percentile(off_warm, 50)
        ratio = common.percentile(cold, 50) / common.percentile(off, 50)
        print(
            f"added at p50: {added_new * 1000:.1f} ms for a new question (x{ratio:.2f}), "
            f"{added_repeat * 1000:.1f} ms for a repeated one; a real model's answer time comes on top "
            "of the new-question figure"
        )
    finally:
        server.stop()
        settings.RECALL_TRANSLATE_QUERY = False


if __name__ == "__main__":
    main()
