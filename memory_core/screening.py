"""Steps 2 and 3 of the write pipeline (`pipeline.write`), before anything is embedded or stored:
guard (pause, tombstones, secrets) and classify (key slot, rules, safety) one statement; and the
flags operators review (a secret dropped, a rule that would relax a control)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from config.tuning import tuned
from memory_core import judgement
from memory_core.carers import addressed_to_a_carer, an_address, names_a_carer_after
from memory_core.choices import ALWAYS_RECALL_CATEGORIES, AddAction
from memory_core.errors import Conflict
from memory_core.extraction.slots import infer_slot, safety_frames, states_safety
from memory_core.guards.policy import answer_style
from memory_core.guards.secrets import REDACTED, contains_values, redact_values
from memory_core.judgement.clauses import CLAUSE_END
from memory_core.models import (
    ActorKind,
    EventAction,
    FlaggedWrite,
    FlagKind,
    MemoryEntry,
    MemoryType,
    Namespace,
    SourceKind,
    Tombstone,
)
from memory_core.outcomes import AddOutcome
from memory_core.people_known import (
    DEPENDANT,
    OTHER,
    PeopleKnown,
)
from memory_core.reading.records import a_record_note
from memory_core.sameness import speaker
from memory_core.services import event_record
from memory_core.tombstones import blocking_tombstone, mined_too_early
from memory_core.whose_condition import after_an_address, named_by_slot, someone_elses
from memory_core.whose_known import kin_at_home, known_person, only_an_introduction, only_care
from memory_core.write_request import WriteRequest

EXTRACTION_MIN_CONFIDENCE = 0.6  # less sure candidates are dropped: a wrong memory costs more than none
EXCERPT_MAX_CHARS = 500
PAUSED_MESSAGE = "Memory is paused for this user: nothing is stored or recalled until it is resumed."


class MemoryPaused(Conflict):
    """The user paused memory: nothing is learned (or recalled) until they resume it."""

    code = "memory_paused"


def screen(
    namespace: Namespace,
    request: WriteRequest,
    tombstones: list[Tombstone],
    people: PeopleKnown | None = None,
) -> tuple[AddOutcome | None, WriteRequest]:
    """Steps 2 and 3 for a normalised statement: (the outcome that ends its way in, or None; the
    request as it goes on — redacted, classified). `tombstones` from `namespace_with_tombstones`;
    `people`, the namespace's people as one write reads them once (a new reader when not given)."""
    ignored = guard_tombstones(namespace, request, tombstones)
    if ignored is not None:
        return ignored, request
    request, secret_outcome = guard_secrets(namespace, request)
    if secret_outcome is not None:
        return secret_outcome, request
    if request.source_kind == SourceKind.EXTRACTED and request.confidence < _min_confidence():
        reason = f"confidence {request.confidence:.2f} below the threshold"
        return AddOutcome(AddAction.IGNORED, None, reason=reason), request
    return None, classify(request, people=people or PeopleKnown(namespace.pk))


# --- 2. guard ------------------------------------------------------------------------------------


def guard_pause(namespace: Namespace) -> None:
    if namespace.memory_paused:
        raise MemoryPaused(PAUSED_MESSAGE)


def guard_tombstones(
    namespace: Namespace, request: WriteRequest, candidates: list[Tombstone] | None = None
) -> AddOutcome | None:
    """What the user took back (or an operator rejected) is not learned again from the past.
    `candidates`: the tombstones read with the namespace (`tombstones.namespace_with_tombstones`)."""
    said_at = request.said_at
    if request.source_kind == SourceKind.EXTRACTED and mined_too_early(namespace, said_at):
        return AddOutcome(AddAction.IGNORED, None, reason="said before the user erased their memory")
    tombstone = blocking_tombstone(
        namespace=namespace,
        content=request.content,
        key=request.key,
        source_kind=request.source_kind,
        conversation=request.source_conversation,
        message_ids=list(request.source_message_ids),
        said_at=said_at,
        candidates=candidates,
    )
    if tombstone is None:
        return None
    return AddOutcome(AddAction.IGNORED, None, reason=f"taken back before ({tombstone.get_reason_display()})")


def secret_values(*texts: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(kinds, values) of the secrets in any of `texts`."""
    kinds: list[str] = []
    values: list[str] = []
    for text in texts:
        if text:
            scan = judgement.secrets(text)
            kinds += scan.kinds
            values += scan.values
    return tuple(dict.fromkeys(kinds)), tuple(dict.fromkeys(values))


def scrub(text: str, values: tuple[str, ...]) -> str:
    """A derived text (excerpt, title, reason) with every secret removed: its own and known ones."""
    return redact_values(judgement.secrets(text).redacted, values) if text else text


def scrub_metadata(value: Any, values: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return scrub(value, values)
    if isinstance(value, dict):
        return {k: scrub_metadata(v, values) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_metadata(v, values) for v in value]
    return value


def guard_secrets(namespace: Namespace, request: WriteRequest) -> tuple[WriteRequest, AddOutcome | None]:
    """Refuse a statement that holds a secret — its own, or one of its source's (a rewrite may
    have moved the digits away from the word "code") — and redact every derived text."""
    kinds, values = secret_values(request.raw_text, request.excerpt)
    own = judgement.secrets(_judged(request))
    # A statement holding a redaction mark was built from a secret (a redacted job payload).
    if own.found or REDACTED in request.content or contains_values(request.content, values):
        kinds = tuple(dict.fromkeys((*own.kinds, *kinds))) or ("a secret from its source",)
        FlaggedWrite.objects.create(
            namespace=namespace,
            kind=FlagKind.SECRET_DROPPED,
            excerpt=scrub(request.content, (*values, *own.values))[:EXCERPT_MAX_CHARS],
            source_kind=request.source_kind,
            source_conversation=request.source_conversation,
            source_message_ids=list(request.source_message_ids),
        )
        return request, AddOutcome(
            AddAction.REJECTED, None, reason=f"contains a secret ({', '.join(kinds)})", flagged=True
        )
    return (
        replace(
            request,
            excerpt=scrub(request.excerpt, values)[:EXCERPT_MAX_CHARS],
            context=scrub(request.context, values),
            metadata=scrub_metadata(request.metadata, values),
            raw_text="",  # used; never stored
        ),
        None,
    )


def _min_confidence() -> float:
    return float(tuned("EXTRACTION_MIN_CONFIDENCE", EXTRACTION_MIN_CONFIDENCE))


# --- 3. classify ---------------------------------------------------------------------------------


def _judged(request: WriteRequest) -> str:
    """The text the models judge: the user's own words where our reader restated them whole in
    the third person ("The user's son is dyspraxic" reads to models that learned from what people
    say as someone else's), else the statement."""
    return request.said or request.content


def classify(request: WriteRequest, *, people: PeopleKnown | None = None) -> WriteRequest:
    """Infer the key slot when none was given; turn rules into procedural candidates; pin the
    safety facts of the user and their dependants, and nothing else (`judgement.safety`, and
    `people`: who the people the statement names are to the user, where the graph knows)."""
    if request.source_kind != SourceKind.OPERATOR:
        check = judgement.policy(_judged(request), type=request.type)
        if check.is_rule:
            # A rule, whatever the caller called it: it waits for an operator like any procedure.
            return replace(
                request,
                type=MemoryType.PROCEDURAL,
                category="sop" if request.type != MemoryType.PROCEDURAL else request.category,
                # A procedure proposed with its SOP key keeps it; a fact's slot is not a rule's.
                key=request.key if request.type == MemoryType.PROCEDURAL else "",
                pinned=False,
                importance=min(request.importance, UNTRUSTED_IMPORTANCE)
                if request.source_kind == SourceKind.EXTRACTED
                else request.importance,
                flag_reason=(check.reason or "would weaken a policy") if check.weakens else "",
            )
    if request.type == MemoryType.PROCEDURAL:
        return request
    request = _trusted_safety(request)
    if request.key:
        return request
    if request.category in ("", "general") and answer_style(request.content):
        # "keep your replies to me short": a preference the chat applies to every turn (chat/style.py)
        request = replace(request, category="preference")
    slot = infer_slot(request.content)
    text = _judged(request)
    whose = judgement.safety(text)
    judged = whose.who != judgement.UNJUDGED
    known = known_person(people, text, whose) if judged else None
    safety_pinned = _pinned_whole(text, whose, known=known) if judged else states_safety(text)
    if slot is not None and known in (DEPENDANT, OTHER) and slot.pinned:
        # The reader took "Noah has asthma" for the user's own health slot; Noah is their friend
        # (or their son): a named person's condition fills no slot of the user's own.
        slot = None
    if slot is not None and not slot.pinned and safety_pinned:
        # "我爸去年中风了…一直住我这儿": the reader's slot is where the father lives, and the statement
        # is a dependant's condition too. Kept in the slot, the next "he moved" would retire the
        # condition with the address: the safety fact stands alone, pinned.
        slot = None
    if slot is None:
        if not request.pinned and safety_pinned:
            # A safety fact of the user or a dependant, with no one slot: always recalled.
            return _pinned_as_safety(request)
        return request
    who = speaker(request.metadata)
    # The reader's slot says "a health fact"; the model says whose: a parent's condition or a
    # dislike is not pinned as the user's own safety.
    pinned = slot.pinned and safety_pinned
    return replace(
        request,
        # Two speakers of one imported conversation each have their own "home_city".
        key=f"{slot.key}@{who}" if who else slot.key,
        category=slot.category if request.category in ("", "general") else request.category,
        pinned=request.pinned or pinned,
        importance=max(request.importance, slot.importance) if pinned else request.importance,
    )


# The word that makes a trailing clause a reason ("…, because I'm deaf in my left ear"): a fact
# stated after its instruction is kept without it.
_REASON_WORD = re.compile(
    r"^(?:(?:because|since|as|cause|cos|cuz|coz|bc)\s+|(?:因为|因為|由于|由於|毕竟|畢竟))", re.I
)


# A fact the write path derives stands on a clear reading: the safety model at least this sure that
# the leading clauses are the user's or a dependant's condition ("我兒子暑假在果園幫忙" alone, 0.38,
# is not; with ",他有蠶豆症", 0.94, it is). Pinning a whole statement needs less (its threshold).
FACT_WITHIN_RULE_SURE = 0.5


def fact_within_rule(
    said: WriteRequest, screened: WriteRequest, *, people: PeopleKnown | None = None
) -> WriteRequest | None:
    """The safety fact a held rule states first, as a fact of its own: a rule built on the user's
    or a dependant's condition waits for an operator, and the condition must not wait with it
    (an assistant that does not know a child's allergy until an operator reads the rule). The
    shortest run of clauses, leading or else trailing, that is a safety fact of the user or a
    dependant and no rule (the condition, not the instructions around it), classified like any
    fact; None when the statement is no such rule. A rule that relaxes a control waits whole and
    flagged, but the condition it rests on is as true as under any other rule ("My daughter's
    EpiPens — no need to wait for my yes to reorder them"): the clause kept must itself be no rule,
    so no relaxation is kept with it."""
    # Whoever called it a procedure (a client, an extractor's reading): the condition is a fact.
    held = screened.type == MemoryType.PROCEDURAL
    if not held or said.source_kind == SourceKind.OPERATOR:
        return None
    content = said.content
    whole = judgement.safety(content)
    # The rule's own subject decides whose condition it rests on (a carer's rule around a named
    # child reads to the model as much someone's as the user's): the odds are not weighed here.
    in_care = _told_to_a_carer(content, whole)
    known = known_person(people, content, whole)
    if known == OTHER or not (in_care or _pinned_safety(content, whole, weigh_odds=False, known=known)):
        return None  # a rule around a colleague's or a friend's condition gives no fact of the user's
    for part in _clause_runs(content):
        if not _states_alone(after_an_address(part)) or judgement.policy(part).is_rule:
            continue  # too short to state a condition once its address is set aside ("老公你记得")
        whose = judgement.safety(part)
        own = whose.probability >= FACT_WITHIN_RULE_SURE and _pinned_safety(
            part, whose, known=known_person(people, part, whose) or known
        )
        # Whose condition a clause states may need the rule around it: "Kojo has sickle cell" alone
        # is anyone's; ", so with any pain crisis we go straight to A&E" makes Kojo the user's
        # child. A clause the model reads as someone's condition takes the whole rule's subject.
        placed = (
            (whole.pinned or in_care or known == DEPENDANT)
            and whose.anyone >= FACT_WITHIN_RULE_SURE
            and not safety_frames(part)[1]
        )
        if own or placed:
            kept = _unlinked(_unaddressed(part))
            fact = replace(said, content=kept, type=MemoryType.SEMANTIC, key="", category="general")
            fact = replace(fact, pinned=False, embedding=None, turn=False, context="")
            fact = classify(fact, people=people)
            # Read whole (with its linking word) as the condition: pinned, whatever the part alone reads.
            return fact if fact.pinned else _pinned_as_safety(fact)
    return None


def _told_to_a_carer(content: str, whole: judgement.Safety) -> bool:
    """Whether a rule around someone's condition is told to whoever looks after them for the user
    (`carers`: addressed before it, or named after it), and the rule not about a partner,
    colleague or friend of the user's ("Our coach Dave has epilepsy, so…" is the club's)."""
    if whole.anyone < FACT_WITHIN_RULE_SURE or someone_elses(content):
        return False
    return addressed_to_a_carer(content) or names_a_carer_after(content)


# A safety fact is recalled at this importance at least (here and when `people_reread` pins one).
SAFETY_IMPORTANCE = 0.9


def safety_category(category: str) -> str:
    """The category of an entry pinned as a safety fact: "safety" unless the writer gave its own."""
    return "safety" if category in ("", "general") else category


def _pinned_as_safety(request: WriteRequest) -> WriteRequest:
    """A statement pinned as a safety fact of the user or a dependant: always recalled."""
    importance = max(request.importance, SAFETY_IMPORTANCE)
    return replace(request, pinned=True, category=safety_category(request.category), importance=importance)


def _clause_runs(content: str) -> list[str]:
    """The runs of clauses a condition may be stated in, shortest first: leading runs (the condition
    before its instruction), then trailing ones (after it: "Never seat me on the left, I'm deaf
    in that ear"; "…, because I'm diabetic", kept without "because"), then the runs between (an
    address before it and the instruction after: "To whoever does the rota: I'm on
    immunosuppressants after my transplant, so never give me the shingles queries")."""
    cuts = [m for m in CLAUSE_END.finditer(content) if 0 < m.start() < len(content) - 1]
    leading = [content[: m.start()].rstrip(_CLAUSE_TRIM) for m in cuts]
    trailing = [_REASON_WORD.sub("", content[m.end() :].strip()).strip() for m in reversed(cuts)]
    between = sorted(
        (
            _REASON_WORD.sub("", content[a.end() : b.start()].strip(_CLAUSE_TRIM)).strip()
            for i, a in enumerate(cuts)
            for b in cuts[i + 1 : i + 1 + LONGEST_RUN_BETWEEN]
        ),
        key=len,
    )
    return [part for part in dict.fromkeys(leading + trailing + between) if part]


_CLAUSE_TRIM = " ,;:\uff0c\u3001\uff1b\uff1a"
# A condition between an address and its instruction is a clause or a few, not most of a long rule:
# the runs between are at most this many clauses, so a rule of many clauses costs a few readings
# per clause, not one per pair.
LONGEST_RUN_BETWEEN = 3
# The word a run between two cuts may end on, which links it to the instruction after it ("我阿爸有
# 柏金遜, 所以"): the run is read with it (the model reads a condition given as a reason surer) and
# kept without it.
_TRAILING_LINK = re.compile(
    r"[\s,;:\uff0c\u3001\uff1b\uff1a]*(?:\b(?:so|and|then)|所以|因此|然后|然後)$", re.I
)


# A leading clause the safety model reads as no condition of the user's or a dependant's, and as no
# one's it is sure of, is the rule's address or frame ("姐姐, 提醒你: ...", "老公你记得, ...",
# "From today,"), not the condition: the fact kept starts after it.
LEAD_READ_AS_NONE = 0.05
# A leading clause that is only whom the rule is told to and a word asking for their attention
# ("媽媽注意", "阿姨请留意", "Mum, note", "heads up") holds no condition, however the model
# reads its few words (the models retrained with batch 56 read "媽媽注意" as 0.08 someone's).
_ATTENTION_LEAD = re.compile(
    r"(?i)^\W*(?:[\w\s'.]{0,16}?[,\s]\s*)?(?:please\s+)?(?:note|take\s+note|heads\s+up|fyi|listen(?:\s+up)?|attention)\W*$"
    r"|^\W*[^\s\d我有要是对對过過得患]{0,6}?(?:请|請|麻烦|麻煩|唔該)?(?:注意|留意|知悉|听好|聽好|听着|聽著|看过来|睇下|须知|須知)\W*$"
)


def _unaddressed(part: str) -> str:
    """`part` without the leading clauses that tell no condition: the fact kept is the condition."""
    while True:
        cut = next((m for m in CLAUSE_END.finditer(part) if 0 < m.start() < len(part) - 1), None)
        if cut is None:
            return part
        lead, rest = part[: cut.start()].strip(_CLAUSE_TRIM), part[cut.end() :].strip(_CLAUSE_TRIM)
        if not rest:
            return part
        read = judgement.safety(lead)
        told = not (_ATTENTION_LEAD.match(lead) or an_address(lead)) and (
            read.probability >= LEAD_READ_AS_NONE or read.anyone >= FACT_WITHIN_RULE_SURE
        )
        if told and _states_alone(after_an_address(lead)):
            return part
        part = rest


def _unlinked(part: str) -> str:
    """`part` without the linking word it ends on, if any."""
    return _TRAILING_LINK.sub("", part) or part


def _states_alone(text: str) -> bool:
    """Long enough to state a condition: two words ("I'm diabetic"), or four Chinese characters
    ("我有癫痫"), a name or a word in Latin letters among them counting as one ("Aisyah有哮喘")."""
    han = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return han + len(_LATIN_RUN.findall(text)) >= 4 or len(text.split()) >= 2


_LATIN_RUN = re.compile(r"[A-Za-z0-9]+")


def _pinned_whole(text: str, whose: judgement.Safety, *, known: str | None) -> bool:
    """`_pinned_safety` for a statement read whole, less an introduction of the user's kin that
    tells no condition (`whose_known`)."""
    pinned = _pinned_safety(text, whose, known=known)
    if not pinned or known is not None or whose.who != DEPENDANT:
        return pinned
    return not (only_an_introduction(text) or only_care(text))


def pinned_as_known(content: str, people: PeopleKnown) -> tuple[bool, bool] | None:
    """For a statement stored before the people it names were known (`people_reread`): whether the
    judgement alone pins it, and whether it pins it with them known; None when the graph does not
    settle it (`known_person`)."""
    if people.whose(content) is None:
        return None  # the graph settles nothing: no need of the model (a query's worth, not a pass)
    whose = judgement.safety(content)
    if whose.who == judgement.UNJUDGED:
        return None
    known = known_person(people, content, whose)
    if known is None:
        return None
    return _pinned_safety(content, whose), _pinned_safety(content, whose, known=known)


def _pinned_safety(
    content: str, whose: judgement.Safety, *, weigh_odds: bool = True, known: str | None = None
) -> bool:
    """Whether a statement is a safety fact of the user or a dependant: the model's answer, beside
    the reader's precise health frames. A denial or an ended condition it reads ("我对海鲜不过敏")
    is not pinned; a health fact it reads as the user's own ("我对 peanut 过敏", code-switched,
    which the model may not know) is, unless the model says it is someone else's. Someone's
    condition the model reads, told of a person the user has named before, is theirs as the
    graph knows them (`known`, `people_known`): the user's child's is pinned, a colleague's is not."""
    own, denied = safety_frames(content)
    if denied:
        return False
    if known is not None:
        # Before the reader's frames, which read "Noah has asthma" as a health fact whoever Noah is.
        return known == DEPENDANT
    if kin_at_home(content, whose):
        return True  # a sibling, an aunt or an in-law who lives with the user: of their household
    if own and whose.who != "other" and not a_record_note(content) and not named_by_slot(content):
        # A condition said without a subject is the speaker's, unless it is a record's or of a pupil
        # or a patient the statement opens with ("Bed 6's baby has reflux and is on omeprazole").
        return True
    # The model pins on slight odds (a dependant's condition must not be missed): a condition it
    # finds twice as likely someone else's, or told of a partner, friend or colleague the
    # statement opens with ("My hiking buddy got alpha-gal…"), is theirs.
    others = weigh_odds and whose.other > OTHERS_ODDS * whose.probability
    return whose.pinned and not (others or someone_elses(content))


OTHERS_ODDS = 2.0
# A model's output gets no trust of its own: it cannot make a statement pinned, important or a
# safety fact unless the safety decision holds on the text. (A developer's explicit pin stands.)
UNTRUSTED_IMPORTANCE = 0.8


def _trusted_safety(request: WriteRequest) -> WriteRequest:
    """An extraction model's pinned flag, high importance or safety category stand only when the
    text is a safety fact of the user or a dependant."""
    if request.source_kind != SourceKind.EXTRACTED:
        return request
    claims = request.pinned or request.category == "safety" or request.importance > UNTRUSTED_IMPORTANCE
    text = _judged(request)
    whose = judgement.safety(text)
    if not claims or whose.who == judgement.UNJUDGED or _pinned_safety(text, whose):
        return request
    return replace(
        request,
        pinned=False,
        category="general" if request.category == "safety" else request.category,
        importance=min(request.importance, UNTRUSTED_IMPORTANCE),
    )


# --- the user's say on "always recalled" ---------------------------------------------------------

# What the user chose for an entry (`lifecycle.memory_always_recall`), in its metadata under this
# key: True "always recall it", False "don't". The judgement above pins on its own reading; the
# user's choice wins over it wherever the same fact comes back (`as_the_user_chose`).
ALWAYS_RECALL_CHOICE = "always_recall"
# Not always recalled, a memory keeps at most the importance an unverified safety claim keeps: at
# 0.9 and above only safety facts stand, and recall ranks by importance too; below it, it ranks
# as an ordinary fact the user said, which the forgetting job still leaves alone (it takes ≤ 0.3).
NOT_ALWAYS_IMPORTANCE = UNTRUSTED_IMPORTANCE


def always_recall_choice(metadata: Any) -> bool | None:
    """The user's choice recorded in an entry's metadata, or None when they made none."""
    value = metadata.get(ALWAYS_RECALL_CHOICE) if isinstance(metadata, dict) else None
    return value if isinstance(value, bool) else None


def not_always_category(category: str) -> str:
    """The category of an entry no longer always recalled: an always-recall one becomes "general"."""
    return "general" if category in ALWAYS_RECALL_CATEGORIES else category


def as_the_user_chose(request: WriteRequest, choice: bool | None) -> WriteRequest:
    """`request` as the user's choice on the entry it merges into or replaces has it (None: as it
    is): not pinned, out of the always-recalled categories and importance capped when they said
    "don't always recall"; pinned when they said "always". The new version carries the choice."""
    if choice is None:
        return request
    metadata = {**(request.metadata or {}), ALWAYS_RECALL_CHOICE: choice}
    if choice:
        return replace(request, pinned=True, metadata=metadata)
    return replace(
        request,
        pinned=False,
        category=not_always_category(request.category),
        importance=min(request.importance, NOT_ALWAYS_IMPORTANCE),
        metadata=metadata,
    )


# --- the flag a rule that relaxes a control leaves, written with its entry -----------------------


def flag_policy(
    entry: MemoryEntry,
    *,
    reason: str,
    source_kind: str,
    source_conversation: str = "",
    source_message_ids: tuple[str, ...] = (),
) -> None:
    """Operators see a rule that would relax a control: a flag and a history event (no secret can
    be in `entry`: the guard ran first)."""
    FlaggedWrite.objects.create(
        namespace_id=entry.namespace_id,
        kind=FlagKind.POLICY_WEAKENING,
        excerpt=entry.content[:EXCERPT_MAX_CHARS],
        entry=entry,
        source_kind=source_kind,
        source_conversation=source_conversation,
        source_message_ids=list(source_message_ids),
    )
    event_record(
        entry=entry,
        action=EventAction.FLAGGED,
        actor_kind=ActorKind.SYSTEM,
        reason=f"This rule {reason}; an operator must review it.",
    )
