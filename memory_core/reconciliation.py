"""Steps 4 and 5 of the write pipeline (`pipeline.write`): under the namespace lock
(`lock_for_write`), what a screened statement does to what is stored — ADD, MERGE, SUPERSEDE or
IGNORE — and the rows it leaves.

A MERGE adds evidence to the existing entry (confidence combined as a noisy-or).
A different statement for the same key SUPERSEDES the current one for objective facts (the newer
in world time wins; older news arriving late is recorded as history); for preferences one
contrary mention does not overturn a preference stated repeatedly: both are kept. Re-running the
same source (same conversation, messages and text) is IGNORED, so jobs are idempotent.

Locks: the namespace row is taken FOR NO KEY UPDATE, which serialises writers of one namespace
but does not conflict with the FOR KEY SHARE locks that inserts referencing it take (recall's
log rows), so recall and add on one user never deadlock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from typing import Any

from django.db.models import Exists, F, FloatField, OuterRef, Value
from django.db.models.query import MAX_GET_RESULTS
from django.utils import timezone
from pgvector import HalfVector, Vector
from pgvector.django import CosineDistance

from config.tuning import tuned
from memory_core import prepared
from memory_core.choices import AddAction
from memory_core.context_vectors import deferred, run_held
from memory_core.entities.hooks import named_entities_exist
from memory_core.extraction.slots import replaces_in_slot, says_change, slot_reading
from memory_core.language import is_chinese
from memory_core.models import (
    EventAction,
    MemoryEntry,
    MemoryEvidence,
    MemoryStatus,
    MemoryType,
    Namespace,
    SourceKind,
)
from memory_core.outcomes import AddOutcome
from memory_core.reading.slots import related_slot_keys, slot_family
from memory_core.sameness import same_statement, value_tokens
from memory_core.screening import always_recall_choice, as_the_user_chose, flag_policy
from memory_core.services import event_record, memory_insert, start_known, supersede
from memory_core.webhooks.announce import outcome_listeners
from memory_core.write_request import WriteRequest

PREFERENCE_CATEGORIES = {"preference"}
# Paraphrases of one fact score above this cosine (numbers and negation are checked apart); in one
# key slot another value supersedes instead, so there only near-identical wording merges.
MERGE_SIMILARITY, MERGE_SIMILARITY_SAME_KEY = 0.9, 0.97


# --- 4. reconcile and 5. persist -----------------------------------------------------------------


def lock_for_write(namespace_id: int) -> Namespace:
    """`locks.lock_namespace`, with `webhooks_listening` (whether any webhook wants the pipeline's events),
    `names_known` (whether the namespace has named entities a statement could mention in passing),
    `corrections_made` (whether the user corrected any value away) and, with deferred context
    vectors, `context_run_held` (`context_vectors.run_held`) read in the same query (compiled
    once: `prepared`)."""
    held = deferred()
    found = prepared.run("lock_for_write", partial(_locked, held), [namespace_id], shape=(held,))
    if not found:
        raise Namespace.DoesNotExist("Namespace matching query does not exist.")
    return found[0]


def _locked(held: bool, namespace_id: int) -> Any:
    """`lock_for_write`'s queryset, as `QuerySet.get` would send it (its `LIMIT 21`)."""
    extra = {"context_run_held": run_held()} if held else {}
    return (
        Namespace.objects.select_for_update(no_key=True)
        .annotate(
            webhooks_listening=outcome_listeners(),
            names_known=named_entities_exist(),
            corrections_made=Exists(corrections(OuterRef("pk"))),
            **extra,
        )
        .filter(pk=namespace_id)[:MAX_GET_RESULTS]
    )


def _merge_similarity() -> float:
    return float(tuned("MERGE_SIMILARITY", MERGE_SIMILARITY))


NEAREST = 3  # how many nearest entries may be the same statement


@dataclass(frozen=True)
class Candidates:
    """What reconciling one statement compares it with: the `NEAREST` entries of its duplicate
    scope by cosine `distance` and the first with its wording (hidden ones included: a hidden
    statement said again stays hidden instead of coming back as a new entry), the current entries
    of its key slot and related slots (newest first), and the values the user corrected away in
    that slot (`corrected`)."""

    duplicates: list[MemoryEntry]
    slots: list[MemoryEntry]
    corrected: list[MemoryEntry]

    @property
    def slot(self) -> MemoryEntry | None:
        return self.slots[0] if self.slots else None


SLOT_ROWS = 3  # current entries of the related slots a statement may replace at once
CORRECTED_ROWS = 3  # values corrected away in its slot, nearest first
# Below the merge threshold: the candidates are already the values the user took back, and the
# statement must name the value taken out ("Leeds is where I live" is 0.88 from "I live in Leeds").
CORRECTED_SIMILARITY = 0.75


def candidates(namespace_id: int, request: WriteRequest, *, corrections_made: bool = True) -> Candidates:
    """`Candidates` of `request`, in one query (a UNION ALL of the lookups, compiled once a shape:
    `prepared`); the corrected-away values are looked up only where the user ever corrected one
    (`lock_for_write` says)."""
    keyed = bool(request.key) and request.type != MemoryType.PROCEDURAL
    keys = tuple(related_slot_keys(request.key)) if keyed else ()
    corrected = corrections_made and request.type != MemoryType.PROCEDURAL
    build = partial(_candidates, request.type, corrected)
    if request.embedding is None:
        rows = list(build(namespace_id, None, None, request.content, keys))
    else:
        vector = _vector_text(request.embedding)
        args: list[prepared.Value] = [namespace_id, timezone.now(), vector, request.content, keys]
        rows = prepared.run("candidates", build, args, shape=(request.type, corrected))

    def role(name: str) -> list[MemoryEntry]:
        return [e for e in rows if e.role == name]  # type: ignore[attr-defined]

    near = sorted(role("near"), key=lambda e: e.distance)  # type: ignore[attr-defined]
    return Candidates(
        duplicates=near + role("wording"),
        slots=sorted(role("slot"), key=lambda e: e.valid_from, reverse=True),
        corrected=sorted(role("corrected"), key=lambda e: e.distance),  # type: ignore[attr-defined]
    )


def _vector_text(vector: Any) -> str:
    """A vector as pgvector's `CosineDistance` sends it: its text form."""
    return vector.to_text() if isinstance(vector, Vector | HalfVector) else Vector(vector).to_text()


def _candidates(
    type: str,
    corrected: bool,
    namespace_id: int,
    at: datetime | None,
    vector: str | None,
    content: str,
    keys: tuple[str, ...],
) -> Any:
    """`candidates`' queryset: the entries of `type` nearest to `vector` (its text form) and with
    the wording `content`, the current ones of the slots `keys`, and (`corrected`) the values
    corrected away; `at`: now (None: read the clock)."""
    live, dup_scope = reconcile_scopes(namespace_id, type, at=at)
    distance = CosineDistance("embedding", Value(vector) if vector is not None else None)
    parts = [
        dup_scope.exclude(embedding__isnull=True)
        .annotate(distance=distance, role=Value("near"))
        .order_by("distance")[:NEAREST],
        # The same wording counts as distance 0, whatever its vector (`first_same_statement`).
        dup_scope.filter(content__iexact=content)
        .annotate(distance=Value(0.0, output_field=FloatField()), role=Value("wording"))
        .order_by()[:1],
    ]
    if keys:
        parts.append(
            live.filter(key__in=keys)
            .annotate(distance=distance, role=Value("slot"))
            .order_by("-valid_from")[:SLOT_ROWS]
        )
    if corrected:
        parts.append(
            corrections(namespace_id)
            .filter(type=type)
            .exclude(embedding__isnull=True)
            .annotate(distance=distance, role=Value("corrected"))
            .order_by("distance")[:CORRECTED_ROWS]
        )
    return parts[0].union(*parts[1:], all=True)


def taken_out_by_correction(wrong: str, correction: str) -> frozenset[str]:
    """The value words a correction took out of a statement ("leeds" from "I live in Leeds" →
    "I live in York")."""
    return frozenset(value_tokens(wrong) - value_tokens(correction))


def corrections(namespace_id: Any) -> Any:
    """The entries the user corrected away in a namespace (`namespace_id` may be an `OuterRef`)
    while the correction still stands: once news replaced the correction ("I moved back to
    Leeds"), the old value is no longer one the user took back."""
    return MemoryEntry.objects.filter(
        namespace_id=namespace_id,
        status=MemoryStatus.SUPERSEDED,
        superseded_by__source_kind=SourceKind.USER_CORRECTION,
    ).exclude(superseded_by__status=MemoryStatus.SUPERSEDED)


def corrected_away(namespace_id: int, type: str) -> list[frozenset[str]]:
    """The values taken out by the user's corrections in a namespace, for one memory type (the
    batch path sends a statement naming one of them to `reconcile`)."""
    rows = corrections(namespace_id).filter(type=type)
    return [
        taken_out_by_correction(wrong, right)
        for wrong, right in rows.values_list("content", "superseded_by__content")
    ]


def corrected_value(found: Candidates, request: WriteRequest) -> MemoryEntry | None:
    """The corrected-away entry `request` says again in passing, if any. The rule: a value the
    user corrected away ("I live in Leeds" corrected to York) comes back only when the statement
    says it changed or when ("I moved back to Leeds last month"); mentioned again without that
    ("I'm based in Leeds", an old message re-read) it does not undo the correction. Saying it
    again is making a claim close to the corrected one (`CORRECTED_SIMILARITY`, or the same
    reading of its slot) that names the value the correction took out ("Leeds")."""
    if not found.corrected or request.source_kind == SourceKind.USER_CORRECTION:
        return None
    if says_change(request.raw_text or request.content):
        return None
    corrections = dict(
        MemoryEntry.objects.filter(pk__in=[e.superseded_by_id for e in found.corrected]).values_list(
            "pk", "content"
        )
    )
    reading = slot_reading(request.content)
    said = value_tokens(request.content)
    for entry in found.corrected:
        if request.key and entry.key and entry.key not in related_slot_keys(request.key):
            continue
        correction = corrections.get(entry.superseded_by_id, "") if entry.superseded_by_id else ""
        taken_out = taken_out_by_correction(entry.content, correction)
        if not taken_out or not taken_out <= said:
            continue
        if reading and slot_reading(entry.content) == reading:
            return entry
        # The local encoder reads English: between Chinese statements its cosine says little
        # ("我成都的朋友来看我了" is close to "我住在成都"), so there only the reading counts.
        similarity = 1 - float(getattr(entry, "distance", 0.0) or 0.0)
        if similarity >= CORRECTED_SIMILARITY and not is_chinese(request.content):
            return entry
    return None


def first_same_statement(nearest: list[MemoryEntry], request: WriteRequest) -> MemoryEntry | None:
    """The first of `nearest` (annotated with their cosine `distance`) that states `request`."""
    same_key_threshold = float(tuned("MERGE_SIMILARITY_SAME_KEY", MERGE_SIMILARITY_SAME_KEY))
    for candidate in nearest:
        similarity = 1 - float(getattr(candidate, "distance", 0.0) or 0.0)
        threshold = (
            same_key_threshold if request.key and candidate.key == request.key else _merge_similarity()
        )
        if same_statement(
            candidate.content,
            request.content,
            similarity=similarity,
            threshold=threshold,
            a_metadata=candidate.metadata,
            b_metadata=request.metadata,
            exact=request.exact,
        ):
            return candidate
    return None


def _same_source(entry: MemoryEntry, request: WriteRequest) -> bool:
    """Whether this exact observation is already part of the entry's evidence."""
    if not request.source_conversation:
        return False
    return entry.evidence.filter(
        source_conversation=request.source_conversation, source_message_ids=list(request.source_message_ids)
    ).exists()


def _create(
    namespace: Namespace, request: WriteRequest, *, status: str | None = None, reason: str = ""
) -> MemoryEntry:
    if request.valid_from is None:
        request = replace(request, valid_from=timezone.now(), start_known=start_known(request))
    vectors = None
    if request.embedding is not None and request.context_embedding is not None:
        vectors = (request.embedding, request.context_embedding)
    return memory_insert(
        namespace=namespace,
        draft=request,
        reason=reason,
        status=status,
        vectors=vectors,
        embedding=request.embedding,
    )


def _merge(entry: MemoryEntry, request: WriteRequest) -> AddOutcome:
    # Said again, a fact the user said not to recall every time is not pinned again (nor lifted
    # back to a safety fact's importance) by the safety judgement that pinned it the first time.
    request = as_the_user_chose(request, always_recall_choice(entry.metadata))
    MemoryEvidence.objects.create(
        entry=entry,
        source_kind=request.source_kind,
        source_conversation=request.source_conversation,
        source_message_ids=list(request.source_message_ids),
        excerpt=request.excerpt,
        confidence=request.confidence,
    )
    entry.evidence_count += 1
    entry.confidence = round(1 - (1 - entry.confidence) * (1 - request.confidence), 4)
    entry.importance = max(entry.importance, request.importance)
    entry.pinned = entry.pinned or request.pinned
    entry.save(update_fields=["evidence_count", "confidence", "importance", "pinned", "updated_at"])
    event_record(
        entry=entry,
        action=EventAction.MERGED,
        actor_kind=request.actor_kind,
        actor=request.actor,
        reason="The same statement was observed again.",
        data={
            "content": request.content,
            "evidence_count": entry.evidence_count,
            "confidence": entry.confidence,
        },
    )
    return AddOutcome(AddAction.MERGED, entry, reason="duplicate of an existing memory")


def reconcile_scopes(namespace_id: int, type: str, *, at: datetime | None = None) -> tuple[Any, Any]:
    """(live, duplicates): the entries of `type` a new statement updates by key, and those it may
    merge into (hidden ones too, see `_find_duplicate`). `at`: now, when the caller read the clock
    (`MemoryEntryQuerySet.current` reads a future instant as now)."""
    live = MemoryEntry.objects.in_namespaces([namespace_id]).filter(type=type)
    if type == MemoryType.PROCEDURAL:
        live = live.filter(status__in=[MemoryStatus.ACTIVE, MemoryStatus.PENDING_REVIEW])
        return live, live
    live = live.current(at=at)
    dup_scope = MemoryEntry.objects.in_namespaces([namespace_id]).filter(type=type).filter(
        pk__in=live.values("pk")
    ) | MemoryEntry.objects.in_namespaces([namespace_id]).filter(type=type, status=MemoryStatus.HIDDEN)
    return live, dup_scope


def reconcile(namespace: Namespace, request: WriteRequest) -> AddOutcome:
    """ADD, MERGE, SUPERSEDE or IGNORE, with the namespace locked by the caller."""
    found = candidates(namespace.pk, request, corrections_made=getattr(namespace, "corrections_made", True))
    duplicate = first_same_statement(found.duplicates, request)
    if duplicate is not None:
        if _same_source(duplicate, request):
            return AddOutcome(AddAction.IGNORED, duplicate, reason="already recorded from this source")
        return _merge(duplicate, request)

    if request.type == MemoryType.PROCEDURAL:
        entry = _create(
            namespace, request, status=MemoryStatus.PENDING_REVIEW, reason="Awaiting operator review."
        )
        return held_for_review(entry, request)

    corrected = corrected_value(found, request)
    if corrected is not None:
        return AddOutcome(
            AddAction.IGNORED,
            found.slot,
            reason="the user corrected this value; said again without a change, it stays corrected",
        )
    replaced = [e for e in found.slots if replaces_in_slot(request.key, request.content, e.key, e.content)]
    if not replaced:
        return AddOutcome(AddAction.ADDED, _create(namespace, request))
    return _update_slot(namespace, request, replaced[0], also=replaced[1:])


def _late_history(
    namespace: Namespace, request: WriteRequest, slot: MemoryEntry, start: datetime
) -> AddOutcome:
    """Older news about the world arriving late (an import, a backfill): it held from `start` until
    the next value the slot's history knows, and the value that held at `start` ended then. So
    Leeds (2021), then York (current) and Bath (2022) arriving in that order leave three windows in
    date order, and a question "at" late 2022 is answered with Bath."""
    history = (
        MemoryEntry.objects.in_namespaces([namespace.pk])
        .filter(type=request.type, key__in=slot_family(request.key), status=MemoryStatus.SUPERSEDED)
        .exclude(valid_to=F("valid_from"))  # corrected away: never true, no window to cut
    )
    following = history.filter(valid_from__gt=start).order_by("valid_from").first()
    if following is None or following.valid_from > slot.valid_from:
        following = slot
    entry = _create(
        namespace,
        replace(request, valid_from=start, valid_to=following.valid_from),
        status=MemoryStatus.SUPERSEDED,
        reason="Held before a newer value.",
    )
    MemoryEntry.objects.filter(pk=entry.pk).update(superseded_by=following, expired_at=timezone.now())
    before = history.filter(valid_from__lt=start).exclude(pk=entry.pk).order_by("-valid_from").first()
    if before is not None and (before.valid_to is None or before.valid_to > start):
        MemoryEntry.objects.filter(pk=before.pk).update(valid_to=start, superseded_by=entry)
    return AddOutcome(AddAction.ADDED, entry, reason="recorded as history: the current value is newer")


def _update_slot(
    namespace: Namespace, request: WriteRequest, slot: MemoryEntry, also: list[MemoryEntry] | tuple = ()
) -> AddOutcome:
    """A new statement for a key slot that holds `slot`: supersede it, keep both (a repeated
    preference), or record the newcomer as history (older news arriving late). `also`: older
    entries of related slots it replaces too (a role at the employer it names)."""
    key = request.key
    if (
        request.category in PREFERENCE_CATEGORIES
        and slot.evidence_count >= 2
        and request.source_kind != SourceKind.USER_CORRECTION
    ):
        metadata = {**request.metadata, "contrasts_with": str(slot.pk)}
        entry = _create(
            namespace,
            replace(request, metadata=metadata),
            reason="A contrary mention of a repeated preference; both are kept with their scenario.",
        )
        return AddOutcome(AddAction.ADDED, entry, reason="kept alongside a repeated preference")

    start = request.valid_from or timezone.now()
    if start < slot.valid_from:
        return _late_history(namespace, request, slot, start)

    # "Always recall my diet" holds for its next value; "don't" does not: a new value is judged afresh,
    # so an allergy said in a slot the user unpinned is still a safety fact, always recalled.
    if always_recall_choice(slot.metadata) is True:
        request = as_the_user_chose(request, True)

    entry = _create(
        namespace, replace(request, valid_from=start), reason=f"Replaces the previous value of {key!r}."
    )
    for old in [slot, *(e for e in also if e.valid_from <= start)]:
        supersede(
            old,
            by=entry,
            at=start,
            actor_kind=request.actor_kind,
            actor=request.actor,
            reason=f"Replaced by a newer {key!r}.",
        )
    return AddOutcome(AddAction.SUPERSEDED, entry, replaced=slot)


def held_for_review(entry: MemoryEntry, request: WriteRequest) -> AddOutcome:
    """The outcome of a procedure written `pending_review`, flagged for operators when it weakens a
    control (one place for the single and the batched write)."""
    if request.flag_reason:
        flag_policy(
            entry,
            reason=request.flag_reason,
            source_kind=request.source_kind,
            source_conversation=request.source_conversation,
            source_message_ids=request.source_message_ids,
        )
    return AddOutcome(
        AddAction.PENDING_REVIEW,
        entry,
        reason="procedures need operator approval",
        flagged=bool(request.flag_reason),
    )
