"""What the user took back stays taken back, without keeping what it said.

When a statement is corrected away, erased or hidden by its user, or rejected by an operator, a
`Tombstone` keeps only a keyed hash (HMAC-SHA256 with `TOMBSTONE_KEY`, by default the
SECRET_KEY) of its normalised wording and of its key slot, and the ids of its source messages.
The write pipeline then refuses the statement when it comes back from the past:
- the same wording, learned from one of the tombstone's messages or from a message said before
  the tombstone was made (a re-extraction of the old conversation);
- the same key slot, from one of the tombstone's messages (the model worded it differently);
- a rejected rule, from anyone but an operator, whenever it comes back.
The user saying it again later, in a new message, is new information and is learned, except a
value the user corrected away, which stays corrected unless the new statement says it changed
(`reconciliation.corrected_value`).
Erase-all also sets the namespace's `mine_after` watermark: nothing said before it is mined again.
Rotating the key makes old tombstones unmatchable (they then protect nothing but hold nothing).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import BigIntegerField, OuterRef, Q, Subquery, TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import JSONObject, Now
from django.db.models.query import MAX_GET_RESULTS

from memory_core import prepared
from memory_core.models import MemoryEntry, MemoryEvidence, Namespace, SourceKind, Tombstone, TombstoneReason
from memory_core.process_caches import ERASURES_SEEN_SQL, erasures_seen
from memory_core.validation import normalise
from memory_core.vector_storage import HalfVectorField


def _key() -> bytes:
    return str(getattr(settings, "TOMBSTONE_KEY", "") or settings.SECRET_KEY).encode()


def statement_digest(text: str) -> str:
    return hmac.new(_key(), b"statement:" + normalise(text).encode(), hashlib.sha256).hexdigest()


def slot_digest(key: str) -> str:
    return (
        hmac.new(_key(), b"key:" + key.strip().casefold().encode(), hashlib.sha256).hexdigest() if key else ""
    )


def message_refs(conversation: str, message_ids: Iterable[str]) -> list[str]:
    """Message ids are unique only within a conversation (mem0 transcripts number theirs 1, 2 …)."""
    return [f"{conversation}:{m}" for m in message_ids] if conversation else []


def tombstones_record(*, entries: Iterable[MemoryEntry], reason: str) -> int:
    """One tombstone per entry (its wording, its slot, every message it rests on); no content."""
    entries = list(entries)
    if not entries:
        return 0
    refs: dict[object, set[str]] = {
        e.pk: set(message_refs(e.source_conversation, e.source_message_ids)) for e in entries
    }
    for entry_id, conversation, ids in MemoryEvidence.objects.filter(
        entry_id__in=[e.pk for e in entries]
    ).values_list("entry_id", "source_conversation", "source_message_ids"):
        refs[entry_id].update(message_refs(conversation, ids))
    Tombstone.objects.bulk_create(
        Tombstone(
            namespace_id=e.namespace_id,
            reason=reason,
            digest=statement_digest(e.content),
            key_digest=slot_digest(e.key),
            message_refs=sorted(refs[e.pk]),
        )
        for e in entries
    )
    return len(entries)


def tombstone_lift(*, entry: MemoryEntry, reason: str) -> None:
    """The user allowed a hidden statement again: its tombstone goes."""
    Tombstone.objects.filter(
        namespace_id=entry.namespace_id, reason=reason, digest=statement_digest(entry.content)
    ).delete()


def mined_too_early(namespace: Namespace, said_at: datetime | None) -> bool:
    """Said before the namespace's erase-all watermark: never learned again."""
    return namespace.mine_after is not None and said_at is not None and said_at < namespace.mine_after


def blocking_tombstone(
    *,
    namespace: Namespace,
    content: str,
    key: str,
    source_kind: str,
    conversation: str,
    message_ids: list[str],
    said_at: datetime | None,
    candidates: list[Tombstone] | None = None,
) -> Tombstone | None:
    """The tombstone that forbids learning `content` from this source again, if any.

    `candidates`: the namespace's tombstones already fetched for a whole batch
    (`namespace_with_tombstones`); without them, the matching ones are queried.
    """
    digest = statement_digest(content)
    refs = message_refs(conversation, message_ids)
    key_digest = slot_digest(key) if key and refs else None
    if candidates is None:
        match = Q(digest=digest)
        if key_digest is not None:
            match |= Q(key_digest=key_digest, message_refs__overlap=refs)
        candidates = list(Tombstone.objects.filter(namespace=namespace).filter(match).order_by("-created_at"))
    for tombstone in candidates:
        same_slot = key_digest is not None and tombstone.key_digest == key_digest
        if tombstone.digest != digest and not (same_slot and set(refs) & set(tombstone.message_refs)):
            continue
        if tombstone.reason == TombstoneReason.REJECTED:
            if source_kind != SourceKind.OPERATOR and tombstone.digest == digest:
                return tombstone
            continue
        if set(refs) & set(tombstone.message_refs):
            return tombstone
        if tombstone.digest == digest and said_at is not None and said_at <= tombstone.created_at:
            return tombstone
    return None


def _could_block(digests: tuple[str, ...], key_digests: tuple[str, ...]) -> Q:
    return Q(digest__in=digests) | Q(key_digest__in=key_digests)


_TOMBSTONE_FIELDS = ("id", "reason", "digest", "key_digest", "message_refs", "created_at")


# A turn a client adds without context is read with the turn it added just before, when that was
# this recent (a conversation stored one turn per call, as mem0's clients store chat).
PREVIOUS_TURN_WINDOW = timedelta(minutes=30)


def _last_turn(field: str = "content") -> Any:
    """A field of the turn a client added last to the namespace (`OuterRef`), within the window."""
    return (
        MemoryEntry.objects.filter(
            namespace_id=OuterRef("pk"), said_as_turn=True, recorded_at__gte=Now() - PREVIOUS_TURN_WINDOW
        )
        .order_by("-recorded_at")
        .values(field)[:1]
    )


def namespace_with_tombstones(
    *, namespace_id: int, contents: list[str], keys: list[str], turns: bool = False
) -> tuple[Namespace, list[Tombstone]]:
    """The namespace's pause and erase-all watermark (`memory_paused`, `mine_after`) and every
    tombstone of it that could block one of the statements, newest first (each statement is then
    checked by `blocking_tombstone(candidates=…)`), and the erasures' sequence
    (`process_caches`), in ONE query: what the write pipeline's
    guards read before embedding. With `turns` (a client's conversation turns are among the
    statements), also `last_turn` (`PREVIOUS_TURN_WINDOW`); otherwise `last_turn` is None;
    `last_turn_embedding` is its stored vector when `CONTEXT_VECTOR` is "pooled" or "deferred",
    else None."""
    digests = tuple(sorted({statement_digest(content) for content in contents}))
    key_digests = tuple(sorted({slot_digest(key) for key in keys if key}))
    pooled = turns and settings.CONTEXT_VECTOR in ("pooled", "deferred")
    build = partial(_namespace_read, turns, pooled)
    found = prepared.run(
        "namespace_with_tombstones", build, [namespace_id, digests, key_digests], shape=(turns, pooled)
    )
    if not found:
        raise Namespace.DoesNotExist("Namespace matching query does not exist.")
    namespace = found[0]
    erasures_seen(namespace.erasures)  # type: ignore[attr-defined]  # before any cache judges
    tombstones = [
        Tombstone(
            namespace_id=namespace_id,
            **{**row, "created_at": datetime.fromisoformat(row["created_at"])},
        )
        for row in namespace.blocking  # type: ignore[attr-defined]  # the annotation
    ]
    return namespace, tombstones


def _namespace_read(
    turns: bool, pooled: bool, namespace_id: int, digests: tuple[str, ...], keys: tuple[str, ...]
) -> Any:
    """`namespace_with_tombstones`' queryset (compiled once a shape: `prepared`), as `QuerySet.get`
    sends it."""
    rows = (
        Tombstone.objects.filter(namespace_id=OuterRef("pk"))
        .filter(_could_block(digests, keys))
        .order_by("-created_at")
        .values(row=JSONObject(**{name: name for name in _TOMBSTONE_FIELDS}))
    )
    return (
        Namespace.objects.only("memory_paused", "mine_after")
        .annotate(
            blocking=ArraySubquery(rows),
            erasures=RawSQL(ERASURES_SEEN_SQL, (), output_field=BigIntegerField()),  # noqa: S611  # a constant
            last_turn=Subquery(_last_turn()) if turns else Value(None, output_field=TextField()),
            # Its statement vector, for a pooled context vector (`CONTEXT_VECTOR`): no second pass.
            last_turn_embedding=(
                Subquery(_last_turn("embedding"), output_field=HalfVectorField())
                if pooled
                else Value(None, output_field=HalfVectorField())
            ),
        )
        .filter(pk=namespace_id)[:MAX_GET_RESULTS]
    )
