"""The graph source of recall on multi-hop questions (issue 19).

`python -m bench entities [--users N] [--locomo N]`:

1. the labelled synthetic set (tests/data/entities/multihop.json, `bench.entities_data`): each
   user's statements written through the real write pipeline (which builds the graph), then
   every question recalled with and without the graph source: recall@5 of the answering
   statement among the ranked entries after the always-recall ones, and recall latency
   p50/p95 with the graph on and off, taking turns question by question, three times: each
   question's embedding computed as for a new message (the graph is walked while it is
   computed); the embedding already cached (a question asked again: nothing hides the walk);
   and the embedding cached with the graph read again from the database for each question, as
   after a write that changed it (`memory_core.entities.graph_cache`);
2. with `--locomo N`, the first N LoCoMo conversations (`bench.locomo`), their turns read into
   the graph by the same offline rules, evidence R@10 per question category with and without.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from bench import common

ON = ("context", "keyword", "time", "names", "graph")
OFF = ("context", "keyword", "time", "names")
K = 5


def _instant(text: str | None) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def _write(users: list[dict[str, Any]]) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from memory_core.pipeline import memory_add
    from memory_core.services import namespace_for_user

    namespaces: dict[str, Any] = {}
    answers: dict[tuple[str, str], str] = {}
    for user in users:
        account, _ = get_user_model().objects.get_or_create(username=f"bench-{user['user']}")
        namespace = namespace_for_user(user=account)
        namespaces[user["user"]] = namespace
        texts = [*user["statements"].items(), *((f"filler{i}", t) for i, t in enumerate(user["fillers"]))]
        for key, said in texts:
            # A statement is its text, or {"text", "valid_from"} when it is dated (a fresh set's).
            text, start = (said["text"], said.get("valid_from")) if isinstance(said, dict) else (said, None)
            outcome = memory_add(namespace=namespace, content=text, valid_from=_instant(start))
            if outcome.entry is not None:
                answers[(user["user"], key)] = str(outcome.entry.pk)
    return {"namespaces": namespaces, "answers": answers}


def _ask(
    users: list[dict[str, Any]],
    world: dict[str, Any],
    builds: tuple[tuple[str, ...], ...],
    *,
    fresh: bool = False,
    reread: bool = False,
) -> list[tuple[float, list[float]]]:
    """Each build's recall@K and durations over every question. The builds take turns question
    by question (the first to go alternates), so that the machine's load hits each alike."""
    from django.test import override_settings

    from memory_core.embeddings import query_cache
    from memory_core.entities import graph_cache
    from memory_core.recall import memory_recall

    hits = [0] * len(builds)
    durations: list[list[float]] = [[] for _ in builds]
    total = 0
    for user in users:
        namespace = world["namespaces"][user["user"]]
        for question in user["questions"]:
            order = list(range(len(builds)))
            if total % 2:
                order.reverse()
            for index in order:
                with override_settings(RECALL_COMPONENTS=builds[index]):
                    if fresh:
                        query_cache.clear()
                    if reread:
                        graph_cache.clear()
                    start = time.perf_counter()
                    result = memory_recall(
                        namespaces=[namespace],
                        query=question["text"],
                        limit=20,
                        record=False,
                        at=_instant(question.get("at")),
                    )
                    durations[index].append(time.perf_counter() - start)
                # The always-recall entries (the user's own profile and safety facts) come first
                # whatever the query; recall@5 counts the ranked ones after them.
                ranked = [item for item in result.items if not {"pinned", "always"} & set(item.reasons)]
                ids = [str(item.entry.pk) for item in ranked[:K]]
                hit = world["answers"][(user["user"], question["answer"])] in ids
                hits[index] += hit
                kind = "point-in-time" if question.get("at") else user["user"].rsplit("-", 1)[0]
                world.setdefault("by_kind", {}).setdefault(kind, [[0, 0] for _ in builds])[index][0] += hit
                world["by_kind"][kind][index][1] += 1
            total += 1
    return [(hits[index] / total, durations[index]) for index in range(len(builds))]


def synthetic(users_limit: int, data: str = "") -> None:
    import json
    from pathlib import Path

    from bench.entities_data import load
    from memory_core.entities.models import Entity, Relation

    common.header(
        f"entities: {data or 'synthetic'} multi-hop questions (recall@5 of the answering statement)"
    )
    users = (json.loads(Path(data).read_text(encoding="utf-8")) if data else load())[: users_limit or None]
    common.truncate()
    with common.timed() as elapsed:
        world = _write(users)
    statements = sum(len(u["statements"]) + len(u["fillers"]) for u in users)
    questions = sum(len(u["questions"]) for u in users)
    print(
        f"{len(users)} users, {statements} statements written through the pipeline in {elapsed():.1f} s; "
        f"{Entity.objects.count()} entities, {Relation.objects.count()} relations; {questions} questions"
    )
    _ask(users, world, (ON, OFF))  # warm-up: embeddings cached, plans prepared
    with_graph, without_graph = 0.0, 0.0
    cases = (
        (True, False, "embedding computed (a new message)"),
        (False, False, "embedding cached (asked again)"),
        (False, True, "embedding cached, graph read again (after a write changed it)"),
    )
    for fresh, reread, label in cases:
        on_durations: list[float] = []
        off_durations: list[float] = []
        for _ in range(3):
            (with_graph, on), (without_graph, off) = _ask(users, world, (ON, OFF), fresh=fresh, reread=reread)
            on_durations += on
            off_durations += off
        print(f"latency, {label}:")
        print(f"  without graph: {common.summary_ms(off_durations)}")
        print(f"  with graph:    {common.summary_ms(on_durations)}")
        p95_on, p95_off = common.percentile(on_durations, 95), common.percentile(off_durations, 95)
        print(f"  p95 with / without: {common.ratio(p95_on, p95_off)} ({len(on_durations)} recalls each)")
    print(f"recall@{K} per kind of question, with / without the graph (every run):")
    for kind, ((on_hits, n), (off_hits, _)) in sorted(world["by_kind"].items()):
        print(f"  {kind:<18}{n:>5}{on_hits / n:8.3f}{off_hits / n:8.3f}")
    print(f"recall@{K} without the graph source (baseline): {without_graph:.3f}")
    gain = common.ratio(with_graph, without_graph)
    print(f"recall@{K} with the graph source:               {with_graph:.3f}  ({gain})")


def locomo(conversations_limit: int) -> None:
    """LoCoMo turns loaded as `bench.locomo` loads them, read into the graph by the offline rules
    (the hook the write pipeline runs), then evidence R@10 per category with the graph on / off."""
    from django.db import transaction
    from django.test import override_settings

    from bench.locomo import _load, recall_at
    from bench.locomo_data import load_all
    from memory_core.embeddings import get_embedder
    from memory_core.entities.hooks import RULES_EXTRACTOR
    from memory_core.entities.models import Entity, Relation
    from memory_core.entities.record import record_reading
    from memory_core.entities.resolve import Resolver
    from memory_core.entities.transcript import read
    from memory_core.models import MemoryEntry
    from memory_core.recall import memory_recall

    common.header(
        f"entities: LoCoMo, first {conversations_limit} conversation(s), per category, graph on / off"
    )
    conversations = load_all()[:conversations_limit]
    common.truncate()
    namespaces = _load(conversations)
    with common.timed() as elapsed:
        for namespace in namespaces.values():
            resolver = Resolver(namespace.pk)
            with transaction.atomic():
                for entry in MemoryEntry.objects.filter(namespace=namespace).order_by("valid_from"):
                    record_reading(
                        entry=entry, reading=read(entry.content), resolver=resolver, extractor=RULES_EXTRACTOR
                    )
    built = f"{Entity.objects.count()} entities, {Relation.objects.count()} relations"
    print(f"graph built in {elapsed():.1f} s: {built}")
    questions = [(c, q) for c in conversations for q in c.questions]
    vectors = get_embedder().embed([q.text for _, q in questions])
    asked_at = {c.name: max(t.said_at for t in c.turns) for c in conversations}
    names = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
    table: dict[str, dict[int, list[float]]] = {}
    for label, components in (("off", OFF), ("on", ON)):
        per: dict[int, list[float]] = {}
        with override_settings(RECALL_COMPONENTS=components):
            for (conversation, question), vector in zip(questions, vectors, strict=True):
                result = memory_recall(
                    namespaces=[namespaces[conversation.name]],
                    query=question.text,
                    query_embedding=vector,
                    budget_tokens=100_000,
                    limit=10,
                    record=False,
                    reference_date=asked_at[conversation.name],
                )
                ids = [item.entry.source_message_ids[0] for item in result.items]
                per.setdefault(question.category, []).append(recall_at(ids, question.evidence, 10))
        table[label] = per
    print(f"  {'category':<16}{'n':>5}{'R@10 off':>10}{'R@10 on':>10}{'on/off':>8}")
    for category in sorted(table["off"]):
        off = table["off"][category]
        on = table["on"][category]
        mean_off, mean_on = sum(off) / len(off), sum(on) / len(on)
        label = f"{category} {names.get(category, '')}"
        print(
            f"  {label:<16}{len(off):>5}{mean_off:10.3f}{mean_on:10.3f}{common.ratio(mean_on, mean_off):>8}"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench entities")
    parser.add_argument("--users", type=int, default=0, help="only the first N synthetic users")
    parser.add_argument("--locomo", type=int, default=2, help="LoCoMo conversations (0: skip)")
    parser.add_argument("--no-synthetic", action="store_true", help="only the LoCoMo part")
    parser.add_argument(
        "--data",
        default="",
        help="another set of the same shape (e.g. tests/data/entities/fresh_issue29.json)",
    )
    args = parser.parse_args(argv or [])
    common.setup()
    if not args.no_synthetic:
        synthetic(args.users, args.data)
    if args.locomo:
        locomo(args.locomo)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
