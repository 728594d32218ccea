"""The user's services: correct, hide / use again, export, pause, activity log, read-only shares."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from memory_core.erasure import memory_erase
from memory_core.errors import MemoryServiceError, NotFound, PermissionDenied
from memory_core.export import memory_export
from memory_core.extraction.jobs import extraction_enqueue
from memory_core.lifecycle import (
    activity_log,
    memory_correct,
    memory_hide,
    memory_pause,
    memory_unhide,
)
from memory_core.models import (
    EventAction,
    FlaggedWrite,
    FlagKind,
    MemoryEntry,
    MemoryStatus,
    NamespaceGrant,
    SourceKind,
)
from memory_core.moderation import procedure_create
from memory_core.recall import memory_recall
from memory_core.selectors import memory_history
from memory_core.services import EntryDraft, memory_create, namespace_create, namespace_for_user
from privacy.services import privacy_export
from tests.chat.helpers import conversation as new_conversation
from tests.chat.helpers import say
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


def recalled(user, query: str) -> list[str]:
    return [item.entry.content for item in memory_recall(actor=user, query=query, record=False).items]


def test_it_corrects_with_a_new_version_and_keeps_the_old_one_in_history(owner):
    since = timezone.now() - timedelta(days=30)
    old = remember(owner, "The user lives in Beijing.", key="home_city", category="profile", valid_from=since)

    new = memory_correct(actor=owner, memory_id=old.pk, content="The user lives in Tianjin.", reason="typo")

    old.refresh_from_db()
    assert (new.source_kind, new.key, new.category, new.status) == (
        SourceKind.USER_CORRECTION,
        "home_city",
        "profile",
        MemoryStatus.ACTIVE,
    )
    assert new.supersedes_id == old.pk and old.superseded_by_id == new.pk
    assert old.status == MemoryStatus.SUPERSEDED
    # Never true: the old window is empty and the new one covers the same time.
    assert old.valid_to == old.valid_from and new.valid_from == since
    assert [e.action for e in memory_history(actor=owner, memory_id=old.pk)] == ["created", "corrected"]
    assert [e.action for e in memory_history(actor=owner, memory_id=new.pk)] == ["created", "corrected"]
    assert recalled(owner, "Where does the user live?") == ["The user lives in Tianjin."]
    past = memory_recall(
        actor=owner, query="Where does the user live?", at=since + timedelta(days=1), record=False
    )
    assert [i.entry.content for i in past.items] == ["The user lives in Tianjin."]


@pytest.mark.parametrize("content", ["", "   ", "The user lives in Beijing", "my password is hunter22"])
def test_it_refuses_a_blank_unchanged_or_secret_correction(owner, content):
    old = remember(owner, "The user lives in Beijing.")
    with pytest.raises(MemoryServiceError):
        memory_correct(actor=owner, memory_id=old.pk, content=content)
    assert MemoryEntry.objects.visible_to(owner).count() == 1


def test_it_sends_a_correction_that_weakens_a_policy_to_review_and_flags_it(owner):
    old = remember(owner, "Refunds need a manager's approval.")

    new = memory_correct(actor=owner, memory_id=old.pk, content="Refunds no longer need approval\x00.")

    old.refresh_from_db()
    assert new.content == "Refunds no longer need approval."
    assert (new.type, new.status, new.source_kind) == (
        "procedural",
        MemoryStatus.PENDING_REVIEW,
        SourceKind.USER_CORRECTION,
    )
    assert old.status == MemoryStatus.SUPERSEDED and old.superseded_by_id == new.pk
    flag = FlaggedWrite.objects.get(entry=new)
    assert flag.kind == FlagKind.POLICY_WEAKENING
    assert EventAction.FLAGGED in [e.action for e in memory_history(actor=owner, memory_id=new.pk)]
    assert recalled(owner, "Do refunds need approval?") == []


def test_it_keeps_a_personal_correction_a_fact(owner):
    old = remember(owner, "The user needs glasses.")
    new = memory_correct(actor=owner, memory_id=old.pk, content="The user no longer needs glasses.")
    assert (new.type, new.status) == ("semantic", MemoryStatus.ACTIVE)
    assert not FlaggedWrite.objects.exists()


def test_it_hides_and_uses_again(owner):
    entry = remember(owner, "The user is allergic to peanuts.", category="safety", pinned=True)

    memory_hide(actor=owner, memory_id=entry.pk)
    assert recalled(owner, "peanuts") == []
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.HIDDEN

    memory_unhide(actor=owner, memory_id=entry.pk)
    assert recalled(owner, "peanuts") == ["The user is allergic to peanuts."]
    actions = [e.action for e in memory_history(actor=owner, memory_id=entry.pk)]
    assert actions == ["created", EventAction.HIDDEN, EventAction.RESTORED]


def test_nobody_else_reaches_a_memory(owner, other_user, operator):
    entry = remember(owner, "The user lives in Beijing.")
    for intruder in (other_user, operator):
        for service in (memory_hide, memory_unhide, memory_erase):
            with pytest.raises(NotFound):
                service(actor=intruder, memory_id=entry.pk)
        with pytest.raises(NotFound):
            memory_correct(actor=intruder, memory_id=entry.pk, content="The user lives in Paris.")
    assert MemoryEntry.objects.get(pk=entry.pk).status == MemoryStatus.ACTIVE


def test_shared_procedures_are_read_only_for_users(owner, moderator):
    NamespaceGrant.objects.create(namespace=namespace_create(path="org/acme", kind="org"), user=owner)
    sop = procedure_create(operator=moderator, namespace_path="org/acme", content="Refunds need a manager.")
    for service in (memory_hide, memory_erase):
        with pytest.raises(PermissionDenied):
            service(actor=owner, memory_id=sop.pk)
    with pytest.raises(PermissionDenied):
        memory_correct(actor=owner, memory_id=sop.pk, content="Refunds need nobody.")


def test_it_exports_memories_history_provenance_recall_log_and_conversations(owner, other_user):
    conversation = new_conversation(owner)
    message, _ = say(owner, conversation, "Remember that I live in Lisbon.")
    entry = MemoryEntry.objects.visible_to(owner).get()
    memory_recall(actor=owner, query="Lisbon", record=True)
    remember(other_user, "The user lives in Oslo.")

    data = json.loads(json.dumps(privacy_export(user=owner), cls=DjangoJSONEncoder))

    [memory] = data["memories"]
    assert memory["id"] == str(entry.pk) and memory["content"] == entry.content
    assert memory["provenance"]["source_conversation"] == str(conversation.pk)
    assert memory["provenance"]["evidence"][0]["source_message_ids"] == [str(message.pk)]
    assert [h["action"] for h in memory["history"]] == ["created"]
    assert data["recall_log"][0]["memory_id"] == str(entry.pk)
    assert data["namespaces"] == [
        {"path": "user/alice", "memory_paused": False, "created_at": data["namespaces"][0]["created_at"]}
    ]
    assert data["conversations"][0]["messages"][0]["content"] == "Remember that I live in Lisbon."
    assert "Oslo" not in json.dumps(data)


def test_it_pauses_recall_and_extraction(owner):
    remember(owner, "The user lives in Lisbon.")
    memory_pause(actor=owner, paused=True)
    namespace = namespace_for_user(user=owner)

    assert namespace.memory_paused
    job = extraction_enqueue(
        namespace=namespace,
        source_conversation="c1",
        messages=[{"id": "1", "role": "user", "content": "I live in Porto."}],
    )
    assert job is None
    conversation = new_conversation(owner)
    say(owner, conversation, "Remember that I live in Porto. Where do I live?")
    assert not MemoryEntry.objects.filter(content__icontains="Porto").exists()
    assert not memory_export(actor=owner)["recall_log"]

    memory_pause(actor=owner, paused=False)
    assert not namespace_for_user(user=owner).memory_paused


def test_the_activity_log_says_who_did_what(owner, moderator):
    entry = memory_create(
        namespace=namespace_for_user(user=owner),
        draft=EntryDraft(
            content="The user lives in Lisbon.", source_kind=SourceKind.EXTRACTED, actor_kind="extraction"
        ),
    )
    memory_recall(actor=owner, query="Lisbon", record=True)
    memory_hide(actor=owner, memory_id=entry.pk)

    log = activity_log(actor=owner)

    assert [(a.action, a.actor_kind) for a in log] == [
        ("hidden", "user"),
        ("recalled", "assistant"),
        ("created", "extraction"),
    ]
    assert activity_log(actor=moderator) == []
