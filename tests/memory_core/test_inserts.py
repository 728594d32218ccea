"""A write's entry, evidence and history go in as one statement (`memory_core.inserts`): the rows
are the ones three saves wrote, and the entry in memory is the one a save leaves."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models.signals import pre_save
from django.test.utils import CaptureQueriesContext

from memory_core.models import MemoryEntry, MemoryEvent, MemoryEvidence
from memory_core.pipeline import memory_add
from memory_core.services import namespace_for_user

pytestmark = pytest.mark.django_db


def test_a_new_entry_its_evidence_and_its_history_are_one_statement(owner):
    namespace = namespace_for_user(user=owner)
    memory_add(namespace=namespace, content="The user plays the cello.")
    with CaptureQueriesContext(connection) as captured:
        outcome = memory_add(
            namespace=namespace,
            content="Keep your replies to me short.",
            context="I am busy this week.",
            source_conversation="c1",
            source_message_ids=["m1"],
            excerpt="keep it short",
        )
    inserts = [q["sql"] for q in captured.captured_queries if "INSERT INTO" in q["sql"]]
    assert len(inserts) == 1 and inserts[0].startswith("WITH row0 AS (INSERT INTO")
    entry = outcome.entry
    stored = MemoryEntry.objects.get(pk=entry.pk)
    for field in MemoryEntry._meta.concrete_fields:
        if field.name in ("embedding", "context_embedding"):
            continue  # stored as half floats: read back rounded, after a save as well
        assert getattr(entry, field.attname) == getattr(stored, field.attname), field.name
    assert entry.answer_style and entry.search_vector  # computed by the database, read back
    assert not entry._state.adding and entry._state.db == "default"
    [evidence] = MemoryEvidence.objects.filter(entry=entry)
    assert (evidence.source_conversation, evidence.source_message_ids, evidence.excerpt) == (
        "c1",
        ["m1"],
        "keep it short",
    )
    [event] = MemoryEvent.objects.filter(entry_ref=entry.pk)
    assert event.action == "created" and event.data["content"] == entry.content


def test_a_save_signal_receiver_still_runs(owner):
    namespace = namespace_for_user(user=owner)
    seen: list[str] = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.content)

    pre_save.connect(receiver, sender=MemoryEntry)
    try:
        memory_add(namespace=namespace, content="The user owns a cat.")
    finally:
        pre_save.disconnect(receiver, sender=MemoryEntry)
    assert seen == ["The user owns a cat."]
    assert MemoryEvidence.objects.filter(entry__content="The user owns a cat.").count() == 1


def test_what_the_entrys_save_computes_is_written_too(owner):
    """`MemoryEntry.save` fills the search index's copies (Chinese words segmented, the key's topic
    words); the one-statement insert writes the same copies, and the words are found."""
    namespace = namespace_for_user(user=owner)
    outcome = memory_add(namespace=namespace, content="我女儿在学钢琴。", key="hobby")
    entry = outcome.entry
    stored = MemoryEntry.objects.get(pk=entry.pk)
    assert stored.search_text and "钢琴" in stored.search_text.split()
    saved = MemoryEntry(namespace=namespace, content=entry.content, key=entry.key)
    saved.index_text()
    assert (stored.search_text, stored.search_context_text) == (saved.search_text, saved.search_context_text)
