"""The graph source of recall on multi-hop questions (issue 19).

`python -m bench entities [--users N] [--locomo N]`:

1. the labelled synthetic set (tests/data/entities/multihop.json, `bench.entities_data`): each
   user's statements written through the real write pipeline (which builds the graph), then
   every question recalled with and without the graph source: recall@5 of the answering
   statement among the ranked entries after the always-recall ones, and recall latency
   p50/p95 with the graph on and off, taking turns question by question, three times: each
   question's embedding computed as for a new message (the graph is walked while it is
   computed); the embedding already cached (a question asked again: nothing hides the walk);
   the embedding cached after a write through the pipeline that named one of the user's people
   (untimed), so that the graph held is brought up to date with that write's rows
   (`memory_core.entities.graph_cache`); and the embedding cached with no graph held, read whole
   for each question (a process that held none, or held it too long);
2. with `--large-graph N` (default 10,000), one user's graph grown to about N items (entities
   and their mentions inserted in SQL, past the write path, as a user of many months has them):
   recall after each write that names someone, the graph brought up to date by the rows the write
   changed against read whole each time (`RECALL_GRAPH_CHANGES_FROM_ITEMS`), and the graph off;
3. with `--locomo N`, the first N LoCoMo conversations (`bench.locomo`), their turns read into
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
    write: bool = False,
) -> list[tuple[float, list[float]]]:
    """Each build's recall@K and durations over every question. The builds take turns question
    by question (the first to go alternates), so that the machine's load hits each alike. With
    `write`, a memory naming one of the user's people is added before each question (untimed;
    recall@K is not counted, the memories added compete with the answers)."""
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
            if write:
                _name_someone(namespace, total)
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
                if write:
                    continue
                kind = "point-in-time" if question.get("at") else user["user"].rsplit("-", 1)[0]
                world.setdefault("by_kind", {}).setdefault(kind, [[0, 0] for _ in builds])[index][0] += hit
                world["by_kind"][kind][index][1] += 1
            total += 1
    return [(hits[index] / total, durations[index]) for index in range(len(builds))]


def _name_someone(namespace: Any, turn: int) -> None:
    """A chat turn naming one of the user's people, through the write pipeline."""
    from memory_core.entities.models import Entity
    from memory_core.pipeline import memory_add

    names = sorted(
        Entity.objects.filter(namespace=namespace, is_self=False, named=True).values_list("name", flat=True)
    )
    if not names:
        return
    name = names[turn % len(names)]
    said = (
        f"今天和{name}通了电话。"
        if any("\u4e00" <= c <= "\u9fff" for c in name)
        else f"Had a quick call with {name} today."
    )
    memory_add(namespace=namespace, content=f"{said} ({turn})", turn=True)


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
        (True, False, False, "embedding computed (a new message)"),
        (False, False, False, "embedding cached (asked again)"),
        (False, True, False, "embedding cached, no graph held (read whole each time)"),
        # last: the memories it adds would compete with the answers of the cases after it
        (False, False, True, "embedding cached, after a write naming someone (the graph brought up to date)"),
    )
    for fresh, reread, write, label in cases:
        on_durations: list[float] = []
        off_durations: list[float] = []
        for _ in range(3):
            (hits_on, on), (hits_off, off) = _ask(
                users, world, (ON, OFF), fresh=fresh, reread=reread, write=write
            )
            if not write:
                with_graph, without_graph = hits_on, hits_off
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


def large_graph(items: int) -> None:
    """Recall latency for a user whose graph holds about `items` rows, after a write naming
    someone: the graph brought up to date by the changed rows, read whole, and off (baseline)."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import override_settings

    from memory_core.embeddings import query_cache
    from memory_core.entities import graph_cache
    from memory_core.pipeline import memory_add
    from memory_core.recall import memory_recall
    from memory_core.services import namespace_for_user

    common.header(f"entities: a graph of about {items} items, recall after each write naming someone")
    common.truncate()
    graph_cache.clear()
    account, _ = get_user_model().objects.get_or_create(username="bench-large-graph")
    namespace = namespace_for_user(user=account)
    texts = [
        "My sister Ana is a nurse in Leeds.",
        "Ana's husband Marc is a pilot.",
        "My friend Bea likes green tea.",
        *(f"Note {i}: I had lunch with a colleague and talked about the week." for i in range(40)),
    ]
    for text in texts:
        memory_add(namespace=namespace, content=text)
    with connection.cursor() as cursor:
        # A person mentioned by three memories is four items.
        cursor.execute(
            "INSERT INTO memory_core_entity (id, namespace_id, kind, name, aliases, is_self, named, "
            "embedding_model, created_at, updated_at) SELECT gen_random_uuid(), %s, 'person', "
            "'Person ' || g, ARRAY['person ' || g], false, true, '', now(), now() "
            "FROM generate_series(1, %s) g",
            [namespace.pk, items // 4],
        )
        cursor.execute(
            "INSERT INTO memory_core_entitymention (namespace_id, entity_id, entry_id, surface, created_at) "
            "SELECT %s, e.id, m.id, 'person', now() FROM memory_core_entity e CROSS JOIN LATERAL "
            "(SELECT id FROM memory_core_memoryentry WHERE namespace_id = %s "
            "ORDER BY md5(e.id::text || id::text) LIMIT 3) m "
            "WHERE e.namespace_id = %s AND e.name LIKE 'Person %%'",
            [namespace.pk, namespace.pk, namespace.pk],
        )
    print("(the graph's bulk is inserted in SQL, past the write path; each timed recall follows one write")
    print(" through the pipeline, untimed)")
    builds = (
        ("brought up to date", ON, {}),
        ("read whole", ON, {"RECALL_GRAPH_CHANGES_FROM_ITEMS": 10**12}),
        ("graph off", OFF, {}),
    )
    question = "What does my sister's husband do?"
    durations: dict[str, list[float]] = {label: [] for label, _, _ in builds}
    held = 0
    for turn in range(60):
        order = builds if turn % 2 == 0 else builds[::-1]
        for label, components, extra in order:
            with override_settings(RECALL_COMPONENTS=components, **extra):
                query_cache.clear()
                memory_recall(
                    namespaces=[namespace], query=question, limit=20, record=False
                )  # embedding cached
                memory_add(namespace=namespace, content=f"Bea called about Ana ({turn}, {label}).", turn=True)
                start = time.perf_counter()
                memory_recall(namespaces=[namespace], query=question, limit=20, record=False)
                durations[label].append(time.perf_counter() - start)
                held = max(held, graph_cache.held_bytes() // graph_cache.ITEM_BYTES)
    print(f"graph held: {held} items")
    for label, _, _ in builds:
        print(f"  {label:<20}{common.summary_ms(durations[label])}")
    p95 = {label: common.percentile(values, 95) for label, values in durations.items()}
    changes, whole, off = p95["brought up to date"], p95["read whole"], p95["graph off"]
    print(
        f"  p95 brought up to date / read whole: {common.ratio(changes, whole)}; "
        f"with / without the graph: {common.ratio(changes, off)} (read whole: {common.ratio(whole, off)})"
    )


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
        "--large-graph", type=int, default=10_000, help="items in the large graph's user (0: skip)"
    )
    parser.add_argument(
        "--data",
        default="",
        help="another set of the same shape (e.g. tests/data/entities/fresh_issue29.json)",
    )
    args = parser.parse_args(argv or [])
    common.setup()
    if not args.no_synthetic:
        synthetic(args.users, args.data)
    if args.large_graph:
        large_graph(args.large_graph)
    if args.locomo:
        locomo(args.locomo)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
