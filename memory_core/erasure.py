"""Erasure: the user takes back what the memory system holds about them.

Erasure is a hard delete of an entry and of every OLDER version of it (what it superseded,
transitively: they carry the same personal data, e.g. "lived in Beijing" behind "lives in
Shanghai"); newer versions stay. With the rows go their embeddings, full-text vectors, evidence
and recall-log rows (cascade). The text is removed everywhere else too:
- history: the entries' events stay as content-free tombstones (`data` = {}, no reason, entry
  unlinked), plus one "erased" event each;
- flagged writes that point to the entries or quote their text are deleted;
- evidence excerpts of OTHER entries quoting the same source messages are blanked;
- OTHER entries indexed with the erased text as their conversational context lose it (their
  `search_context`; the search statistics follow by trigger);
- extraction payloads: finished jobs that used the entries' source conversations or quote the
  text lose their whole payload (it has served its purpose); queued, running or failed jobs lose
  the matching messages only, so the rest of the conversation is still learned but the erased
  fact is not learned again. Queued django-q tasks carry only the job id (see
  `extraction.extraction_enqueue`), never text;
- admin log rows naming the entries are renamed to their id;
- related words: the vectors and pairs of terms no namespace holds any more (a trigger, and again
  after the commit: `term_vectors.term_vectors_forget_on_commit`).
Locks: the namespace's unfinished extraction jobs, then the namespace (the order extraction
uses). Extraction holds no lock while the model answers; it re-reads its job before writing, so
a payload scrubbed meanwhile is never written back into memory.

With sources (`chat.erasure`, which the pages and the API call): the conversations the entries
came from or were used in are deleted too, with their messages and extraction jobs.

Every erasure leaves an `ErasureReceipt`: whose, by whom, when and how many rows of each kind,
never what. Its commit requests the disk pass (`memory_core.compaction`): PostgreSQL keeps the
bytes of deleted rows in its table files and WAL until they are vacuumed, rewritten and recycled.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass, fields
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from memory_core.actors import Actor, person
from memory_core.compaction import compaction_request
from memory_core.entities.erasure import entities_prune
from memory_core.lifecycle import _own_entry
from memory_core.models import (
    ActorKind,
    Entity,
    ErasureReceipt,
    ErasureScope,
    ErasureVia,
    EventAction,
    ExtractionJob,
    ExtractionStatus,
    FlaggedWrite,
    ImportJob,
    MemoryEntry,
    MemoryEvent,
    MemoryEvidence,
    Namespace,
    RecallLog,
    TombstoneReason,
)
from memory_core.process_caches import erasure_announce
from memory_core.selectors import memory_versions
from memory_core.term_vectors import term_vectors_forget_on_commit
from memory_core.tombstones import tombstones_record
from memory_core.webhooks.announce import announce_erased

# How much of the end of an erased text is enough to recognise it as another entry's context.
CONTEXT_MATCH_CHARS = 200

ERASED_REASON = "Erased at the user's request."


@dataclass(frozen=True)
class Requester:
    """Who asked for an erasure, for its receipt: the channel, the person (the user themself or an
    operator; None for an API key) and the API key's prefix."""

    via: str = ErasureVia.APP
    person: Any = None
    api_key_prefix: str = ""


@dataclass
class Tally:
    """How many rows of each kind an erasure removed or emptied (the receipt's counts)."""

    entries: int = 0
    evidence: int = 0
    history: int = 0
    recalls: int = 0
    flags: int = 0
    jobs: int = 0
    conversations: int = 0
    messages: int = 0

    def removed_anything(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


def erasure_receipt_record(
    *, subject: Any, scope: str, tally: Tally, requester: Requester | None = None
) -> ErasureReceipt:
    """Write the receipt and, once the erasure commits, ask for the disk pass (debounced)."""
    requester = requester or Requester(person=subject)
    person = requester.person if getattr(requester.person, "is_authenticated", False) else None
    receipt = ErasureReceipt.objects.create(
        subject=subject,
        subject_ref=subject.pk,
        scope=scope,
        via=requester.via,
        requested_by=person,
        api_key_prefix=requester.api_key_prefix[:20],
        **{f.name: getattr(tally, f.name) for f in fields(tally)},
    )
    if tally.removed_anything():
        erasure_announce()
        # robust: the erasure is committed either way; a failed request is logged, and the
        # hourly rewrite check still finds the pending receipt.
        transaction.on_commit(compaction_request, robust=True)
    return receipt


def erasure_receipt_add(*, receipt: ErasureReceipt, tally: Tally) -> ErasureReceipt:
    """Add what an app removed alongside (conversations, messages, jobs) to an erasure's receipt."""
    counts = {f.name: F(f.name) + getattr(tally, f.name) for f in fields(tally) if getattr(tally, f.name)}
    if counts:
        ErasureReceipt.objects.filter(pk=receipt.pk).update(**counts)
        erasure_announce()
        receipt.refresh_from_db()
        transaction.on_commit(compaction_request, robust=True)
    return receipt


def _lock_namespaces(namespace_ids: list[int]) -> list[ExtractionJob]:
    """Unfinished extraction jobs first, then the namespaces: the order extraction takes them."""
    jobs = list(
        ExtractionJob.objects.select_for_update()
        .filter(namespace_id__in=namespace_ids)
        .exclude(status=ExtractionStatus.DONE)
    )
    # FOR NO KEY UPDATE, as the write pipeline takes it (see memory_core.reconciliation).
    list(Namespace.objects.select_for_update(no_key=True).filter(pk__in=namespace_ids))
    return jobs


def _lock_entries(entries: QuerySet[MemoryEntry]) -> list[MemoryEntry]:
    """The entries about to be erased, locked in id order (the order a recall's log locks them)
    before anything of theirs is deleted: a recall logging one of them meanwhile either commits
    first, and its log rows go with the rest, or waits and then logs nothing (`recall.log`)."""
    return list(entries.only("pk", "namespace_id").order_by("pk").select_for_update())


def _quotes(content: str, texts: Collection[str]) -> bool:
    folded = content.casefold()
    return any(text.casefold() in folded for text in texts)


def _scrub_jobs(
    namespace_id: int, unfinished: list[ExtractionJob], texts: set[str], sources: set[tuple[str, str]]
) -> int:
    """Drop the erased messages from job payloads; returns how many payloads changed."""
    changed = 0
    conversations = {conversation for conversation, _ in sources}

    def hit(job: ExtractionJob, message: dict[str, Any]) -> bool:
        ref = (job.source_conversation, str(message.get("id", "")))
        return ref in sources or _quotes(str(message.get("content", "")), texts)

    for job in unfinished:
        kept = [m for m in job.messages if not hit(job, m)]
        if len(kept) == len(job.messages):
            continue
        job.messages = kept
        fields = ["messages"]
        if not kept:  # nothing left to learn from
            job.status, job.result, job.finished_at = (
                ExtractionStatus.DONE,
                {"skipped": "erased"},
                timezone.now(),
            )
            fields += ["status", "result", "finished_at"]
        job.save(update_fields=fields)
        changed += 1
    finished = ExtractionJob.objects.filter(namespace_id=namespace_id, status=ExtractionStatus.DONE)
    for job in finished.exclude(messages=[]).iterator():
        if job.source_conversation in conversations or any(hit(job, m) for m in job.messages):
            job.messages = []
            job.save(update_fields=["messages"])
            changed += 1
    return changed


def _scrub_search_context(namespace_id: int, ids: list[uuid.UUID], texts: Collection[str]) -> None:
    """Other entries indexed with an erased text as their context (the next turn of the same
    conversation) lose that context; the stored context is the end of a turn, so its last
    characters are what is looked for. The statistics triggers drop its words."""
    quoting = Q()
    for text in texts:
        if tail := " ".join(text.split())[-CONTEXT_MATCH_CHARS:]:
            quoting |= Q(search_context__icontains=tail)
    if quoting:
        (
            MemoryEntry.objects.filter(namespace_id=namespace_id)
            .exclude(pk__in=ids)
            .exclude(search_context="")
            .filter(quoting)
            # No context left: nothing for the context-vector job to embed either.
            .update(search_context="", context_embedding=F("embedding"), context_pending=False)
        )


def _scrub_admin_log(ids: Iterable[uuid.UUID]) -> None:
    if not apps.is_installed("django.contrib.admin"):
        return
    # lazy: the admin's models can be imported only when django.contrib.admin is installed
    from django.contrib.admin.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    for pk in ids:
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(MemoryEntry), object_id=str(pk)
        ).update(object_repr=f"erased memory {pk}", change_message="")


def _tombstone(namespace_ids: list[int], ids: list[uuid.UUID]) -> int:
    return MemoryEvent.objects.filter(namespace_id__in=namespace_ids, entry_ref__in=ids).update(
        data={}, reason="", entry=None
    )


def _erased_events(entries: list[MemoryEntry], actor: Actor) -> None:
    who = person(actor)
    MemoryEvent.objects.bulk_create(
        MemoryEvent(
            namespace_id=e.namespace_id,
            entry=None,
            entry_ref=e.pk,
            action=EventAction.ERASED,
            actor_kind=ActorKind.USER,
            actor=who,
            reason=ERASED_REASON,
        )
        for e in entries
    )


@transaction.atomic
def memory_erase(*, actor: Actor, memory_id: Any, requester: Requester | None = None) -> ErasureReceipt:
    """Hard-delete an entry and its older versions, and their text everywhere (module docstring)."""
    entry = _own_entry(actor=actor, memory_id=memory_id)
    ns = entry.namespace_id
    unfinished = _lock_namespaces([ns])
    versions = memory_versions(actor=actor, memory_id=entry.pk)  # after the locks: nothing moves now
    ids = [e.pk for e in versions]
    _lock_entries(MemoryEntry.objects.filter(pk__in=ids))
    evidence = list(MemoryEvidence.objects.filter(entry_id__in=ids))
    texts = {e.content for e in versions} | {ev.excerpt for ev in evidence if ev.excerpt.strip()}
    sources = {
        (e.source_conversation, m) for e in versions if e.source_conversation for m in e.source_message_ids
    }
    sources |= {
        (ev.source_conversation, m)
        for ev in evidence
        if ev.source_conversation
        for m in ev.source_message_ids
    }
    # Content-free tombstones, before the rows (and their evidence) go: no re-extraction of the
    # same messages learns the erased statements again (`memory_core.tombstones`).
    tombstones_record(entries=versions, reason=TombstoneReason.ERASED)
    tally = Tally(entries=len(ids), evidence=len(evidence))

    quoting = Q()
    for text in texts:
        quoting |= Q(excerpt__icontains=text)
    tally.flags, _ = (
        FlaggedWrite.objects.filter(namespace_id=ns).filter(Q(entry_id__in=ids) | quoting).delete()
    )
    other_evidence = MemoryEvidence.objects.filter(entry__namespace_id=ns).exclude(entry_id__in=ids)
    for conversation in {c for c, _ in sources}:
        message_ids = [m for c, m in sources if c == conversation]
        tally.evidence += (
            other_evidence.filter(source_conversation=conversation, source_message_ids__overlap=message_ids)
            .exclude(excerpt="")
            .update(excerpt="")
        )
    if quoting:
        tally.evidence += other_evidence.filter(quoting).exclude(excerpt="").update(excerpt="")
    _scrub_search_context(ns, ids, texts)
    tally.jobs = _scrub_jobs(ns, unfinished, texts, sources)
    _scrub_admin_log(ids)
    tally.history = _tombstone([ns], ids)
    tally.recalls = RecallLog.objects.filter(entry_id__in=ids).count()
    term_vectors_forget_on_commit(entry_ids=ids)  # what the trigger on `SearchTerm` can miss
    MemoryEntry.objects.filter(pk__in=ids).delete()  # evidence, recall logs, graph support cascade
    entities_prune(namespace_ids=[ns])  # relations no other memory supports, entities left bare
    _erased_events(versions, actor)
    announce_erased(entries=versions, scope=ErasureScope.ONE)
    return erasure_receipt_record(subject=actor, scope=ErasureScope.ONE, tally=tally, requester=requester)


@transaction.atomic
def memory_erase_all(
    *, actor: Actor, requester: Requester | None = None, scope: str = ErasureScope.ALL
) -> ErasureReceipt:
    """Erase everything in the actor's own namespaces, extraction jobs queued or running included;
    the receipt's `entries` says how many entries went."""
    namespace_ids = list(Namespace.objects.owned_by(actor).values_list("pk", flat=True))
    tally = Tally()
    if namespace_ids:
        _lock_namespaces(namespace_ids)
        entries = _lock_entries(MemoryEntry.objects.filter(namespace_id__in=namespace_ids))
        ids = [e.pk for e in entries]
        # Nothing said before now is mined again: a later idle sweep of the old conversations, or
        # a re-submitted range, learns nothing from them (`memory_core.tombstones`).
        Namespace.objects.filter(pk__in=namespace_ids).update(mine_after=timezone.now())
        tally.entries = len(ids)
        tally.evidence = MemoryEvidence.objects.filter(entry__namespace_id__in=namespace_ids).count()
        tally.flags, _ = FlaggedWrite.objects.filter(namespace_id__in=namespace_ids).delete()
        tally.jobs, _ = ExtractionJob.objects.filter(namespace_id__in=namespace_ids).delete()
        imports, _ = ImportJob.objects.filter(namespace_id__in=namespace_ids).delete()
        tally.jobs += imports  # their pending statements are the user's words
        tally.recalls, _ = RecallLog.objects.filter(namespace_id__in=namespace_ids).delete()
        _scrub_admin_log(ids)
        # Every event of these namespaces, including tombstones of entries erased before.
        tally.history = (
            MemoryEvent.objects.filter(namespace_id__in=namespace_ids)
            .exclude(data={}, reason="", entry=None)
            .update(data={}, reason="", entry=None)
        )
        term_vectors_forget_on_commit(entry_ids=ids)
        MemoryEntry.objects.filter(pk__in=ids).delete()
        Entity.objects.filter(namespace_id__in=namespace_ids).delete()  # relations and mentions cascade
        _erased_events(entries, actor)
        announce_erased(entries=entries, scope=scope, namespace_ids=namespace_ids)
    return erasure_receipt_record(subject=actor, scope=scope, tally=tally, requester=requester)


@transaction.atomic
def extraction_jobs_erase(*, actor: Actor, source_conversations: Collection[str]) -> int:
    """Delete the actor's extraction jobs (and their payloads) of conversations the user deleted."""
    refs = [str(ref) for ref in source_conversations if ref]
    if not refs:
        return 0
    namespace_ids = list(Namespace.objects.owned_by(actor).values_list("pk", flat=True))
    _lock_namespaces(namespace_ids)
    deleted, _ = ExtractionJob.objects.filter(
        namespace_id__in=namespace_ids, source_conversation__in=refs
    ).delete()
    return deleted
