"""Consolidation: near-duplicates in a namespace merged into one entry, by the write path's rule.

Close pairs are found by pgvector (cosine similarity >= CONSOLIDATE_SIMILARITY) within the same
namespace, type, embedding model and key, but a close vector never suffices: the pair must also
be the same statement by `sameness.same_statement` (same speaker, same claim, largely the same
words: the rule write-time merging uses), so "Thanks! Your support means a lot to me." never
absorbs a longer turn that adds a second claim. Embeddings barely see negation ("allergic" /
"not allergic" score 0.97 with MiniLM), so pairs differing in negation words or numbers are
dropped in SQL already, pinned entries merge only with the same wording, and episodes more than a
day apart are different events. The stronger entry (pinned, then more evidence, then older) keeps
its window and gains the other's evidence and counts; the other is superseded, pointing at it.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone

from memory_core.forgetting import config
from memory_core.forgetting.report import CONSOLIDATE, Change, PassReport
from memory_core.forgetting.status import BATCH_SIZE as _BATCH_SIZE
from memory_core.locks import lock_namespaces
from memory_core.models import ActorKind, EventAction, MemoryEntry, MemoryEvidence, MemoryStatus, MemoryType
from memory_core.sameness import same_statement
from memory_core.services import event_record

# Episodes whose start differs by more than this are different events, however alike the text.
_EPISODE_SAME_EVENT_SECONDS = 24 * 3600

# Words that flip a statement's meaning while barely moving its embedding.
_NEGATION_RE = (
    r"\m(not|no|never|nor|neither|none|nobody|nothing|nowhere|cannot|without|dont|doesnt|didnt|"
    r"isnt|arent|wasnt|werent|cant|couldnt|wont|wouldnt|shouldnt|havent|hasnt|hadnt)\M"
    "|n['\u2019]t\\M"  # n't, with a straight or a typographic apostrophe
)


def _pairs_sql() -> str:
    table = connection.ops.quote_name(MemoryEntry._meta.db_table)

    def same_wording(alias: str) -> str:
        return f"btrim(regexp_replace(lower({alias}.content), '[^[:alnum:]]+', ' ', 'g'))"

    def numbers(alias: str) -> str:
        return f"array(select m[1] from regexp_matches({alias}.content, '(\\d+)', 'g') as m)"  # noqa: S608

    # An exact scan within each namespace: exact where a namespace is small, and an HNSW
    # scan filtered to one namespace could miss pairs. Only the quoted table name and fixed
    # fragments are interpolated; every value is a parameter.
    return f"""
        SELECT a.id, b.id, 1 - (a.embedding <=> b.embedding) AS similarity
        FROM {table} a
        JOIN {table} b
          ON b.namespace_id = a.namespace_id
         AND b.type = a.type
         AND b.embedding_model = a.embedding_model
         AND b.key = a.key
         AND b.id > a.id
        WHERE a.status = %(active)s AND b.status = %(active)s
          AND NOT (a.id = ANY(%(exclude)s)) AND NOT (b.id = ANY(%(exclude)s))
          AND a.embedding IS NOT NULL AND b.embedding IS NOT NULL
          AND (a.embedding <=> b.embedding) <= %(max_distance)s
          AND (a.content ~* %(negation)s) = (b.content ~* %(negation)s)
          AND {numbers("a")} = {numbers("b")}
          AND (NOT (a.pinned OR b.pinned) OR {same_wording("a")} = {same_wording("b")})
          AND (a.type <> %(episodic)s
               OR abs(extract(epoch from (a.valid_from - b.valid_from))) <= %(same_event_seconds)s)
        ORDER BY similarity DESC, a.id, b.id
        LIMIT %(limit)s
    """  # noqa: S608


_MERGE_FIELDS = (
    "id",
    "namespace_id",
    "type",
    "key",
    "content",
    "embedding_model",
    "status",
    "pinned",
    "evidence_count",
    "access_count",
    "last_accessed_at",
    "importance",
    "recorded_at",
    "created_at",
    "valid_from",
    "valid_to",
    "metadata",
)


def _strength(entry: MemoryEntry) -> tuple[Any, ...]:
    """Sort key, smallest first: pinned, then more evidence, then older, then the smaller id."""
    return (not entry.pinned, -entry.evidence_count, entry.recorded_at, entry.created_at, entry.pk)


def _plan_merges(
    pairs: list[tuple[uuid.UUID, uuid.UUID, float]], entries: dict[uuid.UUID, MemoryEntry], cap: int
) -> list[tuple[MemoryEntry, MemoryEntry, float]]:
    """Greedy, most similar first: (keeper, duplicate, similarity) with no entry merged twice.

    An entry that absorbs another in this run is not itself merged away until the next run, so
    `superseded_by` never points at an entry superseded in the same run, and a dry run (which
    only plans) reports exactly what a real run does.
    """
    merged: set[uuid.UUID] = set()
    keepers: set[uuid.UUID] = set()
    plan: list[tuple[MemoryEntry, MemoryEntry, float]] = []
    for a_id, b_id, similarity in pairs:
        if len(plan) >= cap:
            break
        if a_id in merged or b_id in merged or a_id not in entries or b_id not in entries:
            continue
        keeper, duplicate = sorted((entries[a_id], entries[b_id]), key=_strength)
        if duplicate.pk in keepers:
            continue
        merged.add(duplicate.pk)
        keepers.add(keeper.pk)
        plan.append((keeper, duplicate, similarity))
    return plan


def _find_merges(
    *, threshold: float, cap: int, exclude_ids: Collection[uuid.UUID] = ()
) -> list[tuple[MemoryEntry, MemoryEntry, float]]:
    if cap <= 0:
        return []
    params: dict[str, Any] = {
        "active": str(MemoryStatus.ACTIVE),
        "exclude": list(exclude_ids),
        "max_distance": 1 - threshold,
        "negation": _NEGATION_RE,
        "episodic": str(MemoryType.EPISODIC),
        "same_event_seconds": _EPISODE_SAME_EVENT_SECONDS,
        # Some pairs share an entry and are skipped, so read more pairs than merges wanted.
        "limit": cap * 4,
    }
    with connection.cursor() as cursor:
        cursor.execute(_pairs_sql(), params)
        pairs = [(a, b, float(similarity)) for a, b, similarity in cursor.fetchall()]
    ids = {pk for a, b, _ in pairs for pk in (a, b)}
    entries = MemoryEntry.objects.only(*_MERGE_FIELDS).in_bulk(list(ids))
    # The SQL finds close pairs cheaply; whether they say the same thing is decided where
    # write-time merging decides it.
    same = [
        (a, b, similarity)
        for a, b, similarity in pairs
        if a in entries
        and b in entries
        and same_statement(
            entries[a].content,
            entries[b].content,
            similarity=similarity,
            threshold=threshold,
            a_metadata=entries[a].metadata,
            b_metadata=entries[b].metadata,
        )
    ]
    return _plan_merges(same, entries, cap)


def _merge(*, keeper: MemoryEntry, duplicate: MemoryEntry, similarity: float, now: datetime) -> str:
    threshold = config.consolidate_similarity()
    MemoryEvidence.objects.filter(entry_id=duplicate.pk).update(entry_id=keeper.pk)
    # Use of the duplicate was use of this memory: the keeper inherits it, so decay sees it.
    updates: dict[str, Any] = {
        "evidence_count": F("evidence_count") + duplicate.evidence_count,
        "access_count": F("access_count") + duplicate.access_count,
        "importance": Greatest("importance", duplicate.importance),
        "updated_at": timezone.now(),
    }
    if duplicate.last_accessed_at is not None:
        # PostgreSQL's GREATEST ignores NULLs.
        updates["last_accessed_at"] = Greatest("last_accessed_at", duplicate.last_accessed_at)
    MemoryEntry.objects.filter(pk=keeper.pk).update(**updates)
    keeper.refresh_from_db(fields=["evidence_count", "status"])

    # Close the duplicate's window so point-in-time recall after now finds only the keeper.
    valid_to = duplicate.valid_to
    if valid_to is None or valid_to > now:
        valid_to = max(now, duplicate.valid_from)
    MemoryEntry.objects.filter(pk=duplicate.pk, status=MemoryStatus.ACTIVE).update(
        status=MemoryStatus.SUPERSEDED,
        superseded_by=keeper.pk,
        valid_to=valid_to,
        expired_at=now,
        updated_at=timezone.now(),
    )
    duplicate.status = MemoryStatus.SUPERSEDED

    reason = f"near-duplicate of {keeper.pk} (similarity {similarity:.3f} >= {threshold:g})"
    event_record(
        entry=duplicate,
        action=EventAction.SUPERSEDED,
        actor_kind=ActorKind.JOB,
        reason=f"merged into {keeper.pk}: {reason}",
        data={
            "status": MemoryStatus.SUPERSEDED,
            "pass": CONSOLIDATE,
            "superseded_by": str(keeper.pk),
            "similarity": round(similarity, 6),
        },
    )
    event_record(
        entry=keeper,
        action=EventAction.MERGED,
        actor_kind=ActorKind.JOB,
        reason=f"absorbed near-duplicate {duplicate.pk} (similarity {similarity:.3f} >= {threshold:g})",
        data={
            "status": keeper.status,
            "pass": CONSOLIDATE,
            "merged_from": str(duplicate.pk),
            "evidence_count": keeper.evidence_count,
            "similarity": round(similarity, 6),
        },
    )
    return reason


def consolidate(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Merge near-duplicate active entries within a namespace; each merge is one change."""
    now = config.instant(now)
    cap = config.cap(max_changes)
    threshold = config.consolidate_similarity()
    report = PassReport(
        name=CONSOLIDATE, action=EventAction.MERGED, now=now, dry_run=dry_run, max_changes=cap
    )

    plan = _find_merges(threshold=threshold, cap=cap, exclude_ids=exclude_ids)
    if dry_run:
        for keeper, duplicate, similarity in plan:
            reason = f"near-duplicate of {keeper.pk} (similarity {similarity:.3f} >= {threshold:g})"
            report.changes.append(Change(duplicate.pk, EventAction.MERGED, reason, similarity, keeper.pk))
        return report

    for start in range(0, len(plan), _BATCH_SIZE):
        batch = plan[start : start + _BATCH_SIZE]
        with transaction.atomic():
            # Namespace first, then entries: the order `memory_add` takes its locks in.
            writable = lock_namespaces({keeper.namespace_id for keeper, _, _ in batch})
            locked = {
                entry.pk: entry
                for entry in MemoryEntry.objects.select_for_update(skip_locked=True, of=("self",))
                .filter(
                    pk__in={entry.pk for pair in batch for entry in pair[:2]},
                    namespace_id__in=writable,
                    status=MemoryStatus.ACTIVE,
                )
                .only(*_MERGE_FIELDS)
            }
            for keeper, duplicate, similarity in batch:
                current_keeper, current_duplicate = locked.get(keeper.pk), locked.get(duplicate.pk)
                if not (_unchanged(keeper, current_keeper) and _unchanged(duplicate, current_duplicate)):
                    continue
                assert current_keeper is not None and current_duplicate is not None
                # The locked rows, read now: counts may have grown since the plan was made.
                reason = _merge(
                    keeper=current_keeper, duplicate=current_duplicate, similarity=similarity, now=now
                )
                report.changes.append(Change(duplicate.pk, EventAction.MERGED, reason, similarity, keeper.pk))
    return report


def _unchanged(planned: MemoryEntry, current: MemoryEntry | None) -> bool:
    """Still active and still saying what it said when the merge was planned."""
    fields = ("namespace_id", "type", "key", "content", "embedding_model", "pinned")
    return current is not None and all(getattr(planned, f) == getattr(current, f) for f in fields)
