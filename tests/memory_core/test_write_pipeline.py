"""The write pipeline's guarantees, for any caller of the engine (a new caller that forgets a check
still gets it): pause, tombstones, secrets in derived texts, slots, "the same statement"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory_core.choices import AddAction
from memory_core.entities.models import EntityMention
from memory_core.errors import Conflict
from memory_core.lifecycle import memory_correct, memory_hide, memory_unhide
from memory_core.models import FlaggedWrite, MemoryEntry, MemoryEvent, MemoryEvidence, MemoryStatus, Tombstone
from memory_core.moderation import procedure_reject
from memory_core.pipeline import memory_add
from memory_core.recall import memory_recall
from memory_core.screening import MemoryPaused
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ns(owner):
    return namespace_for_user(user=owner)


def _extracted(ns, content: str, message: str, *, said_at=None, key: str = "", conversation: str = "c1"):
    return memory_add(
        namespace=ns,
        content=content,
        key=key,
        source_kind="extracted",
        source_conversation=conversation,
        source_message_ids=[message],
        confidence=0.9,
        said_at=said_at,
    )


def test_pause_is_enforced_by_the_engine_for_adds_and_recall(ns, owner):
    memory_add(namespace=ns, content="The user is allergic to peanuts.", pinned=True)
    ns.memory_paused = True
    ns.save(update_fields=["memory_paused"])
    with pytest.raises(MemoryPaused) as raised:
        memory_add(namespace=ns, content="The user lives in Porto.")
    assert isinstance(raised.value, Conflict) and raised.value.status_code == 409
    assert not MemoryEntry.objects.filter(content__icontains="Porto").exists()
    assert memory_recall(actor=owner, query="what can I eat?").items == []
    assert memory_recall(namespaces=[ns], query="peanuts").items == []


def test_a_stale_namespace_object_does_not_get_past_the_pause(ns):
    stale = namespace_for_user(user=ns.owner)
    type(ns).objects.filter(pk=ns.pk).update(memory_paused=True)
    with pytest.raises(MemoryPaused):
        memory_add(namespace=stale, content="The user has two cats.")


def test_a_corrected_statement_is_not_learned_again_from_its_message(ns, owner):
    said = timezone.now() - timedelta(minutes=5)
    first = _extracted(ns, "The user lives in Lisbon.", "m1", said_at=said, key="home_city")
    memory_correct(actor=owner, memory_id=first.entry.pk, content="The user lives in Lyon.")

    again = _extracted(ns, "The user lives in Lisbon.", "m1", said_at=said, key="home_city")
    reworded = _extracted(ns, "The user's home is in Lisbon.", "m1", said_at=said, key="home_city")
    older = _extracted(
        ns, "The user lives in Lisbon.", "m0", said_at=said - timedelta(hours=1), key="home_city"
    )

    assert [again.action, reworded.action, older.action] == [AddAction.IGNORED] * 3
    assert list(MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).values_list("content", flat=True)) == [
        "The user lives in Lyon."
    ]
    # The tombstone holds no content: hashes and message references only.
    tombstone = Tombstone.objects.get()
    assert "Lisbon" not in repr(tombstone.__dict__) and tombstone.message_refs == ["c1:m1"]


def test_a_corrected_value_said_again_stays_corrected_until_it_says_it_changed(ns, owner):
    """Issue 28 item 6 (docs/trust.md): said again in a new message without a change, a value the
    user corrected away does not undo the correction; a statement that says it changed does."""
    first = _extracted(ns, "The user lives in Lisbon.", "m1", said_at=timezone.now() - timedelta(hours=1))
    memory_correct(actor=owner, memory_id=first.entry.pk, content="The user lives in Lyon.")
    later = _extracted(ns, "The user lives in Lisbon.", "m9", said_at=timezone.now() + timedelta(seconds=1))
    assert later.action == AddAction.IGNORED and "corrected" in later.reason
    soon = timezone.now() + timedelta(seconds=2)
    moved = _extracted(ns, "The user moved back to Lisbon.", "m12", said_at=soon)
    assert moved.action == AddAction.SUPERSEDED


def test_a_hidden_statement_stays_hidden_when_extracted_again(ns, owner):
    said = timezone.now() - timedelta(minutes=1)
    entry = _extracted(ns, "The user supports FC Porto.", "m1", said_at=said).entry
    memory_hide(actor=owner, memory_id=entry.pk)
    assert _extracted(ns, "The user supports FC Porto.", "m1", said_at=said).action == AddAction.IGNORED
    # Said again in a new message: merged into the hidden entry, which stays hidden.
    again = _extracted(ns, "The user supports FC Porto.", "m7", said_at=timezone.now())
    assert again.action == AddAction.MERGED and again.entry.pk == entry.pk
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.HIDDEN
    assert not MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).exists()
    memory_unhide(actor=owner, memory_id=entry.pk)
    assert not Tombstone.objects.exists()


def test_a_rejected_rule_is_not_queued_again(ns, moderator):
    rule = "From now on, answer every email within one hour."
    pending = _extracted(ns, rule, "m1").entry
    procedure_reject(operator=moderator, memory_id=pending.pk, reason="not ours to decide")
    for conversation in ("c1", "c2"):
        assert _extracted(ns, rule, "m2", conversation=conversation).action == AddAction.IGNORED
    assert MemoryEntry.objects.filter(status=MemoryStatus.PENDING_REVIEW).count() == 0


def test_the_erase_all_watermark_stops_mining_older_messages(ns):
    ns.mine_after = timezone.now()
    ns.save(update_fields=["mine_after"])
    before = _extracted(ns, "The user owns a sailboat.", "m1", said_at=ns.mine_after - timedelta(seconds=1))
    after = _extracted(ns, "The user owns a sailboat.", "m2", said_at=ns.mine_after + timedelta(seconds=1))
    assert (before.action, after.action) == (AddAction.IGNORED, AddAction.ADDED)


@pytest.mark.parametrize(
    ("raw", "derived"),
    [
        ("Remember that my one-time code is 482913", "The user's one-time code is 482913."),
        ("the code they texted me, which expires in ten minutes, is 771204", "The user got 771204 by text."),
        ("记住我的验证码是 583920", "用户的验证码是583920。"),
    ],
)
def test_a_secret_moved_by_a_rewrite_is_still_refused(ns, raw, derived):
    outcome = memory_add(
        namespace=ns, content=derived, raw_text=raw, excerpt=raw, source_kind="user_explicit"
    )
    assert outcome.action == AddAction.REJECTED and outcome.flagged
    digits = "".join(ch for ch in derived if ch.isdigit())
    assert not MemoryEntry.objects.exists()
    assert digits not in FlaggedWrite.objects.get().excerpt


def test_a_harmless_fact_keeps_a_redacted_excerpt(ns):
    raw = "I live in Porto and my wifi password is sunshine42"
    outcome = memory_add(
        namespace=ns,
        content="The user lives in Porto.",
        raw_text=raw,
        excerpt=raw,
        source_kind="user_explicit",
    )
    assert outcome.action == AddAction.ADDED
    excerpt = MemoryEvidence.objects.get(entry=outcome.entry).excerpt
    assert "Porto" in excerpt and "sunshine42" not in excerpt
    assert all("sunshine42" not in str(e.data) for e in MemoryEvent.objects.all())


def test_an_inferred_slot_supersedes_from_a_direct_add(ns):
    old = memory_add(namespace=ns, content="The user works at Contoso.")
    new = memory_add(namespace=ns, content="The user works at Fabrikam.")
    assert new.action == AddAction.SUPERSEDED and new.replaced.pk == old.entry.pk
    assert MemoryEntry.objects.get(pk=old.entry.pk).status == MemoryStatus.SUPERSEDED


def test_two_speakers_each_keep_their_own_slot(ns):
    memory_add(namespace=ns, content="I live in Boston.", metadata={"speaker": "Caroline"}, exact=True)
    other = memory_add(namespace=ns, content="I live in Denver.", metadata={"speaker": "Melanie"}, exact=True)
    assert other.action == AddAction.ADDED
    assert MemoryEntry.objects.filter(status=MemoryStatus.ACTIVE).count() == 2


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("How was the meeting?", "The meeting was really insightful, I learned a lot."),
        (
            "Thanks! Your support means a lot to me.",
            "Thanks. Your support means a lot. I'll keep pushing forward.",
        ),
    ],
)
def test_different_turns_are_not_merged_even_when_their_vectors_are_close(ns, first, second):
    a = memory_add(namespace=ns, content=first, type="episodic")
    b = memory_add(namespace=ns, content=second, type="episodic")
    assert (a.action, b.action) == (AddAction.ADDED, AddAction.ADDED)


def test_an_exact_add_merges_only_the_same_wording_of_the_same_speaker(ns):
    first = memory_add(namespace=ns, content="Nice to meet you!", metadata={"speaker": "A"}, exact=True)
    same = memory_add(namespace=ns, content="nice to meet you", metadata={"speaker": "A"}, exact=True)
    other = memory_add(namespace=ns, content="Nice to meet you!", metadata={"speaker": "B"}, exact=True)
    assert same.action == AddAction.MERGED and same.entry.pk == first.entry.pk
    assert other.action == AddAction.ADDED


def test_a_new_statement_with_its_context_is_stored_in_a_few_queries(ns, django_assert_max_num_queries):
    memory_add(namespace=ns, content="I own a red bicycle")
    with django_assert_max_num_queries(8):  # guards, lock, candidates, 3 INSERTs, savepoint
        outcome = memory_add(
            namespace=ns, content="The piano was tuned in May", context="What happened to the piano?"
        )

    assert outcome.action == AddAction.ADDED
    entry = MemoryEntry.objects.get(pk=outcome.entry.pk)
    assert entry.search_context == "What happened to the piano?"
    assert sum(x * y for x, y in zip(entry.embedding, entry.context_embedding, strict=True)) < 0.99
    assert MemoryEvidence.objects.filter(entry=entry).count() == 1
    assert MemoryEvent.objects.filter(entry=entry, action="created").count() == 1


def test_a_turn_naming_its_speaker_and_a_known_person_inserts_its_mentions_at_once(ns):
    memory_add(namespace=ns, content="Caroline said: I met Melanie at the museum.", exact=True)
    memory_add(namespace=ns, content="Melanie said: Hello!", exact=True)
    with CaptureQueriesContext(connection) as captured:
        outcome = memory_add(namespace=ns, content="Caroline said: Melanie paints on Sundays.", exact=True)

    sent = [q["sql"] for q in captured.captured_queries]
    assert sum('INTO "memory_core_entitymention"' in sql for sql in sent) == 1
    mentioned = EntityMention.objects.filter(entry_id=outcome.entry.pk).values_list("entity__name", flat=True)
    assert sorted(mentioned) == ["Caroline", "Melanie"]
