"""The write pipeline: every way a statement gets into memory passes through `memory_add`.

REST single and batch adds, mem0 adds (infer true and false), chat's "remember that …",
extraction jobs, the privacy page's "remember this" and imports all call it; corrections and
operator edits use its guards. Its steps, in order (2 and 3 in `screening`, 4 and 5 in
`reconciliation`):

1. normalise — strip NULs and spacing, check the fields (`services.validate_fields`);
2. guard     — pause (`MemoryPaused`, nothing stored); tombstones and the erase-all watermark
               (what the user took back is not learned again: IGNORED); secrets in the
               statement, its raw source text or anything derived (REJECTED, flagged redacted);
               the evidence excerpt and metadata are stored redacted;
3. classify  — a key slot inferred when the caller gave none (so "works at Fabrikam"
               supersedes "works at Contoso" from any entry point); a statement that reads as
               a rule or instruction from anyone but an operator becomes a procedural candidate
               (`pending_review`), flagged with the reason when it relaxes a control;
4. reconcile — under the namespace lock: ADD, MERGE into the same statement (`sameness`),
               SUPERSEDE the current value of the same slot, or IGNORE (already recorded from
               this source, below the confidence threshold, tombstoned, or a value the user
               corrected away said again without a change);
5. persist   — the entry, its evidence (provenance) and its history, in one transaction.

Cost of one new statement (`write`): one query for the guards (pause, watermark, tombstones), one
model call for its vectors (statement and context, after the guards: a refused statement is never
embedded), then in one transaction the lock (which also reads whether any webhook listens), one
query for the reconciliation candidates, and one statement inserting the entry, its evidence and
its history (`inserts`). With `CONTEXT_VECTOR = "deferred"` (the default) the model call embeds
the statement alone, and the job that embeds the context is asked for by one query after the
commit, unless the lock's query found it asked for already and holds it until the commit
(`memory_core.context_vectors`). The reads are compiled once a shape (`prepared`): the ORM's
statements, without building them again on every add.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, Required, TypedDict

from django.db import transaction
from typing_extensions import Unpack

from memory_core import judgement
from memory_core.actors import Actor
from memory_core.entities.hooks import entities_after_write
from memory_core.models import Namespace
from memory_core.outcomes import AddOutcome
from memory_core.people_known import PeopleKnown
from memory_core.people_reread import reread
from memory_core.reconciliation import lock_for_write, reconcile
from memory_core.screening import ALWAYS_RECALL_CHOICE, fact_within_rule, guard_pause, screen
from memory_core.search_context import clipped
from memory_core.services import entry_vectors, validate_fields
from memory_core.tombstones import namespace_with_tombstones
from memory_core.webhooks.announce import announce_outcomes
from memory_core.write_request import WriteRequest


class WriteFields(TypedDict, total=False):
    """The keyword arguments of `memory_add` and `write_request` (their defaults: `WriteRequest`)."""

    content: Required[str]
    type: str
    category: str
    key: str
    source_kind: str
    source_conversation: str
    source_message_ids: list[str] | None
    confidence: float
    importance: float
    pinned: bool
    is_inference: bool
    valid_from: datetime | None
    valid_to: datetime | None
    expires_at: datetime | None
    metadata: dict[str, Any] | None
    extractor_model: str
    extractor_prompt_version: str
    actor_kind: str
    actor: Actor
    excerpt: str
    raw_text: str
    said: str
    said_at: datetime | None
    # The current embedder's vector of the stripped content, when the caller embedded it already.
    embedding: list[float] | None
    exact: bool
    context: str
    turn: bool


def memory_add(*, namespace: Namespace, **fields: Unpack[WriteFields]) -> AddOutcome:
    """Guard, classify and reconcile one statement into `namespace` (see the module docstring)."""
    return write(namespace=namespace, request=write_request(**fields))


def write_request(**fields: Unpack[WriteFields]) -> WriteRequest:
    """The `WriteRequest` of `memory_add`'s arguments (batch callers build a list of them): the
    dataclass's defaults, with empty values (None, "") read as those defaults."""
    values: dict[str, Any] = {name: value for name, value in fields.items() if value is not None}
    values["category"] = values.get("category") or "general"
    values["source_message_ids"] = tuple(str(m) for m in values.get("source_message_ids") or ())
    # The user's "always recall" choice is set only by `lifecycle.memory_always_recall`, never by a
    # writer's metadata: a client cannot pin, or keep unpinned, what the user did not choose.
    values["metadata"] = {
        k: v for k, v in dict(values.get("metadata") or {}).items() if k != ALWAYS_RECALL_CHOICE
    }
    for name in ("key", "source_conversation", "excerpt", "context", "raw_text", "said"):
        values[name] = values.get(name) or ""
    return WriteRequest(**values)


def write(*, namespace: Namespace, request: WriteRequest) -> AddOutcome:
    """One statement through every step; `pipeline_batch.memory_add_many` is the same for many."""
    request = normalise(request)
    fresh, tombstones = namespace_with_tombstones(
        namespace_id=namespace.pk, contents=[request.content], keys=[request.key], turns=request.turn
    )
    guard_pause(fresh)
    people = PeopleKnown(namespace.pk)  # read once, if a statement needs it
    outcome, screened = screen(fresh, request, tombstones, people)
    if outcome is not None:
        return outcome
    facts = within_rule(fresh, request, screened, tombstones, people)
    [screened] = with_previous_turns([screened], last=fresh.last_turn)  # type: ignore[attr-defined]
    [screened, *facts] = embed([screened, *facts], known=last_turn_vector(fresh))  # before the lock
    with transaction.atomic():
        locked = lock_for_write(namespace.pk)
        guard_pause(locked)  # paused while we embedded: still nothing is stored
        outcome = reconcile(locked, screened)
        also = [reconcile(locked, fact) for fact in facts]
        earlier = entities_after_write(outcomes=[outcome, *also], names_known=locked.names_known)  # type: ignore[attr-defined]
        reread(earlier)  # what was said of someone the user just named, read with them known
        announce_outcomes([outcome, *also], listening=locked.webhooks_listening)  # type: ignore[attr-defined]
    return replace(outcome, also=tuple(also)) if also else outcome


def within_rule(
    namespace: Namespace,
    said: WriteRequest,
    screened: WriteRequest,
    tombstones: list[Any],
    people: PeopleKnown,
) -> list[WriteRequest]:
    """The safety fact a held rule states first, screened as a statement of its own (a tombstone
    or a secret stops it like any other), as a list of none or one."""
    fact = fact_within_rule(said, screened, people=people)
    if fact is None:
        return []
    outcome, kept = screen(namespace, fact, tombstones, people)
    if outcome is not None:
        return []
    # Pinned by this pipeline's own reading of the whole rule, not by an extractor's claim: screened
    # again as a fact, an extracted rule's condition ("Noor has cow's milk protein allergy", alone
    # anyone's) lost the pin the same rule's condition keeps when a client writes it.
    if fact.pinned:
        kept = replace(kept, pinned=True, category=fact.category, importance=fact.importance)
    return [kept]


def with_previous_turns(requests: list[WriteRequest], *, last: str | None) -> list[WriteRequest]:
    """A turn a client adds without context (a conversation stored one turn per call, as mem0's
    clients store chat: `turn`) is read with the turn before it, as an extraction reads a message
    with its neighbour: its context document then carries what it answers ("Yes, two of them!"
    after "Do you have kids?"). `last`: the namespace's previous turn, if recent
    (`tombstones.PREVIOUS_TURN_WINDOW`); within a batch, the turn before. Statements that are not
    turns (a fact added on its own) are read alone: an unrelated neighbour would blur them."""
    done: list[WriteRequest] = []
    previous = last or ""
    for request in requests:
        if request.turn and not request.context and previous:
            request = replace(request, context=previous)
        if request.turn:
            previous = request.content
        done.append(request)
    return done


def last_turn_vector(namespace: Namespace) -> dict[str, list[float]]:
    """The namespace's last turn -> its stored vector, as `namespace_with_tombstones` read them
    (with `CONTEXT_VECTOR` "pooled" or "deferred"), for `embed(known=…)`; empty otherwise."""
    text = getattr(namespace, "last_turn", None)
    vector = getattr(namespace, "last_turn_embedding", None)
    if not text or vector is None:
        return {}
    return {clipped(text): [float(x) for x in vector]}


def embed(requests: list[WriteRequest], *, known: dict[str, list[float]] | None = None) -> list[WriteRequest]:
    """`requests` with their statement and context vectors, in one model call for all of them
    (after `screening.screen`: a refused statement, a secret above all, is never sent to the embedder; the
    judgement's own vectors come from the local model, in this process). A statement the judgement
    already embedded with the store's own model is not embedded again. `known`: context -> vector
    already computed (`last_turn_vector`), for a pooled context vector."""
    given = [r.embedding or judgement.known_vector(r.content) for r in requests]
    vectors = entry_vectors(
        [(r.content, r.context, v) for r, v in zip(requests, given, strict=True)], known=known
    )
    return [
        replace(request, embedding=statement, context_embedding=context)
        for request, (statement, context) in zip(requests, vectors, strict=True)
    ]


# --- 1. normalise --------------------------------------------------------------------------------


def normalise(request: WriteRequest) -> WriteRequest:
    text = validate_fields(
        content=request.content,
        type=request.type,
        source_kind=request.source_kind,
        confidence=request.confidence,
        importance=request.importance,
    )
    return replace(request, content=text)
