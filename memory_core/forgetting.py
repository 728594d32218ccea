"""Forgetting and consolidation: the scheduled passes that expire, archive and merge memories.

Four passes, run in this order by `forget_all` (the `memory-forgetting` schedule and
`manage.py forget`); each only touches active entries, is capped by `max_changes`, can be a dry
run, and writes every change to the history with actor "job" and a reason (never the content):

1. `expire_ended_windows`: the validity window closed (`valid_to <= now`) → expired.
2. `expire_ttl`: the explicit deadline passed (`expires_at <= now`, honoured even for pinned
   entries, since someone asked for it), or the per-type TTL of `MEMORY_TTL_DAYS` passed, counted
   from the later of `valid_from` and `recorded_at` (an event learned late is still kept a full
   TTL). Pinned entries (safety facts such as allergies) never expire by the type TTL.
3. `decay`: retention below `FORGET_DECAY_THRESHOLD` → archived. Never pinned or procedural
   entries, and not in paused namespaces (nothing can be used while memory is paused, so the
   lack of use says nothing about value). Retention, computed by `decay_score` and, identically,
   in SQL:

       age       = days since last use (last_accessed_at, else recorded_at), at least 0
       half_life = FORGET_DECAY_HALF_LIFE_DAYS * (1 + ln(1 + access_count)) * (0.5 + 0.5 * confidence)
       retention = (0.2 + 0.8 * importance) * 0.5 ** (age / half_life)

   With the defaults (30 days, threshold 0.05) an unused entry of importance 0.5 is archived
   after about 107 days, of importance 0.1 after about 75 days, of importance 1.0 after about
   130; used ten times it lasts about a year.
4. `consolidate`: near-duplicates (cosine similarity >= CONSOLIDATE_SIMILARITY, by pgvector)
   in the same namespace, type, embedding model and key are merged: the stronger entry
   (pinned, then more evidence, then older) keeps its window and gains the other's evidence
   rows and counts; the other is superseded with `superseded_by` pointing at it. Embeddings
   barely see negation ("allergic" / "not allergic" score 0.97 with MiniLM), so pairs that
   differ in negation words or in numbers are never merged, pinned entries merge only with the
   same wording, and episodes more than a day apart are different events. A close pair must
   also be the same statement by `sameness.same_statement` (same speaker, same claim), the rule
   write-time merging uses.

Settings (read at call time, with these defaults): FORGET_DECAY_HALF_LIFE_DAYS = 30,
FORGET_DECAY_THRESHOLD = 0.05, MEMORY_TTL_DAYS = {"episodic": 90, "semantic": None,
"procedural": None} (days, None = never; merged over the defaults), FORGET_MAX_CHANGES_PER_PASS
= 500, CONSOLIDATE_SIMILARITY = 0.92.

Every function takes `now` (default `timezone.now()`) so tests and `manage.py forget --now` can
run the passes at any instant. Changes lock the namespace (as `memory_add` does) and the rows
with `SKIP LOCKED` and re-check `status = 'active'`, so a concurrent write is neither
overwritten nor waited for (busy rows wait for the next run); each batch commits alone.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.db.models.functions import Greatest
from django.utils import timezone

from memory_core.models import (
    ActorKind,
    EventAction,
    MemoryEntry,
    MemoryEvidence,
    MemoryStatus,
    MemoryType,
    Namespace,
)
from memory_core.sameness import same_statement
from memory_core.services import event_record

DEFAULT_HALF_LIFE_DAYS = 30.0
DEFAULT_DECAY_THRESHOLD = 0.05
DEFAULT_TTL_DAYS: dict[str, float | None] = {
    MemoryType.EPISODIC: 90,
    MemoryType.SEMANTIC: None,
    MemoryType.PROCEDURAL: None,
}
DEFAULT_MAX_CHANGES_PER_PASS = 500
DEFAULT_CONSOLIDATE_SIMILARITY = 0.92

# Share of retention that does not depend on importance: even an entry of importance 0 fades
# over time instead of being archived the moment it is written.
_IMPORTANCE_FLOOR = 0.2
# 0.5 ** 1000 is about 1e-301; beyond that PostgreSQL's power() raises an underflow error.
_MAX_HALF_LIVES = 1000.0
_BATCH_SIZE = 100
# Episodes whose start differs by more than this are different events, however alike the text.
_EPISODE_SAME_EVENT_SECONDS = 24 * 3600

EXPIRE_ENDED_WINDOWS = "expire_ended_windows"
EXPIRE_TTL = "expire_ttl"
DECAY = "decay"
CONSOLIDATE = "consolidate"


class Change(NamedTuple):
    """One entry a pass changed, or would change in a dry run."""

    entry_id: uuid.UUID
    action: str  # "expired" | "archived" | "merged"
    reason: str
    score: float | None = None  # retention (decay) or similarity (consolidation)
    into: uuid.UUID | None = None  # the surviving entry of a merge


@dataclass
class PassReport:
    name: str
    action: str
    now: datetime
    dry_run: bool
    max_changes: int
    changes: list[Change] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.changes)

    @property
    def capped(self) -> bool:
        """The pass stopped at its cap; the next run continues with what is left."""
        return self.count >= self.max_changes


# Settings -------------------------------------------------------------------------------------


def half_life_base_days() -> float:
    days = float(getattr(settings, "FORGET_DECAY_HALF_LIFE_DAYS", DEFAULT_HALF_LIFE_DAYS))
    if days <= 0:
        raise ValueError("FORGET_DECAY_HALF_LIFE_DAYS must be positive.")
    return days


def decay_threshold() -> float:
    return float(getattr(settings, "FORGET_DECAY_THRESHOLD", DEFAULT_DECAY_THRESHOLD))


def ttl_days() -> dict[str, float | None]:
    """TTL in days per memory type (None: never), configured values over the defaults."""
    configured = getattr(settings, "MEMORY_TTL_DAYS", None) or {}
    ttls = {**DEFAULT_TTL_DAYS, **configured}
    for type_, days in ttls.items():
        if days is not None and float(days) <= 0:
            raise ValueError(f"MEMORY_TTL_DAYS[{type_!r}] must be positive or None.")
    return ttls


def consolidate_similarity() -> float:
    return float(getattr(settings, "CONSOLIDATE_SIMILARITY", DEFAULT_CONSOLIDATE_SIMILARITY))


def _cap(max_changes: int | None) -> int:
    cap = (
        max_changes
        if max_changes is not None
        else getattr(settings, "FORGET_MAX_CHANGES_PER_PASS", DEFAULT_MAX_CHANGES_PER_PASS)
    )
    cap = int(cap)
    if cap < 0:
        raise ValueError("max_changes must not be negative.")
    return cap


def _now(now: datetime | None) -> datetime:
    if now is None:
        return timezone.now()
    if timezone.is_naive(now):
        raise ValueError("now must be timezone-aware.")
    return now


# Decay score ----------------------------------------------------------------------------------


def half_life_days(entry: MemoryEntry) -> float:
    """Use and confidence stretch the half-life: a memory recalled often fades slowly."""
    return half_life_base_days() * (1 + math.log1p(entry.access_count)) * (0.5 + 0.5 * entry.confidence)


def decay_score(entry: MemoryEntry, now: datetime | None = None) -> float:
    """The entry's retention in [0, 1] at `now`; see the module docstring for the formula."""
    now = _now(now)
    last_use = entry.last_accessed_at or entry.recorded_at
    age_days = max(0.0, (now - last_use).total_seconds() / 86400)
    half_lives = min(_MAX_HALF_LIVES, age_days / half_life_days(entry))
    weight = _IMPORTANCE_FLOOR + (1 - _IMPORTANCE_FLOOR) * entry.importance
    return weight * 0.5**half_lives


def _retention_sql(now: datetime) -> RawSQL:
    """`decay_score` as SQL, so the decay pass can filter and order by it in the database."""
    table = connection.ops.quote_name(MemoryEntry._meta.db_table)

    def col(name: str) -> str:
        return f"{table}.{connection.ops.quote_name(name)}"

    age_days = (
        f"greatest(0.0, extract(epoch from (%s - coalesce({col('last_accessed_at')}, "
        f"{col('recorded_at')})))::double precision / 86400.0)"
    )
    half_life = f"(%s * (1 + ln(1 + {col('access_count')})) * (0.5 + 0.5 * {col('confidence')}))"
    weight = f"(%s + (1 - %s) * {col('importance')})"
    sql = f"{weight} * power(0.5, least(%s, {age_days} / {half_life}))"
    params = (_IMPORTANCE_FLOOR, _IMPORTANCE_FLOOR, _MAX_HALF_LIVES, now, half_life_base_days())
    # Only the table's own quoted column names are interpolated; every value is a parameter.
    return RawSQL(sql, params)  # noqa: S611


# Status passes (1-3) --------------------------------------------------------------------------


def _status_pass(
    *,
    name: str,
    candidates: QuerySet[MemoryEntry],
    order_by: tuple[str, ...],
    new_status: str,
    action: str,
    explain: Callable[[MemoryEntry], tuple[str, float | None, dict[str, Any]]],
    now: datetime,
    dry_run: bool,
    max_changes: int | None,
    exclude_ids: Collection[uuid.UUID],
) -> PassReport:
    """Move the first `max_changes` candidates (in `order_by` order) to `new_status`.

    `candidates` must select active entries only; `explain` gives each one's reason, score and
    extra history data.
    """
    cap = _cap(max_changes)
    report = PassReport(name=name, action=action, now=now, dry_run=dry_run, max_changes=cap)
    if exclude_ids:
        candidates = candidates.exclude(pk__in=list(exclude_ids))
    # The embedding is not needed here; 384 floats a row add up over a batch.
    ordered = candidates.defer("embedding").order_by(*order_by)

    if dry_run:
        for entry in ordered[:cap]:
            reason, score, _ = explain(entry)
            report.changes.append(Change(entry.pk, action, reason, score))
        return report

    skipped: set[uuid.UUID] = set()
    while report.count < cap:
        size = min(_BATCH_SIZE, cap - report.count)
        with transaction.atomic():
            page = ordered.exclude(pk__in=list(skipped)) if skipped else ordered
            # Rows someone is editing right now are skipped, not waited for; the next run gets them.
            batch = list(page.select_for_update(skip_locked=True, of=("self",))[:size])
            if not batch:
                break
            writable = _lock_namespaces({entry.namespace_id for entry in batch})
            skipped.update(entry.pk for entry in batch if entry.namespace_id not in writable)
            changing = [entry for entry in batch if entry.namespace_id in writable]
            MemoryEntry.objects.filter(pk__in=[e.pk for e in changing], status=MemoryStatus.ACTIVE).update(
                status=new_status, expired_at=now, updated_at=timezone.now()
            )
            for entry in changing:
                reason, score, data = explain(entry)
                entry.status = new_status
                event_record(
                    entry=entry,
                    action=action,
                    actor_kind=ActorKind.JOB,
                    reason=reason,
                    data={"status": new_status, "pass": name, **data},
                )
                report.changes.append(Change(entry.pk, action, reason, score))
        if len(batch) < size:
            break
    return report


def _lock_namespaces(namespace_ids: set[int]) -> set[int]:
    """Lock the namespaces no one is writing to right now; return their ids.

    `memory_add` holds its namespace row lock (FOR NO KEY UPDATE, as here) while it decides and
    writes, so a pass that holds it too never interleaves with a write (say, evidence added to an
    entry while it is being merged away). Never waits: a busy namespace is left for the next run.
    """
    return set(
        Namespace.objects.select_for_update(skip_locked=True, no_key=True)
        .filter(pk__in=namespace_ids)
        .values_list("pk", flat=True)
    )


def _active() -> QuerySet[MemoryEntry]:
    # Deliberately across all namespaces: a maintenance job, not a user's read.
    return MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE)


def expire_ended_windows(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Active entries whose validity window has closed (`valid_to <= now`) become expired."""
    now = _now(now)

    def explain(entry: MemoryEntry) -> tuple[str, float | None, dict[str, Any]]:
        assert entry.valid_to is not None
        return (
            f"validity window ended {entry.valid_to.isoformat()}",
            None,
            {"valid_to": entry.valid_to.isoformat()},
        )

    return _status_pass(
        name=EXPIRE_ENDED_WINDOWS,
        candidates=_active().filter(valid_to__lte=now),
        order_by=("valid_to", "pk"),
        new_status=MemoryStatus.EXPIRED,
        action=EventAction.EXPIRED,
        explain=explain,
        now=now,
        dry_run=dry_run,
        max_changes=max_changes,
        exclude_ids=exclude_ids,
    )


def expire_ttl(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Active entries past their `expires_at`, or past their type's TTL (never pinned ones)."""
    now = _now(now)
    ttls = {type_: days for type_, days in ttl_days().items() if days is not None}
    due = Q(expires_at__lte=now)
    for type_, days in ttls.items():
        due |= Q(type=type_, pinned=False, ttl_start__lte=now - timedelta(days=float(days)))
    candidates = _active().annotate(ttl_start=Greatest("valid_from", "recorded_at")).filter(due)

    def explain(entry: MemoryEntry) -> tuple[str, float | None, dict[str, Any]]:
        if entry.expires_at is not None and entry.expires_at <= now:
            return (
                f"expiry date {entry.expires_at.isoformat()} passed",
                None,
                {"rule": "expires_at", "expires_at": entry.expires_at.isoformat()},
            )
        days = ttls[entry.type]
        start = entry.ttl_start  # type: ignore[attr-defined]
        return (
            f"{entry.type} entries are kept {days:g} days; this one since {start.isoformat()}",
            None,
            {"rule": "ttl", "ttl_days": days},
        )

    return _status_pass(
        name=EXPIRE_TTL,
        candidates=candidates,
        order_by=("ttl_start", "pk"),
        new_status=MemoryStatus.EXPIRED,
        action=EventAction.EXPIRED,
        explain=explain,
        now=now,
        dry_run=dry_run,
        max_changes=max_changes,
        exclude_ids=exclude_ids,
    )


def decay(
    now: datetime | None = None,
    *,
    dry_run: bool = False,
    max_changes: int | None = None,
    exclude_ids: Collection[uuid.UUID] = (),
) -> PassReport:
    """Active entries whose retention fell below the threshold are archived, weakest first."""
    now = _now(now)
    threshold = decay_threshold()
    candidates = (
        _active()
        .filter(pinned=False, namespace__memory_paused=False)
        .exclude(type=MemoryType.PROCEDURAL)
        .annotate(retention=_retention_sql(now))
        .filter(retention__lt=threshold)
    )

    def explain(entry: MemoryEntry) -> tuple[str, float | None, dict[str, Any]]:
        retention = decay_score(entry, now)
        last_use = entry.last_accessed_at or entry.recorded_at
        age_days = max(0.0, (now - last_use).total_seconds() / 86400)
        reason = (
            f"retention {retention:.3f} < {threshold:g} (importance {entry.importance:.2f}, "
            f"{age_days:.0f} days since last use, used {entry.access_count} times, "
            f"half-life {half_life_days(entry):.0f} days)"
        )
        return reason, retention, {"retention": round(retention, 6), "threshold": threshold}

    return _status_pass(
        name=DECAY,
        candidates=candidates,
        order_by=("retention", "pk"),
        new_status=MemoryStatus.ARCHIVED,
        action=EventAction.ARCHIVED,
        explain=explain,
        now=now,
        dry_run=dry_run,
        max_changes=max_changes,
        exclude_ids=exclude_ids,
    )


# Consolidation (4) ----------------------------------------------------------------------------

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
    threshold = consolidate_similarity()
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
    now = _now(now)
    cap = _cap(max_changes)
    threshold = consolidate_similarity()
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
            writable = _lock_namespaces({keeper.namespace_id for keeper, _, _ in batch})
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


# All passes -----------------------------------------------------------------------------------

PASSES: tuple[Callable[..., PassReport], ...] = (expire_ended_windows, expire_ttl, decay, consolidate)


def forget_all(
    now: datetime | None = None, *, dry_run: bool = False, max_changes: int | None = None
) -> list[PassReport]:
    """Run the four passes in order at one instant; `max_changes` caps each pass separately.

    A dry run tells each pass which entries the earlier ones would already have taken, so it
    reports what a real run would do.
    """
    now = _now(now)
    reports: list[PassReport] = []
    taken: set[uuid.UUID] = set()
    for run in PASSES:
        report = run(now, dry_run=dry_run, max_changes=max_changes, exclude_ids=taken if dry_run else ())
        taken.update(change.entry_id for change in report.changes)
        reports.append(report)
    return reports
