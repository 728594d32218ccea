"""The API's memory shape built directly (`memories_out`, what recall, lists and outcomes answer)
is exactly what `MemoryOutSerializer`, the documented shape, says: every field, every state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from api.serializers.core import MemoryOutSerializer, memories_out
from memory_core.lifecycle import memory_correct
from memory_core.models import MemoryEntry, MemoryType
from memory_core.recall import memory_recall
from tests.memory_core.helpers import remember

pytestmark = pytest.mark.django_db


@pytest.fixture
def entries(owner) -> list[MemoryEntry]:
    """Entries in every state the shape shows: plain; pinned, with metadata, an expiry and an end;
    an inference from a conversation; a corrected one and its correction; one recalled."""
    remember(owner, "The user enjoys hiking in the mountains.")
    remember(
        owner,
        "The user is severely allergic to peanuts.",
        category="safety",
        pinned=True,
        importance=0.9,
        metadata={"origin": "intake", "tags": ["health", 3], "nested": {"ok": True, "none": None}},
        valid_from=datetime(2026, 1, 2, 3, 4, 5, 600_000, tzinfo=UTC),
        valid_to=datetime(2027, 1, 2, tzinfo=UTC),
        expires_at=timezone.now() + timedelta(days=30),
    )
    remember(
        owner,
        "On 2026-06-29 refund RF20260629001 was filed.",
        type=MemoryType.EPISODIC,
        key="refund",
        source_conversation="conv-7",
        source_message_ids=("m1", "m2"),
        extractor_model="gpt-test",
        is_inference=True,
        confidence=0.75,
    )
    old = remember(owner, "The user lives in Lisbon.", key="home_city", category="profile")
    memory_correct(actor=owner, memory_id=old.pk, content="The user lives in Porto.")
    memory_recall(actor=owner, query="hiking in the mountains", turn_ref="test:output")
    return list(MemoryEntry.objects.select_related("namespace").order_by("created_at"))


def test_it_answers_what_the_serializer_answers_for_every_state(entries):
    assert {entry.status for entry in entries} >= {"active", "superseded"}
    assert any(entry.last_accessed_at for entry in entries) and any(entry.supersedes_id for entry in entries)

    assert memories_out(entries) == MemoryOutSerializer(entries, many=True).data


def test_it_writes_instants_in_the_current_time_zone_as_the_serializer_does(entries):
    with timezone.override("Asia/Shanghai"):
        built = memories_out(entries)
        assert built == MemoryOutSerializer(entries, many=True).data
    assert built[0]["created_at"].endswith("+08:00")
    assert memories_out(entries)[0]["created_at"].endswith("Z")


def test_an_entry_just_created_in_python_reads_the_same(owner):
    """Values as the write path leaves them on the instance (choices enums, not yet reloaded)."""
    entry = remember(owner, "The user prefers oolong tea.", type=MemoryType.SEMANTIC)

    assert memories_out([entry]) == MemoryOutSerializer([entry], many=True).data
    assert memories_out([]) == []
