"""Does forgetting cost answers? LoCoMo evidence recall@10 through a year away and a year of use.

Each LoCoMo conversation becomes a namespace and each turn a memory (as in `bench.locomo`); the
user was active on the conversation's session days. Then, for each policy in the same run:

1. **12 months of absence**: nobody uses the namespace; the passes run (every `--every` days).
2. **12 months of activity under capacity pressure**: every day the user is active, a new memory
   arrives (a turn of another conversation: no question of this one needs it), and about every
   other day a question of the "asked" half is recalled (its results count as used, as the recall
   log records them). The namespace's budget is `--budget` of its initial size. The episodic TTL
   is off in this phase for both policies: with it, a year of daily use expires every turn under
   either clock, as the TTL is meant to; what is measured here is decay and capacity.

Policies: **wall clock** (the previous decay and TTL: age in calendar days, no budget) and
**user clock** (`memory_core.forgetting`: active days, the budget, the share cap, protected
categories). Consolidation is the product's in both. Recall@10 is measured (without recording)
before, after the absence and after the year, over every question and over the held-out half never
asked during the year; archived entries are split into those some question needs and the rest.

`python -m bench forgetting [--every DAYS] [--budget SHARE]`
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from bench import common
from bench.locomo_data import Conversation, load_all

if TYPE_CHECKING:
    from memory_core.models import Namespace

K = 10
YEAR = 365
WALL = "wall clock (previous)"
USER = "user clock"


@dataclass
class World:
    conversations: list[Conversation]
    namespaces: dict[str, Namespace]
    vectors: dict[str, list[list[float]]]  # per conversation, the turns' embeddings
    questions: list[tuple[Conversation, Any, list[float]]]  # (conversation, question, query vector)
    asked: set[int]  # indexes into questions asked during the active year
    needed: dict[str, frozenset[str]]  # per conversation, the turns some question names as evidence
    start: datetime  # the day after the last session of any conversation


@dataclass
class Outcome:
    recall: dict[str, tuple[float, float]] = field(default_factory=dict)  # phase -> (all, held-out)
    touched: dict[str, Counter[str]] = field(default_factory=dict)  # phase -> pass -> entries
    biggest: dict[str, int] = field(default_factory=dict)  # phase -> most entries one pass touched
    passes: dict[str, int] = field(default_factory=dict)
    archived_needed: int = 0
    archived_other: int = 0
    active_end: int = 0


def _load(conversations: list[Conversation]) -> World:
    from memory_core.embeddings import get_embedder
    from memory_core.models import ActiveDay, MemoryEntry, MemoryType, Namespace, SourceKind

    embedder = get_embedder()
    namespaces, vectors = {}, {}
    for conversation in conversations:
        namespace = Namespace.objects.create(path=f"agent/forget-{conversation.name}", kind="agent")
        vectors[conversation.name] = embedder.embed([turn.content for turn in conversation.turns])
        MemoryEntry.objects.bulk_create(
            MemoryEntry(
                namespace=namespace,
                type=MemoryType.EPISODIC,
                content=turn.content,
                source_kind=SourceKind.EXTRACTED,
                source_message_ids=[turn.dia_id],
                valid_from=turn.said_at,
                recorded_at=turn.said_at,
                embedding=vector,
                embedding_model=embedder.name,
            )
            for turn, vector in zip(conversation.turns, vectors[conversation.name], strict=True)
        )
        # The user talked on the session days: the clock ran then.
        days = {turn.said_at.date() for turn in conversation.turns}
        ActiveDay.objects.bulk_create(ActiveDay(namespace=namespace, day=day) for day in days)
        namespaces[conversation.name] = namespace
    flat = [(c, q) for c in conversations for q in c.questions]
    query_vectors = embedder.embed([q.text for _, q in flat])
    questions = [(c, q, v) for (c, q), v in zip(flat, query_vectors, strict=True)]
    rng = random.Random(7)
    asked = set(rng.sample(range(len(questions)), len(questions) // 2))
    needed = {c.name: frozenset(d for q in c.questions for d in q.evidence) for c in conversations}
    last = max(turn.said_at for c in conversations for turn in c.turns)
    start = datetime.combine(last.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC)
    return World(conversations, namespaces, vectors, questions, asked, needed, start)


def _reset(world: World) -> None:
    """Every policy starts from the same loaded state."""
    from memory_core.models import ActiveDay, MemoryEntry, MemoryEvent, MemoryStatus, Namespace, RecallLog

    ids = [ns.pk for ns in world.namespaces.values()]
    MemoryEntry.objects.filter(namespace_id__in=ids, source_message_ids__0__startswith="filler").delete()
    MemoryEntry.objects.filter(namespace_id__in=ids).update(
        status=MemoryStatus.ACTIVE,
        expired_at=None,
        valid_to=None,
        superseded_by=None,
        access_count=0,
        last_accessed_at=None,
        evidence_count=1,
    )
    MemoryEvent.objects.filter(namespace_id__in=ids).delete()
    RecallLog.objects.filter(namespace_id__in=ids).delete()
    ActiveDay.objects.filter(namespace_id__in=ids).delete()
    for conversation in world.conversations:
        days = {turn.said_at.date() for turn in conversation.turns}
        ActiveDay.objects.bulk_create(
            ActiveDay(namespace=world.namespaces[conversation.name], day=day) for day in days
        )
    Namespace.objects.filter(pk__in=ids).update(memory_capacity=None)


def _ranked(world: World, index: int) -> list[Any]:
    from memory_core.recall import memory_recall

    conversation, question, vector = world.questions[index]
    result = memory_recall(
        namespaces=[world.namespaces[conversation.name]],
        query=question.text,
        query_embedding=vector,
        budget_tokens=100_000,
        limit=K,
        record=False,
    )
    return [item.entry for item in result.items]


def _recall_at_k(world: World) -> tuple[float, float]:
    scores = []
    for index, (_, question, _) in enumerate(world.questions):
        ids = {entry.source_message_ids[0] for entry in _ranked(world, index)}
        scores.append((index, len(ids & question.evidence) / len(question.evidence)))
    held_out = [score for index, score in scores if index not in world.asked]
    return common.mean([s for _, s in scores]), common.mean(held_out)


def _use(world: World, index: int, day: datetime) -> None:
    """A question asked on `day`: what recall returned is used then (as `recall._record` records it)."""
    from django.db.models import F

    from memory_core.models import MemoryEntry, RecallLog

    entries = _ranked(world, index)
    at = day + timedelta(hours=12)
    MemoryEntry.objects.filter(pk__in=[e.pk for e in entries]).update(
        access_count=F("access_count") + 1, last_accessed_at=at
    )
    RecallLog.objects.bulk_create(
        RecallLog(namespace_id=e.namespace_id, entry=e, turn_ref="bench", rank=r, score=0.0, created_at=at)
        for r, e in enumerate(entries, start=1)
    )


def _filler(world: World, conversation: Conversation, n: int, day: datetime) -> None:
    """A new memory no question of this conversation needs: a turn of another conversation."""
    from memory_core.models import MemoryEntry, MemoryEvent, MemoryType, SourceKind

    others = [c for c in world.conversations if c.name != conversation.name] or [conversation]
    source = others[n % len(others)]
    i = (n * 7) % len(source.turns)
    namespace = world.namespaces[conversation.name]
    at = day + timedelta(hours=9)
    entry = MemoryEntry.objects.create(
        namespace=namespace,
        type=MemoryType.EPISODIC,
        content=f"{source.turns[i].content} (day {n})",
        source_kind=SourceKind.EXTRACTED,
        source_message_ids=[f"filler-{n}"],
        valid_from=at,
        recorded_at=at,
        created_at=at,
        embedding=world.vectors[source.name][i],
        embedding_model=MemoryEntry.objects.filter(namespace=namespace).values_list(
            "embedding_model", flat=True
        )[0],
    )
    # Learned from the user's conversation that day: the day is active (clock_refresh reads this).
    MemoryEvent.objects.create(
        namespace=namespace,
        entry=entry,
        entry_ref=entry.pk,
        action="created",
        actor_kind="extraction",
        created_at=at,
    )


def _wall_clock_passes(now: datetime, *, ttl: bool) -> Counter[str]:
    """The previous policy: decay and TTL by calendar days since last use / since learned."""
    from django.db import connection

    counts: Counter[str] = Counter()
    with connection.cursor() as cursor:
        if ttl:
            cursor.execute(
                "UPDATE memory_core_memoryentry SET status = 'expired', expired_at = %s WHERE id IN ("
                " SELECT id FROM memory_core_memoryentry WHERE status = 'active' AND type = 'episodic'"
                " AND NOT pinned AND greatest(valid_from, recorded_at) <= %s LIMIT 500)",
                [now, now - timedelta(days=90)],
            )
            counts["expire_ttl"] += cursor.rowcount
        cursor.execute(
            "UPDATE memory_core_memoryentry SET status = 'archived', expired_at = %s WHERE id IN ("
            " SELECT id FROM memory_core_memoryentry WHERE status = 'active' AND NOT pinned"
            " AND type <> 'procedural' AND (0.2 + 0.8 * importance) * power(0.5, least(1000.0,"
            " greatest(0.0, extract(epoch from (%s - coalesce(last_accessed_at, recorded_at))) / 86400.0)"
            " / (30.0 * (1 + ln(1 + access_count)) * (0.5 + 0.5 * confidence)))) < 0.05 LIMIT 500)",
            [now, now],
        )
        counts["decay"] += cursor.rowcount
    return counts


def _user_clock_passes(now: datetime, *, consolidate: bool) -> Counter[str]:
    from memory_core import forgetting

    reports = [forgetting.expire_ended_windows(now), forgetting.expire_ttl(now), forgetting.decay(now)]
    if consolidate:
        reports.append(forgetting.consolidate(now))
    return Counter({report.name: report.count for report in reports})


def _run(
    world: World, policy: str, *, every: int, budget: float, before: tuple[float, float] | None
) -> Outcome:
    from django.test import override_settings

    from memory_core.forgetting import consolidate
    from memory_core.models import MemoryEntry, MemoryStatus, Namespace

    _reset(world)
    out = Outcome()
    # Every policy starts from the same state: measured once.
    out.recall["before"] = before or _recall_at_k(world)

    def passes(now: datetime, phase: str, *, ttl: bool, step: int) -> None:
        weekly = step % 7 == 0
        if policy == WALL:
            counts = _wall_clock_passes(now, ttl=ttl)
            if weekly:
                counts["consolidate"] = consolidate(now).count
        else:
            counts = _user_clock_passes(now, consolidate=weekly)
        out.touched.setdefault(phase, Counter()).update(counts)
        out.biggest[phase] = max(out.biggest.get(phase, 0), *counts.values())
        out.passes[phase] = out.passes.get(phase, 0) + 1

    # 1. Away: nobody touches the namespaces; the schedule runs anyway (default TTL on).
    for step in range(every, YEAR + 1, every):
        passes(world.start + timedelta(days=step), "absence", ttl=True, step=step)
    out.recall["after absence"] = _recall_at_k(world)

    # 2. Back, and active every day, with a budget.
    for conversation in world.conversations:
        size = MemoryEntry.objects.filter(
            namespace=world.namespaces[conversation.name], status=MemoryStatus.ACTIVE
        ).count()
        Namespace.objects.filter(pk=world.namespaces[conversation.name].pk).update(
            memory_capacity=max(1, int(size * budget))
        )
    asked = sorted(world.asked)
    back = world.start + timedelta(days=YEAR)
    with override_settings(MEMORY_TTL_DAYS={"episodic": None}):
        for n in range(1, YEAR + 1):
            day = back + timedelta(days=n)
            for conversation in world.conversations:
                _filler(world, conversation, n, day)
            if n % 2 == 0:
                for index in asked[(n // 2) % len(asked) :: max(1, len(asked) // 2)][:2]:
                    _use(world, index, day)
            if n % every == 0:
                passes(day + timedelta(hours=23), "activity", ttl=False, step=n)
    out.recall["after a year of use"] = _recall_at_k(world)

    for conversation in world.conversations:
        entries = MemoryEntry.objects.filter(namespace=world.namespaces[conversation.name])
        gone = entries.filter(status__in=[MemoryStatus.ARCHIVED, MemoryStatus.EXPIRED])
        for dia_id in gone.values_list("source_message_ids", flat=True):
            if dia_id[0] in world.needed[conversation.name]:
                out.archived_needed += 1
            else:
                out.archived_other += 1
        out.active_end += entries.filter(status=MemoryStatus.ACTIVE).count()
    return out


def _date(value: datetime) -> date:
    return value.date()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench forgetting")
    parser.add_argument("--every", type=int, default=7, help="simulated days between passes (default 7)")
    parser.add_argument("--budget", type=float, default=0.8, help="budget as a share of the initial size")
    args = parser.parse_args(argv)
    common.setup()
    common.header("Forgetting: LoCoMo evidence recall@10 through 12 months away and 12 months of use")
    conversations = load_all()
    common.truncate()
    with common.timed() as load_time:
        world = _load(conversations)
    turns = sum(len(c.turns) for c in conversations)
    needed = sum(len(n) for n in world.needed.values())
    print(
        f"{len(conversations)} conversations, {turns} turns ({needed} named as evidence), "
        f"{len(world.questions)} questions ({len(world.asked)} asked during the year, the rest held out); "
        f"loaded in {load_time():.1f} s; last session {_date(world.start - timedelta(days=1))}; passes every "
        f"{args.every} day(s), consolidation weekly; budget {args.budget:.0%} of the initial size"
    )
    outcomes = {}
    for policy in (WALL, USER):
        with common.timed() as elapsed:
            before = outcomes[WALL].recall["before"] if outcomes else None
            outcomes[policy] = _run(world, policy, every=args.every, budget=args.budget, before=before)
        print(f"  ({policy}: simulated in {elapsed():.0f} s)", flush=True)

    print(f"\n{'recall@10 (all / held-out)':<28}" + "".join(f"{p:>26}" for p in outcomes))
    for phase in ("before", "after absence", "after a year of use"):
        cells = "".join(f"{o.recall[phase][0]:>17.3f} / {o.recall[phase][1]:.3f}" for o in outcomes.values())
        print(f"{phase:<28}{cells}")
    for phase in ("absence", "activity"):
        print(f"\nentries touched during {phase} (passes: {outcomes[USER].passes.get(phase, 0)})")
        names = sorted({name for o in outcomes.values() for name in o.touched.get(phase, {})})
        for name in names:
            print(f"  {name:<26}" + "".join(f"{o.touched[phase][name]:>26}" for o in outcomes.values()))
        print(
            f"  {'most in one pass':<26}"
            + "".join(f"{o.biggest.get(phase, 0):>26}" for o in outcomes.values())
        )
    print()
    for label, attr in (
        ("gone: needed by a question", "archived_needed"),
        ("gone: needed by none", "archived_other"),
        ("active at the end", "active_end"),
    ):
        print(f"{label:<28}" + "".join(f"{getattr(o, attr):>26}" for o in outcomes.values()))
    wall, user = outcomes[WALL], outcomes[USER]
    for phase in ("after absence", "after a year of use"):
        print(
            f"recall@10 {phase}, user clock vs wall clock: "
            f"{common.ratio(user.recall[phase][0], wall.recall[phase][0])}; vs before: "
            f"{common.ratio(user.recall[phase][0], user.recall['before'][0])}"
        )


if __name__ == "__main__":
    main()
