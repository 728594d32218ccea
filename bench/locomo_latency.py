"""Recall latency on real conversation text: LoCoMo turns as memories, its questions as queries.

Loads the development conversations as `python -m bench locomo` does (one namespace per
conversation, one memory per turn, each indexed with the turn before it), then asks every
question through `memory_recall` in-process, the query embedded each time (the query cache is
cleared before every call), recording on (access counts and the recall log are written, as in a
chat turn). Three builds of the ranking in the same run, interleaved question by question so all
see the same load:

    full       every component (`RECALL_COMPONENTS` default): vector + context + BM25 candidates,
               time, names, graph, the turns next to the best hits
    no-nbr     the same without the turns next to the best hits (`neighbour`: one statement more)
    no-rel     the same without the words related to the query's (`related`, memory_core.term_vectors)
    no-ctx     the same without the context-embedding candidate search (its score stays)
    baseline   the old design's parts only (`RECALL_COMPONENTS=("keyword",)`): vector similarity
               and keyword candidates, no context search, no time or names

With `--before REV` (repeatable), another build runs `memory_recall` as it was at git revision REV (its
recall.py and the modules beside it loaded from git into this process, on the same data and the
same current models), so the old code is timed in the same run as the new. REV must predate the
`memory_core/recall/` package.

Printed per build: p50 / p95 / mean of the whole call, the SQL statements per recall (counted on
the connection) and, apart, the query embedding alone. Synthetic short memories (`python -m bench
recall_latency`) are far cheaper to rank than real turns; this is the figure that matters.

`python -m bench locomo_latency [--conversations N] [--passes N] [--reuse] [--before REV]`
"""

from __future__ import annotations

import argparse
import inspect
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from bench import common
from bench.locomo_data import load_all

BUILDS: dict[str, tuple[str, ...] | None] = {
    "full": None,
    "no-nbr": ("context", "keyword", "time", "names", "graph", "related"),
    "no-rel": ("context", "keyword", "time", "names", "graph", "neighbour"),
    "no-ctx": ("keyword", "time", "names"),
    "baseline": ("keyword",),
}


# The modules a single-file recall.py imported beside it; they are loaded from the same revision.
_SIBLINGS = ("query_signals", "recall_scope", "recall_log", "query_translation")


def _git_show(revision: str, path: str) -> str | None:
    shown = subprocess.run(["git", "show", f"{revision}:{path}"], capture_output=True, text=True)
    return shown.stdout if shown.returncode == 0 else None


def _load(name: str, source: str, origin: str) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, origin, "exec"), module.__dict__)  # noqa: S102
    return module


def recall_at(revision: str) -> Callable[..., Any]:
    """`memory_recall` as recall.py had it at a git revision, loaded into this process, with the
    modules it imported beside it as they were then. Revisions since recall became a package
    (memory_core/recall/) cannot be loaded this way."""
    source = _git_show(revision, "memory_core/recall.py")
    if source is None:
        sys.exit(f"bench: {revision} has no memory_core/recall.py (--before: a revision before the package)")
    for name in _SIBLINGS:
        sibling = _git_show(revision, f"memory_core/{name}.py")
        if sibling is not None:
            _load(f"memory_core.{name}", sibling, f"{revision}:memory_core/{name}.py")
    module = _load("recall_before", source, f"{revision}:memory_core/recall.py")
    return module.memory_recall  # type: ignore[no-any-return]


def run(
    *, conversations_limit: int, passes: int, reuse: bool = False, before: tuple[str, ...] = ()
) -> dict[str, list[float]]:
    from django.db import connection, reset_queries
    from django.test import override_settings
    from django.test.utils import CaptureQueriesContext

    from bench.locomo import _load, run_term_job
    from memory_core import recall
    from memory_core.embeddings import get_embedder, query_cache, runtime_in_use

    conversations = load_all()
    if conversations_limit > 0:
        conversations = conversations[:conversations_limit]
    from memory_core.models import Namespace

    paths = {c.name: f"agent/locomo-{c.name}" for c in conversations}
    kept = {n.path: n for n in Namespace.objects.filter(path__in=paths.values())}
    if reuse and len(kept) == len(paths):
        namespaces = {name: kept[path] for name, path in paths.items()}
    else:
        common.truncate()
        namespaces = _load(conversations)
    run_term_job()
    questions = [(c, q) for c in conversations for q in c.questions]
    asked_at = {c.name: max(t.said_at for t in c.turns) for c in conversations}
    turns = sum(len(c.turns) for c in conversations)
    print(
        f"embeddings: {runtime_in_use()}; {len(conversations)} conversations, {turns} turns, "
        f"{len(questions)} questions, {passes} timed pass(es) after one warm-up pass"
    )
    embedder = get_embedder()

    builds: dict[str, tuple[str, ...] | None] = dict(BUILDS)
    functions: dict[str, Callable[..., Any]] = dict.fromkeys(BUILDS, recall.memory_recall)
    for revision in before:
        builds[f"@{revision}"] = None
        functions[f"@{revision}"] = recall_at(revision)
    # Revisions older than `reference_date` are called without it.
    dated = {name for name, f in functions.items() if "reference_date" in inspect.signature(f).parameters}
    times: dict[str, list[float]] = {name: [] for name in builds}
    statements: dict[str, list[int]] = {name: [] for name in builds}
    embedding: list[float] = []

    def ask(build: str, conversation_name: str, text: str, *, timed: bool) -> None:
        components = builds[build]
        settings = {} if components is None else {"RECALL_COMPONENTS": components}
        with override_settings(**settings):
            query_cache.clear()
            with CaptureQueriesContext(connection) as captured:
                start = time.perf_counter()
                functions[build](
                    namespaces=[namespaces[conversation_name]],
                    query=text,
                    limit=20,
                    **({"reference_date": asked_at[conversation_name]} if build in dated else {}),
                )
                elapsed = time.perf_counter() - start
        if timed:
            times[build].append(elapsed)
            statements[build].append(len(captured.captured_queries))

    for number in range(passes + 1):
        timed = number > 0
        for index, (conversation, question) in enumerate(questions):
            # Rotate which build goes first, so none always finds the others' pages warm.
            names = list(builds)
            order = names[index % len(names) :] + names[: index % len(names)]
            for build in order:
                ask(build, conversation.name, question.text, timed=timed)
            if timed:
                query_cache.clear()
                start = time.perf_counter()
                embedder.embed_query(question.text)
                embedding.append(time.perf_counter() - start)
        reset_queries()
    if not passes:  # `--passes 0`: the conversations are loaded (and warm) for a later `--reuse`
        return times

    print(f"\n{'build':<10}{'p50 ms':>10}{'p95 ms':>10}{'mean ms':>10}{'SQL/recall':>12}")
    for build in builds:
        values = times[build]
        p50, p95 = common.percentile(values, 50) * 1000, common.percentile(values, 95) * 1000
        print(
            f"{build:<10}{p50:10.1f}{p95:10.1f}"
            f"{statistics.mean(values) * 1000:10.1f}{statistics.mean(statements[build]):9.1f}"
            f" (max {max(statements[build])})"
        )
    print(
        f"{'embedding':<10}{common.percentile(embedding, 50) * 1000:10.1f}"
        f"{common.percentile(embedding, 95) * 1000:10.1f}{statistics.mean(embedding) * 1000:10.1f}"
        "   (the query embedding alone, included in every build)"
    )
    for build in [name for name in builds if name != "baseline"]:
        for pct in (50, 95):
            ratio = common.percentile(times[build], pct) / common.percentile(times["baseline"], pct)
            print(f"{build} / baseline at p{pct}: {ratio:.2f}x")
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench locomo_latency")
    parser.add_argument("--conversations", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--passes", type=int, default=2, help="timed passes over the questions")
    parser.add_argument(
        "--before",
        action="append",
        default=[],
        help="also time recall.py as of this git revision (repeatable)",
    )
    parser.add_argument(
        "--reuse", action="store_true", help="keep the conversations a previous locomo run loaded"
    )
    args = parser.parse_args(argv)
    common.setup()
    common.header("Recall latency on LoCoMo turns (in-process, query embedding included)")
    run(
        conversations_limit=args.conversations,
        passes=args.passes,
        reuse=args.reuse,
        before=tuple(args.before),
    )


if __name__ == "__main__":
    main()
