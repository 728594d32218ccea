"""Recall in Chinese beside English: top-1 and recall@5 of lexical, vector and hybrid search.

`tests/data/languages/recall_pairs.json` holds 51 memories a user might tell an assistant (safety,
health, home, work, names, family, preferences, events, identifiers) in Chinese and in English,
and 102 questions, each answered by one of them, in both languages. For each language the
memories are written for a fresh user through the product's write path (`pipeline.memory_add`),
then every question of that language is asked:

* lexical: the BM25 keyword candidates alone (recall's keyword search, `common.one_source`);
* vector: the nearest entries by the local embedding alone (recall's vector search, the same);
* hybrid: `recall.memory_recall`, its items ordered by score (each score checked to be its
  breakdown blended with the weights recall used: `embedding_coverage.query_weights`). (The
  prompt block lists the always-recall entries, such as allergies, first whatever the question;
  "served" counts top-1 in that order.) "answerable": hybrid over the questions whose memory
  the write path made current (a statement it reads as a rule waits for review and cannot be
  recalled).

The same run repeats both languages with the local embedding at its full weight for every query
(before the language-aware weights), and Chinese with segmentation off (the index and the query
read the text as written, as before issue 17), without the characters of words, with jieba's
plain `cut` instead of `cut_for_search` and without the stop list, as baselines; and both
languages without the topic words of a memory's key (`memory_core.topics`: before them), and
Chinese with those words at the statement's weight A and at the context's weight D.
`python -m bench languages [--misses]`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from bench import common

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "languages" / "recall_pairs.json"
METHODS = ("lexical", "vector", "hybrid", "served")
COLUMNS = (*METHODS, "answerable")
K = 5


def load_set() -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return data["memories"], data["questions"]


@contextmanager
def segmentation(mode: str) -> Iterator[None]:
    """`search` (the product's), `words` (no characters), `cut` (jieba's plain segmentation),
    `nostop` (no stop list), `notopic` (no topic words of the key), `topic-a` / `topic-d` (the
    topic words at the statement's weight A / the context's D) or `off` (text as written)."""
    import rjieba

    from memory_core import language, lexical

    saved = (language.segment, language.search_text, language.CHARACTERS, language.STOP_WORDS,
             language.topic_terms, language.TOPIC_WEIGHT)  # fmt: skip
    if mode == "nostop":
        language.STOP_WORDS = frozenset()
    if mode == "cut":
        language.segment = rjieba.cut
    if mode == "words":
        language.CHARACTERS = False
    if mode in ("notopic", "off"):
        language.topic_terms = lambda text, key: []
    if mode in ("topic-a", "topic-d"):
        language.TOPIC_WEIGHT = "A" if mode == "topic-a" else "D"
    replaced: Callable[[str], str | None] = (lambda text: None) if mode == "off" else language.search_text
    for module in (language, lexical):
        module.search_text = replaced  # type: ignore[attr-defined]
    try:
        yield
    finally:
        language.segment, language.CHARACTERS, language.STOP_WORDS = saved[0], saved[2], saved[3]
        language.topic_terms, language.TOPIC_WEIGHT = saved[4], saved[5]
        for module in (language, lexical):
            module.search_text = saved[1]  # type: ignore[attr-defined]


def _write(user_name: str, memories: list[dict[str, str]], lang: str) -> tuple[Any, dict[str, str]]:
    """A fresh user's namespace holding the memories; the entry id → memory id map."""
    from django.contrib.auth import get_user_model

    from memory_core.models import ActorKind
    from memory_core.pipeline import memory_add
    from memory_core.services import namespace_for_user

    user, _ = get_user_model().objects.get_or_create(username=user_name)
    namespace = namespace_for_user(user=user)
    ids: dict[str, str] = {}
    for memory in memories:
        result = memory_add(namespace=namespace, content=memory[lang], actor=user, actor_kind=ActorKind.USER)
        if result.entry is None:
            print(f"  not stored ({lang}): {memory[lang]}")
            continue
        ids[str(result.entry.pk)] = memory["id"]
    return namespace, ids


def _inactive(namespace: Any, ids: dict[str, str]) -> dict[str, str]:
    """Memories the write path did not make current, with their status (a statement read as a
    rule waits for an operator's review): their questions cannot be answered."""
    from memory_core.models import MemoryEntry

    entries = MemoryEntry.objects.in_namespaces([namespace.pk])
    current = set(entries.current().values_list("pk", flat=True))
    return {ids[str(pk)]: status for pk, status in entries.values_list("pk", "status") if pk not in current}


def _ranked(method: str, namespace: Any, text: str, vector: list[float]) -> list[str]:

    from memory_core import lexical, recall
    from memory_core.models import MemoryEntry
    from memory_core.recall import candidates

    scope = MemoryEntry.objects.in_namespaces([namespace.pk]).current()
    if method == "vector":
        rows = common.one_source(candidates.where_of(scope), "vector", embedding=vector, k=K)
        return [str(row.pk) for row in rows]
    if method == "lexical":
        weights = lexical.term_weights(namespace_ids=[namespace.pk], terms=candidates.prepare_search(text))
        rows = common.one_source(candidates.where_of(scope), "keyword", weights=weights, k=K)
        return [str(row.pk) for row in rows]
    result = recall.memory_recall(
        namespaces=[namespace],
        query=text,
        query_embedding=vector,
        budget_tokens=100_000,
        limit=50,
        record=False,
    )
    items = list(result.items)
    if not all(_honest(item, text) for item in items):
        raise AssertionError(f"a score is not its breakdown under the weights in use: {text}")
    if method == "hybrid":
        items.sort(key=lambda item: -item.score)
    return [str(item.entry.pk) for item in items]


@contextmanager
def full_embedding_weight() -> Iterator[None]:
    """Recall as before the language-aware weights: the local embedding at its full weight for
    every query (the baseline of `embedding_coverage.query_weights`)."""
    from memory_core import embedding_coverage

    saved = embedding_coverage.CJK_LOCAL_EMBEDDING_SHARE
    embedding_coverage.CJK_LOCAL_EMBEDDING_SHARE = 1.0
    try:
        yield
    finally:
        embedding_coverage.CJK_LOCAL_EMBEDDING_SHARE = saved


def _honest(item: Any, text: str) -> bool:
    """The item's score is its breakdown blended with the weights recall says it used for `text`."""
    from memory_core import embedding_coverage, recall

    weights = embedding_coverage.query_weights(recall.recall_weights(), text)
    return abs(recall.blend(item.breakdown, weights) - item.score) < 1e-4


def evaluate(lang: str, mode: str, *, misses: bool = False) -> dict[str, tuple[float, float]]:
    """{method: (top-1, recall@5)} for one language under one segmentation mode."""
    from memory_core.embeddings import get_embedder

    memories, questions = load_set()
    common.truncate()
    full = mode == "full-embedding"
    weights = full_embedding_weight() if full else nullcontext()
    with segmentation("search" if full else mode), weights:
        namespace, ids = _write(f"bench-{lang}-{mode}", memories, lang)
        vectors = get_embedder().embed([q[lang] for q in questions])
        inactive = _inactive(namespace, ids)
        if inactive:
            print(f"  {lang}/{mode}: not current after the write: {inactive}")
        figures: dict[str, tuple[float, float]] = {}
        for method in METHODS:
            top1 = at5 = 0
            for question, vector in zip(questions, vectors, strict=True):
                found = [ids.get(pk) for pk in _ranked(method, namespace, question[lang], vector)]
                top1 += bool(found) and found[0] == question["memory"]
                at5 += question["memory"] in found[:K]
                if misses and method == "hybrid" and (not found or found[0] != question["memory"]):
                    print(f"  MISS {question[lang]} → {question['memory']}; got {found[:3]}")
            figures[method] = (top1 / len(questions), at5 / len(questions))
            if method == "hybrid":
                # Questions about a memory that is not current count as misses above.
                current = set(ids.values()) - set(inactive)
                answerable = sum(q["memory"] in current for q in questions)
                figures["answerable"] = (top1 / answerable, at5 / answerable)
    return figures


def _segmentation_cost(memories: list[dict[str, str]]) -> None:
    """What the write path spends on `search_text` per memory, Chinese beside English (baseline)."""
    from memory_core.language import search_text

    costs = {}
    for lang in ("zh", "en"):
        texts = [memory[lang] for memory in memories] * 50
        with common.timed() as elapsed:
            for text in texts:
                search_text(text)
        costs[lang] = elapsed() / len(texts)
    print(
        f"search_text per memory: Chinese {costs['zh'] * 1e6:.1f} us, English {costs['en'] * 1e6:.1f} us "
        f"({common.ratio(costs['zh'], costs['en'])})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench languages")
    parser.add_argument("--misses", action="store_true", help="print the questions hybrid ranks wrong")
    args = parser.parse_args(argv)
    common.setup()
    from memory_core.embeddings import runtime_in_use

    memories, questions = load_set()
    common.header(f"Recall by language: {len(memories)} memories, {len(questions)} questions each")
    print(f"embeddings: {runtime_in_use()}")
    runs = (
        ("en", "search", "English"),
        ("zh", "search", "Chinese (words and their characters)"),
        ("zh", "words", "Chinese (words only, cut_for_search)"),
        ("zh", "cut", "Chinese (plain cut, and characters)"),
        ("zh", "nostop", "Chinese (no stop list)"),
        ("zh", "notopic", "Chinese (no topic words: before)"),
        ("zh", "topic-a", "Chinese (topic words at weight A)"),
        ("zh", "topic-d", "Chinese (topic words at weight D)"),
        ("en", "notopic", "English (no topic words: before)"),
        ("zh", "full-embedding", "Chinese (embedding full weight: before)"),
        ("en", "full-embedding", "English (embedding full weight: before)"),
        ("zh", "off", "Chinese (not segmented: before)"),
    )
    results: dict[tuple[str, str], dict[str, tuple[float, float]]] = {}
    print(f"{'':<38}" + "".join(f"{m + ' top1':>16}{'R@5':>7}" for m in COLUMNS))
    for lang, mode, label in runs:
        with common.timed() as elapsed:
            results[lang, mode] = evaluate(lang, mode, misses=args.misses and mode in ("search", "notopic"))
        row = "".join(f"{results[lang, mode][m][0]:16.3f}{results[lang, mode][m][1]:7.3f}" for m in COLUMNS)
        print(f"{label:<38}{row}   ({elapsed():.0f} s)", flush=True)
    _segmentation_cost(memories)
    en, zh, before = results["en", "search"], results["zh", "search"], results["zh", "off"]
    for lang, name in (("zh", "Chinese"), ("en", "English")):
        now, without = results[lang, "search"]["hybrid"][0], results[lang, "notopic"]["hybrid"][0]
        print(f"{name} hybrid top-1: with topic words {now:.3f}, without {without:.3f}")
    for lang, name in (("zh", "Chinese"), ("en", "English")):
        now, full = results[lang, "search"]["hybrid"][0], results[lang, "full-embedding"]["hybrid"][0]
        print(f"{name} hybrid top-1: language-aware weights {now:.3f}, embedding at full weight {full:.3f}")
    for method in COLUMNS:
        print(
            f"{method:<8} top-1 Chinese - English {zh[method][0] - en[method][0]:+.3f}; "
            f"Chinese segmented vs not: {common.ratio(zh[method][0], before[method][0])}"
        )


if __name__ == "__main__":
    main()
