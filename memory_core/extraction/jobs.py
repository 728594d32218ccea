"""Extraction jobs: turn a conversation range into candidate memories and write them through `memory_add`.

`extraction_enqueue` records one idempotent `ExtractionJob` per conversation range and queues
`memory_core.tasks.extract_job` after commit; `extraction_run` (the task's body) asks the extractor
for candidates — the language model, or regular expressions in offline mode — and reconciles each
one into the namespace. Only what the user said counts as evidence.
"""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_q.exceptions import TimeoutException

from memory_core import judgement
from memory_core.choices import AddAction
from memory_core.entities.hooks import relations_from_candidate
from memory_core.errors import Conflict, MemoryServiceError
from memory_core.extraction.llm_extractor import LLMExtractor
from memory_core.extraction.rules import RuleBasedExtractor
from memory_core.extraction.schema import (
    CONVERSATION_MAX_CHARS,
    EXCERPT_MAX_CHARS,
    MAX_ATTEMPTS,
    MAX_MESSAGES,
    MESSAGE_ID_MAX_CHARS,
    OUTCOME_ACTIONS,
    Candidate,
    Extractor,
)
from memory_core.extraction.schema import parse_when as _parse_when
from memory_core.jobs import enqueue
from memory_core.leases import claim_until, holder_gone, lost_jobs, task_timeout, this_run
from memory_core.llm import LLMError, OfflineMode
from memory_core.models import ActorKind, ExtractionJob, ExtractionStatus, Namespace, SourceKind
from memory_core.outcomes import AddOutcome
from memory_core.pipeline import memory_add
from memory_core.tombstones import mined_too_early
from memory_core.webhooks.announce import announce_job

logger = logging.getLogger(__name__)

_IDEMPOTENCY_KEY_MAX_CHARS = 200  # ExtractionJob.idempotency_key
_CHANGING_ACTIONS = AddAction.changing()


def get_extractor() -> Extractor:
    """The language model when an API key is configured, the rules otherwise."""
    if settings.OPENAI_API_KEY:
        return LLMExtractor()
    return RuleBasedExtractor()


def _clean_messages(messages: Any) -> list[dict[str, Any]]:
    if not isinstance(messages, list) or not messages:
        raise MemoryServiceError("Nothing to extract from: the message list is empty.")
    if len(messages) > MAX_MESSAGES:
        raise MemoryServiceError(f"At most {MAX_MESSAGES} messages per extraction (got {len(messages)}).")
    clean = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise MemoryServiceError(f"Message {index} is not an object.")
        missing = [f for f in ("id", "role", "content") if message.get(f) in (None, "")]
        if missing:
            raise MemoryServiceError(f"Message {index} has no {', '.join(missing)}.")
        message_id = str(message["id"])
        if len(message_id) > MESSAGE_ID_MAX_CHARS:
            raise MemoryServiceError(f"Message {index}: ids are at most {MESSAGE_ID_MAX_CHARS} characters.")
        if not isinstance(message["content"], str):
            raise MemoryServiceError(f"Message {index}: content must be text.")
        created_at = message.get("created_at")
        parsed = _parse_when(created_at)
        if created_at not in (None, "") and parsed is None:
            raise MemoryServiceError(f"Message {index}: created_at is not an ISO date-time.")
        clean.append(
            {
                "id": message_id,
                "role": str(message["role"]).strip().lower(),
                # The extractor needs no secret, and a job payload must not keep one.
                "content": judgement.secrets(message["content"]).redacted,
                "created_at": parsed.isoformat() if parsed else None,
                # Who said it in a conversation of several people (the graph reads "my" as theirs).
                **({"name": name[:100]} if (name := str(message.get("name") or "").strip()) else {}),
            }
        )
    return clean


def _idempotency_key(namespace_id: int, conversation: str, messages: list[dict[str, Any]]) -> str:
    digest = hashlib.sha256(
        json.dumps([[m["id"], m["role"], m["content"]] for m in messages], ensure_ascii=False).encode()
    ).hexdigest()[:16]
    span = f"{messages[0]['id']}-{messages[-1]['id']}"
    key = f"{namespace_id}:{conversation}:{span}:{digest}"
    if len(key) > _IDEMPOTENCY_KEY_MAX_CHARS:
        # Long ids would overflow the column: the range is then named by its hash.
        key = f"{namespace_id}:{conversation}:{hashlib.sha256(span.encode()).hexdigest()[:32]}:{digest}"
    return key


def extraction_enqueue(
    *, namespace: Namespace, source_conversation: str, messages: list[dict[str, Any]], trigger: str = "manual"
) -> ExtractionJob | None:
    """One job per conversation range, queued after commit; `None` while the namespace's memory is
    paused, or when nothing is left to learn from (no user message said after the erase-all
    watermark).

    Pausing is an ordinary user choice, not an error, so callers need no try/except for it; nothing
    about the conversation is stored. The stored payload is redacted: secrets never reach a job.
    Re-submitting the same range (same ids and contents) returns the same job: a finished one is
    not queued again, an unfinished one is (the run is idempotent, so a second task is a no-op,
    and a lost task is replaced).
    """
    if namespace.memory_paused:
        return None
    conversation = str(source_conversation or "")
    if len(conversation) > CONVERSATION_MAX_CHARS:
        raise MemoryServiceError(f"Conversation references are at most {CONVERSATION_MAX_CHARS} characters.")
    clean = _clean_messages(messages)
    # Said before the user erased everything: never mined again (see memory_core.tombstones).
    clean = [m for m in clean if not mined_too_early(namespace, _parse_when(m["created_at"]))]
    if not any(m["role"] == "user" for m in clean):
        return None
    key = _idempotency_key(namespace.pk, conversation, clean)
    with transaction.atomic():
        job, created = ExtractionJob.objects.get_or_create(
            idempotency_key=key,
            defaults={
                "namespace": namespace,
                "source_conversation": conversation,
                "messages": clean,
                "trigger": (trigger or "manual")[:20],
            },
        )
        if created or job.status != ExtractionStatus.DONE:
            _queue(job.pk)
    return job


def _empty_result() -> dict[str, Any]:
    return {**dict.fromkeys(OUTCOME_ACTIONS, 0), "entries": [], "changed": []}


def _valid_from(candidate: Candidate) -> tuple[datetime | None, dict[str, Any]]:
    """The candidate's start as an aware datetime; a future date is kept in metadata only."""
    if not candidate.valid_from:
        return None, {}
    when = _parse_when(candidate.valid_from.strip())
    if when is None:
        return None, {}
    metadata = {"event_date": when.date().isoformat()}
    return (when if when <= timezone.now() else None), metadata


def candidate_start(
    candidate: Candidate, *, said_at: datetime | None
) -> tuple[datetime | None, dict[str, Any]]:
    """When the candidate's fact starts (for `memory_add`'s `valid_from`), and its metadata.

    Its own past date if it has one, else when the user said it (`said_at`, never after now): a
    fact extracted late from an older message must not look newer than what was said since, so
    `memory_add` records it as history instead of letting it replace the current value.
    """
    start, metadata = _valid_from(candidate)
    if start is None and said_at is not None:
        start = min(said_at, timezone.now())
    return start, metadata


def _said_at(messages: list[dict[str, Any]], message_ids: list[str]) -> datetime | None:
    """The time of the latest of `message_ids` among the user messages of a job payload."""
    cited = set(message_ids)
    times = [
        when
        for m in messages
        if m["role"] == "user" and m["id"] in cited and (when := _parse_when(m.get("created_at")))
    ]
    return max(times, default=None)


def _speaker(messages: list[dict[str, Any]], message_ids: list[str]) -> str:
    """The one speaker named by the cited user messages ("" when none is, or several are)."""
    cited = set(message_ids)
    names = {m["name"] for m in messages if m["role"] == "user" and m["id"] in cited and m.get("name")}
    return names.pop() if len(names) == 1 else ""


def candidate_add(
    *,
    namespace: Namespace,
    candidate: Candidate,
    source_kind: str,
    conversation: str,
    said_at: datetime | None,
    excerpt: str,
    actor_kind: str,
    actor: Any = None,
    extractor: Extractor | None = None,
    context: str = "",
    speaker: str = "",
) -> AddOutcome:
    """One candidate through the write pipeline: the one mapping of a candidate to an add, for
    extraction jobs and for chat's "remember that …" alike. `excerpt` is the user's own text the
    candidate came from: stored redacted as evidence and checked for secrets the rewrite moved."""
    explicit = source_kind != SourceKind.EXTRACTED
    valid_from, metadata = candidate_start(candidate, said_at=said_at)
    if speaker:
        metadata = {**metadata, "speaker": speaker}
    return memory_add(
        namespace=namespace,
        content=candidate.content,
        type=candidate.type,
        category=candidate.category,
        key=candidate.key,
        source_kind=source_kind,
        source_conversation=conversation,
        source_message_ids=candidate.message_ids,
        confidence=1.0 if explicit else candidate.confidence,
        importance=candidate.importance,
        pinned=candidate.pinned,
        is_inference=candidate.is_inference,
        valid_from=valid_from,
        metadata=metadata or None,
        extractor_model=extractor.name if extractor else "",
        extractor_prompt_version=extractor.prompt_version if extractor else "",
        actor_kind=actor_kind,
        actor=actor,
        excerpt=excerpt,
        raw_text=excerpt,
        said=candidate.said,
        said_at=said_at,
        context=context,
    )


def preceding_turn(messages: list[dict[str, Any]], message_ids: list[str]) -> str:
    """The message just before the first of `message_ids` (often the question the user answered):
    what the candidate is indexed with for search (`memory_core.search_context`)."""
    cited = set(message_ids)
    for index, message in enumerate(messages):
        if message.get("id") in cited:
            return str(messages[index - 1].get("content", "")) if index > 0 else ""
    return ""


def _write_candidates(
    job: ExtractionJob, extractor: Extractor, candidates: list[Candidate]
) -> dict[str, Any]:
    texts = {m["id"]: m["content"] for m in job.messages if m["role"] == "user"}
    result = _empty_result()
    for candidate in candidates:
        excerpt = "\n".join(texts[i] for i in candidate.message_ids if i in texts)[:EXCERPT_MAX_CHARS]
        try:
            # A savepoint per candidate: one refused statement does not undo the others.
            with transaction.atomic():
                outcome = candidate_add(
                    namespace=job.namespace,
                    candidate=candidate,
                    source_kind=SourceKind.EXTRACTED,
                    conversation=job.source_conversation,
                    said_at=_said_at(job.messages, candidate.message_ids),
                    excerpt=excerpt,
                    actor_kind=ActorKind.EXTRACTION,
                    extractor=extractor,
                    context=preceding_turn(job.messages, candidate.message_ids),
                    speaker=_speaker(job.messages, candidate.message_ids),
                )
        except LLMError:
            raise  # e.g. the embedding endpoint failed: the whole run fails and is retried
        except MemoryServiceError:
            result["rejected"] += 1
            continue
        result[outcome.action] = result.get(outcome.action, 0) + 1
        if outcome.entry is not None and candidate.relations and outcome.action in _CHANGING_ACTIONS:
            relations_from_candidate(
                entry=outcome.entry, relations=candidate.relations, extractor=extractor.name
            )
        # What the statement also stored (the safety fact a held rule states first) is listed
        # after it, as a direct write's reply lists it: mem0's event showed the held rule alone.
        for done in (outcome, *outcome.also):
            if done.entry is not None:
                entry_id = str(done.entry.pk)
                if entry_id not in result["entries"]:
                    result["entries"].append(entry_id)
                if done.action in _CHANGING_ACTIONS and entry_id not in result["changed"]:
                    result["changed"].append(entry_id)
    return result


# How often the extractor is run again because the payload changed (an erasure scrubbed it) while
# it was running, before the job is failed (submitting the range again retries it).
_MAX_RERUNS = 3


def _ours(job: ExtractionJob, claim: str) -> bool:
    return job.status == ExtractionStatus.RUNNING and job.claim == claim


def _lock(job_id: int) -> ExtractionJob | None:
    return (
        ExtractionJob.objects.select_for_update(of=("self",))
        .select_related("namespace")
        .filter(pk=job_id)
        .first()
    )


def _finish(job: ExtractionJob, *, result: dict[str, Any], extractor: str | None = None) -> ExtractionJob:
    """Done: the transcript payload has served its purpose and is personal data, so it goes."""
    job.status, job.error, job.result, job.messages = ExtractionStatus.DONE, "", result, []
    job.claim, job.claimed_until, job.finished_at = "", None, timezone.now()
    fields = ["status", "error", "result", "messages", "attempts", "claim", "claimed_until", "finished_at"]
    if extractor is not None:
        job.extractor = extractor
        fields.append("extractor")
    job.save(update_fields=fields)
    announce_job(job)
    return job


def _give_up(job: ExtractionJob, error: str) -> ExtractionJob:
    """Failed for good (until retried): the payload is kept for `extraction_retry`."""
    job.status, job.error, job.result = ExtractionStatus.FAILED, error, {}
    job.claim, job.claimed_until, job.finished_at = "", None, timezone.now()
    job.save(update_fields=["status", "error", "result", "attempts", "claim", "claimed_until", "finished_at"])
    announce_job(job)
    return job


def _claim(job_id: int) -> tuple[ExtractionJob | None, str | None]:
    """Take the job for this run, in a short transaction: (job, claim), or (job, None) when there
    is nothing for this run to do (gone, done, paused, or a live run holds it)."""
    now = timezone.now()
    me = this_run()
    with transaction.atomic():
        job = (
            ExtractionJob.objects.select_for_update(of=("self",), skip_locked=True)
            .select_related("namespace")
            .filter(pk=job_id)
            .first()
        )
        if job is None:  # erased, or another worker holds the row this instant
            return ExtractionJob.objects.filter(pk=job_id).first(), None
        if job.status == ExtractionStatus.DONE:
            return job, None
        if job.status == ExtractionStatus.RUNNING:
            if not holder_gone(job.claim, job.claimed_until, now=now, me=me):
                return job, None
            if job.attempts >= MAX_ATTEMPTS:  # every run so far died (killed, or past the timeout)
                return _give_up(job, died_error(job.attempts)), None
        job.attempts += 1
        if job.namespace.memory_paused:
            # Paused after the job was queued: the conversation must not be written into memory.
            return _finish(job, result={**_empty_result(), "skipped": "paused"}), None
        claim = me.encode()
        job.status, job.error, job.result, job.finished_at = ExtractionStatus.RUNNING, "", {}, None
        job.claim, job.claimed_until = claim, claim_until(now)
        job.save(
            update_fields=["status", "error", "result", "attempts", "claim", "claimed_until", "finished_at"]
        )
    return job, claim


def died_error(attempts: int) -> str:
    seconds = int(task_timeout().total_seconds())
    return (
        f"Extraction gave up after {attempts} attempts: the worker running it stopped each time "
        f"(killed, or past the {seconds} s task timeout). Retry it to run it again."
    )


def _fail(
    job_id: int, claim: str, *, extractor: str, error: str, retry: bool = False
) -> ExtractionJob | None:
    """Mark a claimed job failed (its payload kept for a retry); untouched if no longer ours."""
    with transaction.atomic():
        job = _lock(job_id)
        if job is None or not _ours(job, claim):
            return job
        job.status, job.error, job.result, job.extractor = ExtractionStatus.FAILED, error, {}, extractor
        job.claim, job.claimed_until, job.finished_at = "", None, timezone.now()
        job.save(
            update_fields=["status", "error", "result", "extractor", "claim", "claimed_until", "finished_at"]
        )
        announce_job(job, will_retry=retry and job.attempts < MAX_ATTEMPTS)
    return job


def extraction_retry(*, job: ExtractionJob) -> ExtractionJob:
    """Run a failed job again, with its attempts counted afresh; `MemoryServiceError` (409) for a
    job that is not failed (queued, running and done ones need no retry)."""
    with transaction.atomic():
        current = _lock(job.pk)
        if current is None or current.status != ExtractionStatus.FAILED:
            raise Conflict("Only a failed extraction can be retried.")
        if not current.messages:
            raise Conflict("Nothing is left to extract from: submit the transcript again.")
        current.status, current.error, current.finished_at = ExtractionStatus.QUEUED, "", None
        current.attempts = 0
        current.save(update_fields=["status", "error", "attempts", "finished_at"])
        _queue(current.pk)
    return current


def lost_error(attempts: int) -> str:
    return (
        f"Extraction gave up after {attempts} attempts: its queued task was lost (a broker that lost "
        "its data), and earlier runs, if any, stopped. Retry it to run it again."
    )


def extraction_reap(*, now: datetime, limit: int = 200) -> tuple[int, int]:
    """(re-queued, failed): jobs left `running` by a run that is gone (`memory_core.leases`), and
    jobs left `queued` whose task the broker lost (`leases.lost_jobs`), go back to the queue,
    counting an attempt, or are failed once MAX_ATTEMPTS attempts have died or been lost."""
    requeued = failed = 0
    with transaction.atomic():
        queued = ExtractionJob.objects.filter(status=ExtractionStatus.QUEUED)
        for job in lost_jobs(queued, task=_TASK, now=now, limit=limit):
            job.attempts += 1
            if job.attempts >= MAX_ATTEMPTS:
                _give_up(job, lost_error(job.attempts))
                failed += 1
                continue
            job.error = f"The task of attempt {job.attempts} was lost before it ran; queued again."
            job.save(update_fields=["attempts", "error"])
            _queue(job.pk)
            requeued += 1
        running = ExtractionJob.objects.select_for_update(skip_locked=True).filter(
            status=ExtractionStatus.RUNNING
        )
        for job in running.order_by("pk")[:limit]:
            if not holder_gone(job.claim, job.claimed_until, now=now):
                continue
            if job.attempts >= MAX_ATTEMPTS:
                _give_up(job, died_error(job.attempts))
                failed += 1
                continue
            job.status, job.claim, job.claimed_until = ExtractionStatus.QUEUED, "", None
            job.error = f"The worker running attempt {job.attempts} stopped; queued again."
            job.save(update_fields=["status", "claim", "claimed_until", "error"])
            _queue(job.pk)
            requeued += 1
    return requeued, failed


_TASK = "memory_core.tasks.extract_job"


def _queue(job_id: int) -> None:
    # Failures are not acknowledged, so the broker hands the task out again (after
    # Q_CLUSTER["retry"] seconds, at most Q_CLUSTER["max_attempts"] times).
    ExtractionJob.objects.filter(pk=job_id).update(queued_at=timezone.now())  # the reaper's clock
    enqueue(_TASK, job_id, group="extraction", q_options={"ack_failure": False})


def _failure_text(exc: BaseException, *, extractor: str, attempt: int, job_id: int) -> str:
    """What the job says about a failed run. The message of an arbitrary exception may quote the
    transcript, so only its type goes into the job; the details go to the log."""
    prefix = f"Extraction with {extractor} failed (attempt {attempt}):"
    if isinstance(exc, LLMError):
        return f"{prefix} {exc.message}"
    if isinstance(exc, TimeoutException):  # django-q2 stops a run past its timeout with this
        return f"{prefix} it ran past the {int(task_timeout().total_seconds())} s task timeout."
    logger.exception("extraction job %s failed unexpectedly", job_id)
    return f"{prefix} unexpected {type(exc).__name__}; the details are in the server log."


def extraction_run(*, job_id: int) -> ExtractionJob | None:
    """Extract and reconcile one job; `None` if the job no longer exists (erased with its user or
    its conversation).

    Three steps, so no lock is held while the model answers (an erasure would wait on it):
    1. claim the job in a short transaction (running, one more attempt); a run that cannot claim
       it (a live run holds it, or it is done) returns it as it is. A claim whose holder is gone
       (`memory_core.leases`: killed cluster, redelivered task, past the timeout) is taken over,
       unless MAX_ATTEMPTS runs have already died on it: then the job is failed with the reason;
    2. run the extractor with no transaction open;
    3. in one transaction, re-read the job under its lock: erased meanwhile → nothing is written;
       payload scrubbed by an erasure meanwhile → the extractor runs again on what is left; else
       the candidates are written through `memory_add` (a failure leaves nothing half-written)
       and the job is done, its transcript payload dropped (the result stays).
    On an `LLMError`, or any unexpected error, the job is marked failed with the reason, and the
    error is re-raised while the job has run fewer than `MAX_ATTEMPTS` times, so django-q runs the
    task again (bounded as well by Q_CLUSTER["max_attempts"]); after that the task ends normally
    and the job stays failed until it is retried (`extraction_retry`) or submitted again. A run
    past the task timeout is failed alike; a run that dies outright is found by the next run of
    its task or by the reaper (`memory_core.reaper`).
    """
    job, claim = _claim(job_id)
    if job is None or claim is None:
        return job
    messages = list(job.messages)
    extractor: Extractor = get_extractor()
    try:
        for _ in range(_MAX_RERUNS + 1):
            try:
                candidates = extractor.extract(messages)
            except OfflineMode:
                extractor = RuleBasedExtractor()
                candidates = extractor.extract(messages)
            with transaction.atomic():
                current = _lock(job_id)
                if current is None or not _ours(current, claim):
                    return current  # erased, or finished by an erasure or another worker
                if current.namespace.memory_paused:
                    return _finish(current, result={**_empty_result(), "skipped": "paused"})
                if current.messages != messages:
                    messages = list(current.messages)  # scrubbed meanwhile: extract from what is left
                    continue
                return _finish(
                    current,
                    result=_write_candidates(current, extractor, candidates),
                    extractor=extractor.name,
                )
        failed = _fail(
            job_id,
            claim,
            extractor=extractor.name,
            error=f"Extraction with {extractor.name} gave up (attempt {job.attempts}): the conversation "
            "kept changing while it ran. Submit it again.",
        )
        return failed
    except (Exception, TimeoutException) as exc:
        failure: BaseException = exc
        error = _failure_text(exc, extractor=extractor.name, attempt=job.attempts, job_id=job_id)
    failed = _fail(job_id, claim, extractor=extractor.name, error=error, retry=True)
    if failed is not None and failed.status == ExtractionStatus.FAILED and failed.attempts < MAX_ATTEMPTS:
        raise failure
    return failed
