"""Chat-turn overhead with 10k memories for the user: everything but the LLM call, against the LLM call.

One user owns `--memories` statements (template sentences about people, places, food, orders and
refunds, embedded with the local model; kept between runs when the count matches). Each measured
turn is the chat service's own sequence, timed in parts:

    message_post     save the user's message
    turn_prepare     recall (query embedding on the local CPU, vector + keyword + always-recall
                     search, rerank, recall log and access counts) and prompt building
    LLM call         `get_llm().chat(...)` against tests.openai_server.ScriptedOpenAIServer, in
                     this process: the HTTP round trip of the real openai client, no model time
    turn_complete    save the reply, mark the message answered, the every-N-turns trigger
                     (queues an extraction job every CHAT_EXTRACT_EVERY_N_TURNS turns), summary check

Overhead = message_post + turn_prepare + turn_complete. Goal (issue 15): p95 under 35 ms and at
most 10 SQL statements per turn (savepoints aside), counted apart for the recall and the chat.
A real model takes hundreds of milliseconds to seconds; the scripted server's round trip is the
floor of that call.

Runs on a database of its own (`bench_chat` on the embedded server), never on development data.

The local model runs on as many torch threads as memory_core gives it (two on a two-CPU machine);
`--torch-threads 1` shows the difference, which is large when other processes share the CPUs.

`python -m bench chat_turn [--memories N] [--turns N] [--torch-threads N]`
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from bench import common

DB_NAME = "bench_chat"
SEED = 20261129
BENCH_TAG = {"bench": "chat_turn"}

# fmt: off
NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jia", "Kofi", "Lena",
         "Marco", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tomas"]
RELATIONS = ["sister", "brother", "mother", "father", "colleague", "friend", "manager", "neighbour",
             "cousin", "partner"]
CITIES = ["Lisbon", "Porto", "Madrid", "Berlin", "Oslo", "Kyoto", "Austin", "Lima", "Cairo", "Seoul",
          "Dublin", "Quito", "Riga", "Hanoi", "Accra"]
FOODS = ["sushi", "ramen", "tacos", "paella", "curry", "falafel", "risotto", "pho", "dumplings",
         "lasagne", "ceviche", "tagine"]
HOBBIES = ["piano", "climbing", "chess", "pottery", "running", "sailing", "painting", "tango",
           "photography", "yoga"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka", "Cyberdyne",
             "Tyrell"]
PRODUCTS = ["headphones", "kettle", "laptop", "stroller", "bicycle", "camera", "printer", "blender",
            "monitor", "backpack"]
TOPICS = ["taxes", "the move", "a new job", "the wedding", "school fees", "a holiday", "the garden",
          "a car loan"]
JOBS = ["nurse", "teacher", "engineer", "designer", "chef", "lawyer", "pilot", "accountant"]
# fmt: on


def _setup() -> None:
    """Django on the embedded server's own `bench_chat` database, schema up to date."""
    if os.environ.get("DATABASE_URL"):
        sys.exit("bench: unset DATABASE_URL; this benchmark uses the embedded server's own database.")
    os.environ["EMBEDDED_DB_NAME"] = DB_NAME
    os.environ.setdefault("DEBUG", "true")  # only for the development secret key
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    if connection.settings_dict["NAME"] != DB_NAME:
        sys.exit(f"bench: refusing to run against database {connection.settings_dict['NAME']!r}.")
    settings.DEBUG = False  # no query log inside the measured loop
    # One log line per HTTP request or queued job would drown the figures.
    for name in ("openai", "httpx", "httpx2", "django-q"):
        logging.getLogger(name).setLevel(logging.WARNING)
    call_command("migrate", verbosity=0, interactive=False)


def _statement(rng: random.Random, i: int, today: datetime) -> dict[str, Any]:
    name, other = rng.choice(NAMES), rng.choice(NAMES)
    relation, city, food = rng.choice(RELATIONS), rng.choice(CITIES), rng.choice(FOODS)
    when = today - timedelta(days=rng.randint(1, 700))
    day = f"{when:%d %B %Y}"
    order = f"{80000 + i}"
    kind = i % 8
    if kind == 0:
        return {"content": f"The user's {relation} {name} lives in {city}.", "category": "relationship"}
    if kind == 1:
        return {"content": f"The user likes {food} but avoids {rng.choice(FOODS)}.", "category": "preference"}
    if kind == 2:
        return {"content": f"The user practises {rng.choice(HOBBIES)} with {name} on weekends."}
    if kind == 3:
        content = (
            f"On {day} the user ordered a {rng.choice(PRODUCTS)} from {rng.choice(COMPANIES)}, order {order}."
        )
        return {"content": content, "type": "episodic", "category": "event", "valid_from": when}
    if kind == 4:
        content = f"Refund RF{when:%Y%m%d}{i % 1000:03d} for order {order} was filed on {day}."
        return {"content": content, "type": "episodic", "category": "task_state", "valid_from": when}
    if kind == 5:
        content = f"On {day} the user met {name} and {other} in {city} to talk about {rng.choice(TOPICS)}."
        return {"content": content, "type": "episodic", "category": "event", "valid_from": when}
    if kind == 6:
        return {
            "content": f"The user's {relation} {name} works at {rng.choice(COMPANIES)} "
            f"as a {rng.choice(JOBS)}."
        }
    return {
        "content": f"The user prefers short answers about {rng.choice(TOPICS)} from {name}.",
        "category": "preference",
    }


def _query(rng: random.Random) -> str:
    name, city, relation = rng.choice(NAMES), rng.choice(CITIES), rng.choice(RELATIONS)
    return rng.choice(
        [
            f"What should I cook for {name} tonight?",
            f"Did my refund RF2025{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(0, 999):03d} "
            "arrive?",
            f"When did I last meet {name} in {city}?",
            f"Any gift ideas for my {relation}?",
            f"Where does my {relation} live again?",
            f"What did I order from {rng.choice(COMPANIES)} last year?",
            f"Can you help me plan a weekend of {rng.choice(HOBBIES)}?",
            f"Summarise what I told you about {rng.choice(TOPICS)}.",
        ]
    )


def load(user: Any, count: int) -> None:
    """`count` memories in the user's namespace (kept if the last run left exactly as many)."""
    from memory_core.embeddings import get_embedder
    from memory_core.models import MemoryEntry
    from memory_core.services import namespace_for_user

    namespace = namespace_for_user(user=user)
    existing = MemoryEntry.objects.in_namespaces([namespace.pk])
    if existing.count() == count and existing.filter(metadata=BENCH_TAG).exists():
        print(f"  reusing {count:,} memories from the previous run", flush=True)
        return
    existing.delete()
    rng = random.Random(SEED)
    today = datetime.now(UTC)
    rows = [
        {"content": "The user is severely allergic to peanuts.", "category": "safety", "pinned": True},
        {"content": "The user is lactose intolerant.", "category": "safety", "pinned": True},
        {"content": "The user's name is Alex Moreau.", "category": "profile"},
        *({"content": f"The user speaks {lang}.", "category": "profile"} for lang in ("French", "English")),
        *({"content": f"The user lived in {c} until 2024.", "category": "profile"} for c in CITIES[:8]),
    ]
    fixed = len(rows)
    rows += [_statement(rng, i, today) for i in range(count - fixed)]
    embedder = get_embedder()
    with common.timed() as took:
        vectors = embedder.embed([row["content"] for row in rows])
    print(f"  embedded {len(rows):,} memories locally in {took():.1f} s", flush=True)
    MemoryEntry.objects.bulk_create(
        (
            MemoryEntry(
                namespace=namespace,
                type=row.get("type", "semantic"),
                category=row.get("category", "general"),
                content=row["content"],
                source_kind="extracted",
                pinned=row.get("pinned", False),
                importance=0.9 if row.get("pinned") else 0.5,
                valid_from=row.get("valid_from", today - timedelta(days=30)),
                recorded_at=row.get("valid_from", today - timedelta(days=30)),
                embedding=vector,
                embedding_model=embedder.name,
                metadata={} if index < fixed else BENCH_TAG,
            )
            for index, (row, vector) in enumerate(zip(rows, vectors, strict=True))
        ),
        batch_size=1000,
    )
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {MemoryEntry._meta.db_table}")


def _reset_chat(user: Any) -> None:
    from django_q.models import OrmQ

    from chat.models import Conversation
    from memory_core.models import ExtractionJob, RecallLog

    Conversation.objects.filter(user=user).delete()
    RecallLog.objects.all().delete()
    ExtractionJob.objects.all().delete()
    OrmQ.objects.all().delete()  # jobs the every-N trigger queued in the last run


def measure(user: Any, *, turns: int, per_conversation: int = 10) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from chat.services import conversation_create, message_post, turn_complete, turn_prepare
    from memory_core.embeddings import get_embedder
    from memory_core.llm import get_llm

    rng = random.Random(SEED + 1)
    llm = get_llm()
    parts: dict[str, list[float]] = {"post": [], "prepare": [], "llm": [], "complete": [], "overhead": []}
    recalled: list[int] = []
    conversation = None

    def rotate() -> None:
        """A new conversation every `per_conversation` turns (the bench's own queries)."""
        nonlocal conversation
        if conversation is None or conversation.messages.count() >= 2 * per_conversation:
            conversation = conversation_create(user=user)

    def turn(text: str, *, rotated: bool = False) -> tuple[float, float, float, float, int]:
        if not rotated:
            rotate()
        assert conversation is not None
        t0 = time.perf_counter()
        message = message_post(conversation=conversation, content=text)
        t1 = time.perf_counter()
        prepared = turn_prepare(user=user, conversation=conversation, user_message=message)
        t2 = time.perf_counter()
        result = llm.chat(prepared.llm_messages)
        t3 = time.perf_counter()
        turn_complete(prepared=prepared, text=result.text, offline=result.offline)
        t4 = time.perf_counter()
        items = len(prepared.recall.items) if prepared.recall else 0
        return t1 - t0, t2 - t1, t3 - t2, t4 - t3, items

    for _ in range(10):  # warm-up: model, connections, plan caches
        turn(_query(rng))
    for _ in range(turns):
        post, prepare, call, complete, items = turn(_query(rng))
        for name, value in (("post", post), ("prepare", prepare), ("llm", call), ("complete", complete)):
            parts[name].append(value)
        parts["overhead"].append(post + prepare + complete)
        recalled.append(items)

    embedder = get_embedder()
    embed_times = []
    for _ in range(50):
        text = _query(rng)
        with common.timed() as took:
            embedder.embed_query(text)
        embed_times.append(took())

    from memory_core import recall as recall_module

    # The turn's statements, and the recall's among them (its own count, through the same call).
    recall_statements: list[int] = []
    real_recall = recall_module.memory_recall

    def counted_recall(**kwargs: Any) -> Any:
        with CaptureQueriesContext(connection) as inner:
            result = real_recall(**kwargs)
        recall_statements.append(_statements(inner.captured_queries))
        return result

    import chat.services

    chat.services.memory_recall = counted_recall  # type: ignore[assignment]  # counting, not replacing
    try:
        rotate()
        with CaptureQueriesContext(connection) as queries:
            turn(_query(rng), rotated=True)
    finally:
        chat.services.memory_recall = real_recall  # type: ignore[assignment]
    total = _statements(queries.captured_queries)
    control = sum(1 for q in queries.captured_queries if q["sql"].strip() in ("BEGIN", "COMMIT"))
    of_recall = sum(recall_statements)

    print(
        f"  {turns} turns, {per_conversation} per conversation; "
        f"{common.mean(recalled):.1f} memories recalled per turn"
    )
    print(f"    message_post  (save the message)             {common.summary_ms(parts['post'])}")
    print(f"    turn_prepare  (recall + prompt)               {common.summary_ms(parts['prepare'])}")
    print(f"      of it, query embedding (local CPU, apart)   {common.summary_ms(embed_times)}")
    print(f"    turn_complete (save reply, triggers)          {common.summary_ms(parts['complete'])}")
    print(f"    overhead, all but the LLM call                {common.summary_ms(parts['overhead'])}")
    print(f"    LLM call, scripted server (baseline)          {common.summary_ms(parts['llm'])}")
    p95 = common.percentile(parts["overhead"], 95)
    print(
        f"    overhead / LLM call: p50 "
        f"{common.ratio(common.percentile(parts['overhead'], 50), common.percentile(parts['llm'], 50))}, "
        f"p95 {common.ratio(p95, common.percentile(parts['llm'], 95))};  "
        f"goal p95 < 35 ms: {'met' if p95 < 0.035 else 'MISSED'} ({p95 * 1000:.1f} ms)",
        flush=True,
    )
    print(
        f"    SQL statements per turn (savepoints aside): {total} = {of_recall} recall + "
        f"{total - of_recall} chat, of them {control} BEGIN/COMMIT (the test suite's count has none);  "
        f"goal <= 10: {'met' if total <= 10 else 'MISSED'}",
        flush=True,
    )
    # Wall-clock figures: on a shared machine they grow with whatever else runs on it.
    print(
        f"    machine load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())} "
        f"on {os.cpu_count()} CPUs",
        flush=True,
    )


def _statements(captured: list[dict[str, Any]]) -> int:
    return sum(1 for query in captured if not query["sql"].lstrip().startswith(("SAVEPOINT", "RELEASE")))


def main(argv: list[str] | None = None) -> None:
    from django.apps import apps

    if apps.ready:
        # `python -m bench` ran another benchmark first, on its own database: this one needs a
        # fresh process to point Django at `bench_chat`.
        subprocess.run([sys.executable, "-m", "bench.chat_turn", *(argv or [])], check=True)
        return
    parser = argparse.ArgumentParser(prog="python -m bench chat_turn")
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=0,
        help="threads for the local embedding model (default: as memory_core configures it)",
    )
    args = parser.parse_args(argv)
    _setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from tests.openai_server import ScriptedOpenAIServer

    common.header(f"Chat turn overhead ({args.memories:,} memories for the user; LLM = scripted server)")
    user, _ = get_user_model().objects.get_or_create(username="bench-chat")
    load(user, args.memories)
    _reset_chat(user)
    import torch

    from memory_core.embeddings import load_local_model, runtime_in_use
    from memory_core.torch_embedding import query_threads

    load_local_model()  # sets its own thread count on first load; an override comes after
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    runtime = runtime_in_use()
    threads = (
        f"{torch.get_num_threads()} torch thread(s)"
        if runtime.startswith("torch")
        else f"{query_threads()} thread(s) per query"
    )
    print(f"  embeddings: {runtime} (EMBEDDING_RUNTIME={settings.EMBEDDING_RUNTIME}), {threads}")
    with ScriptedOpenAIServer() as server:
        settings.OPENAI_API_KEY = "bench"
        settings.OPENAI_BASE_URL = server.base_url
        settings.LLM_MAX_RETRIES = 0
        measure(user, turns=args.turns)
    _reset_chat(user)


if __name__ == "__main__":
    main(sys.argv[1:])
